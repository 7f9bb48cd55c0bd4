// The session list pane as lines: the filter line, a header, then one row per session.
import { basename } from "node:path";
import { cutToWidth, fieldTail, stringWidth, truncate } from "../text/char-width.ts";
import { age, count } from "../text/format.ts";
import type { SessionListState } from "../state/session-list-state.ts";
import type { SessionInfo } from "../api-types.ts";
import type { Theme } from "../theme.ts";
import { renderLine, fitHeight } from "./segments.ts";
import { lineText } from "../../shared/terminal-text.ts";
import { wrapLines } from "../text/wrap.ts";

/** Rows taken above the list itself (filter line + header). */
export const LIST_CHROME_ROWS = 2;

export function renderSessionList(
  state: SessionListState,
  theme: Theme,
  width: number,
  height: number,
  focused: boolean,
  nowNs: bigint,
): string[] {
  const lines: string[] = [];
  lines.push(
    state.filter
      ? renderLine(theme, width, [
          ["filter: ", "dim"],
          [fieldTail(state.filter, width - 9), "title"],
          [focused ? "▏" : ""],
          ["  Esc clears", "dim"],
        ])
      : renderLine(theme, width, [[focused ? "type to filter" : "", "dim"]]),
  );
  // Column widths for the whole list (they hold while scrolling) from one pass over its counts, not a formatted count
  // and age per session at every render: the largest count is the widest, and an age takes at most 4 cells.
  let most = 0;
  for (const s of state.visible) if (s.messages > most) most = s.messages;
  const countW = Math.max(4, count(most).length);
  const timeW = 4;
  const sumW = 3;
  const idW = Math.max(4, width - countW - timeW - sumW - 3);
  const row = (id: string, n: string, when: string, sum: string) =>
    id.padEnd(idW + (id.length - stringWidth(id))) +
    " " +
    n.padStart(countW) +
    " " +
    when.padStart(timeW) +
    " " +
    sum.padEnd(sumW);
  lines.push(renderLine(theme, width, [[row("SESSION", "MSGS", "LAST", "SUM"), "dim"]]));
  const { first, last } = state.cursor.visible();
  for (let i = first; i <= last; i++) {
    const s = state.visible[i]!;
    const id = fittedSessionLabel(s, idW);
    const text = row(id, count(s.messages), age(s.lastActivity, nowNs), s.hasSummary ? "yes" : "no");
    if (i === state.cursor.selected) lines.push(renderLine(theme, width, [[text]], focused ? "selected" : "title"));
    else
      lines.push(
        renderLine(theme, width, [[text.slice(0, -sumW)], [s.hasSummary ? "yes" : "no", s.hasSummary ? "ok" : "dim"]]),
      );
  }
  if (state.visible.length === 0) {
    // Wrapped: the list is narrow, and the filter that explains the empty list must show whole.
    const why =
      state.total === 0
        ? "no sessions"
        : `no session ${state.hasLabels() ? "matches" : "id contains"} "${state.filter}"`;
    for (const part of wrapLines(why, width)) lines.push(renderLine(theme, width, [[part, "dim"]]));
  }
  return fitHeight(lines, width, height);
}

export function sessionListLabel(state: SessionListState): string {
  const shown = state.filter ? `${count(state.visible.length)}/${count(state.total)}` : count(state.total);
  return ` Sessions ${shown} · ${state.sort} `;
}

/**
 * The label in `width` cells. An id that fits the column stays whole (sess-0417 and sess-0418 differ at their end),
 * the title cut after it. An imported session's id is long (cc- or gpt- and a UUID: 39 characters, wider than the
 * list's id column at any terminal width): it gives way to a prefix and the title and origin follow; the history
 * pane's label names the whole id.
 */
export function fittedSessionLabel(s: SessionInfo, width: number): string {
  const label = sessionLabel(s);
  if (stringWidth(label) <= width) return label;
  const idWidth = stringWidth(s.id);
  // " · " and at least one cell of the title with its "…"
  if (idWidth <= width) return idWidth + 5 <= width ? truncate(label, width) : s.id;
  // A plain id too wide keeps its start and its end: ids that share a start (customer-support-2026-12-01, …-02) differ
  // at their end, which a cut at the end hid, every row reading the same.
  if (label.length === s.id.length) return middleCut(s.id, width);
  const keep = Math.max(ID_PREFIX_CELLS, Math.floor(width / 3));
  if (s.id.length <= keep) return truncate(label, width);
  return truncate(truncate(s.id, keep) + label.slice(s.id.length), width);
}

/** `text` in `width` cells: its start, "…", and its end (a little more of the end). */
function middleCut(text: string, width: number): string {
  if (width < 3) return truncate(text, width);
  const head = Math.floor((width - 1) / 2);
  return cutToWidth(text, head) + fieldTail(text, width - head);
}

/** At least this much of a long id stays in the list beside a title (cc-1a2b…): enough to tell sessions apart. */
const ID_PREFIX_CELLS = 8;

/** The id, then what an imported session carries: its title, the source and the project folder's name. */
export function sessionLabel(s: SessionInfo): string {
  // Composed (NFC): a decomposed accent would take a cell of the row's layout that it is not drawn in.
  const clean = (t: string) => lineText(t).normalize("NFC").replace(/\s+/g, " ").trim();
  const origin = [s.source, s.project ? basename(s.project) : undefined].filter((x): x is string => !!x).map(clean);
  const parts = [s.id, s.title ? clean(s.title) : "", origin.length > 0 ? `[${origin.join(" ")}]` : ""];
  return parts.filter((x) => x !== "").join(" · ");
}
