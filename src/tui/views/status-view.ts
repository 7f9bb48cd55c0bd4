// The bottom rows: home, daemon, embedder and counts; then a message, the last error, or the key hints (wrapped).
import type { StatusState } from "../state/status-state.ts";
import { fieldTail, stringWidth } from "../text/char-width.ts";
import { count, tildePath } from "../text/format.ts";
import type { Theme } from "../theme.ts";
import { renderLine, type Segment } from "./segments.ts";
import { packParts, wrapLines } from "../text/wrap.ts";

export const MAX_MESSAGE_ROWS = 3;
/** The fewest cells the home's path gets on the info row. */
const MIN_HOME = 12;
export const HINTS = "? help · / search · Ctrl-S summary · Ctrl-E errors · q quit";

/** Keep the end of a path (the part that tells homes apart) within `width` cells (by cells: a CJK folder's too). */
function pathTail(path: string, width: number): string {
  return fieldTail(path, Math.max(2, width));
}

/** The info row, then the message row(s): a message or the last error wraps onto up to 3 rows. */
export function renderStatusRows(s: StatusState, theme: Theme, width: number, hints = HINTS): [string, string[]] {
  const i = s.info;
  const daemon: Segment[] = i.daemon
    ? [
        ["  daemon ", "dim"],
        [i.daemon, i.daemon === "running" ? "ok" : "dim"],
      ]
    : [];
  const counts = [
    `${count(i.sessions)} session${i.sessions === 1 ? "" : "s"}`,
    `${count(i.messages)} msg${i.messages === 1 ? "" : "s"}`,
  ];
  if (i.errors !== undefined) counts.push(`${count(i.errors)} error${i.errors === 1 ? "" : "s"}`);
  const tally: Segment = ["  " + counts.join(" · ")];
  const widthOf = (segments: Segment[]) => segments.reduce((n, [t]) => n + stringWidth(t), 0);
  // The counts are kept whole: on a narrow row the embedder (the least telling part) gives way first.
  let rest: Segment[] = [...daemon, ["  embedder ", "dim"], [i.embedder], tally];
  if (1 + MIN_HOME + widthOf(rest) > width) rest = [...daemon, tally];
  const home = pathTail(tildePath(i.home), Math.max(MIN_HOME, width - 1 - widthOf(rest)));
  const info = renderLine(theme, width, [[" "], [home, "title"], ...rest]);
  const m = s.message;
  const wrapped = (prefix: string, text: string) => {
    const lines = wrapLines(prefix + text, Math.max(10, width - 1)).slice(0, MAX_MESSAGE_ROWS);
    return lines.map((l, i) => (i === 0 ? l.slice(prefix.length) : l));
  };
  if (m) {
    const style = m.kind === "error" ? "error" : m.kind === "ok" ? "ok" : m.kind === "busy" ? "busy" : undefined;
    return [info, wrapped("", m.text).map((t) => renderLine(theme, width, [[" "], [t, style]]))];
  }
  if (s.lastError) {
    return [
      info,
      wrapped("last error: ", s.lastError).map((t, i) =>
        renderLine(
          theme,
          width,
          i === 0
            ? [
                [" last error: ", "dim"],
                [t, "error"],
              ]
            : [[" "], [t, "error"]],
        ),
      ),
    ];
  }
  return [info, hintRows(hints, Math.max(10, width - 1)).map((t) => renderLine(theme, width, [[" " + t, "dim"]]))];
}

/** Key hints ("a · b · c") on up to MAX_MESSAGE_ROWS rows, broken between hints (a hint wider than a row wraps). */
function hintRows(hints: string, width: number): string[] {
  return packParts(hints.split(" · "), width).slice(0, MAX_MESSAGE_ROWS);
}
