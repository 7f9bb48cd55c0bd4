// The two bottom rows: home, daemon, embedder and counts; then a message, the last error, or key hints.
import type { StatusState } from "../state/status-state.ts";
import { stringWidth } from "../text/char-width.ts";
import { count, tildePath } from "../text/format.ts";
import type { Theme } from "../theme.ts";
import { renderLine, type Segment } from "./segments.ts";

export const HINTS = "? help · / search · Ctrl-S summary · Ctrl-E errors · q quit";

/** Keep the end of a path (the part that tells homes apart) within `width` cells. */
function pathTail(path: string, width: number): string {
  if (stringWidth(path) <= width) return path;
  const chars = Array.from(path);
  return "…" + chars.slice(chars.length - Math.max(1, width - 1)).join("");
}

export function renderStatusRows(s: StatusState, theme: Theme, width: number, hints = HINTS): [string, string] {
  const i = s.info;
  const rest: Segment[] = [];
  if (i.daemon) rest.push(["  daemon ", "dim"], [i.daemon, i.daemon === "running" ? "ok" : "dim"]);
  rest.push(["  embedder ", "dim"], [i.embedder]);
  const counts = [`${count(i.sessions)} session${i.sessions === 1 ? "" : "s"}`, `${count(i.messages)} msg${i.messages === 1 ? "" : "s"}`];
  if (i.errors !== undefined) counts.push(`${count(i.errors)} error${i.errors === 1 ? "" : "s"}`);
  rest.push(["  " + counts.join(" · ")]);
  const restWidth = rest.reduce((n, [t]) => n + stringWidth(t), 0);
  const home = pathTail(tildePath(i.home), Math.max(12, width - 1 - restWidth));
  const info = renderLine(theme, width, [[" "], [home, "title"], ...rest]);
  let second: string;
  const m = s.message;
  if (m) second = renderLine(theme, width, [[" "], [m.text, m.kind === "error" ? "error" : m.kind === "ok" ? "ok" : m.kind === "busy" ? "busy" : undefined]]);
  else if (s.lastError) second = renderLine(theme, width, [[" last error: ", "dim"], [s.lastError, "error"]]);
  else second = renderLine(theme, width, [[" " + hints, "dim"]]);
  return [info, second];
}
