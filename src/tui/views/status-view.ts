// The two bottom rows: home, daemon, embedder and counts; then a message, the last error, or key hints.
import type { StatusState } from "../state/status-state.ts";
import { count, plural, tildePath } from "../text/format.ts";
import type { Theme } from "../theme.ts";
import { renderLine, type Segment } from "./segments.ts";

export const HINTS = "? help · / search · Ctrl-S summary · Ctrl-E errors · q quit";

export function renderStatusRows(s: StatusState, theme: Theme, width: number, hints = HINTS): [string, string] {
  const i = s.info;
  const segs: Segment[] = [[" "], [tildePath(i.home), "title"]];
  if (i.daemon) segs.push(["  daemon ", "dim"], [i.daemon, i.daemon === "running" ? "ok" : "dim"]);
  segs.push(["  embedder ", "dim"], [i.embedder]);
  segs.push(["  " + plural(i.sessions, "session") + " · " + plural(i.messages, "message")]);
  if (i.errors !== undefined) segs.push([` · ${count(i.errors)} error record${i.errors === 1 ? "" : "s"}`]);
  const info = renderLine(theme, width, segs);
  let second: string;
  const m = s.message;
  if (m) second = renderLine(theme, width, [[" "], [m.text, m.kind === "error" ? "error" : m.kind === "ok" ? "ok" : m.kind === "busy" ? "busy" : undefined]]);
  else if (s.lastError) second = renderLine(theme, width, [[" last error: ", "dim"], [s.lastError, "error"]]);
  else second = renderLine(theme, width, [[" " + hints, "dim"]]);
  return [info, second];
}
