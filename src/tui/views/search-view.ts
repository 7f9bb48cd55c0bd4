// The search pane as lines: the query, the mode/scope/range line, the status (wrapped), then two lines per hit.
import { nsToLocalSeconds } from "../../shared/time.ts";
import type { SearchState } from "../state/search-state.ts";
import { inlineText, inlineTextKeeping, lineText } from "../../shared/terminal-text.ts";
import type { Theme } from "../theme.ts";
import { renderLine, fitHeight, wrapSegments, type Ranges, type Segment } from "./segments.ts";
import { codePointWidth, fieldTail, stringWidth, truncate } from "../text/char-width.ts";
import type { StyleName } from "../theme.ts";

export const HIT_ROWS = 2;
/** The status wraps onto at most this many rows (a fallback's reason, notes), so hits keep the room below. */
const MAX_STATUS_ROWS = 4;
/** The most of the query the status repeats ("3 hits for …"). */
const QUERY_ECHO_CELLS = 60;

const KEY_HINTS = "Tab mode · Ctrl-S scope · Ctrl-T range · Ctrl-O open · Ctrl-Y copy";

function optionSegments(s: SearchState): [string, StyleName][] {
  const scope = s.scope === "session" && s.session !== undefined ? `session ${s.session}` : "all sessions";
  return [
    ["mode ", "dim"],
    [s.modeLabel(), "key"],
    ["  scope ", "dim"],
    [scope, "key"],
    ["  range ", "dim"],
    [s.range, "key"],
  ];
}

/** The key hints share the option line when they fit on it. */
function hintsInline(s: SearchState, width: number): boolean {
  const used = optionSegments(s).reduce((n, [t]) => n + stringWidth(t), 0);
  return used + 3 + stringWidth(KEY_HINTS) <= width;
}

/** Rows above the hit list: query, options (and hints), the status rows, the rule. */
export function searchChromeRows(s: SearchState, width: number): number {
  return (hintsInline(s, width) ? 3 : 4) + statusRows(s, width).length;
}

export function renderSearch(s: SearchState, theme: Theme, width: number, height: number): string[] {
  const lines: string[] = [];
  lines.push(renderLine(theme, width, [["Search: ", "title"], [fieldTail(inlineText(s.query), width - 9)], ["▏"]]));
  if (hintsInline(s, width)) lines.push(renderLine(theme, width, [...optionSegments(s), [`   ${KEY_HINTS}`, "dim"]]));
  else lines.push(renderLine(theme, width, optionSegments(s)), renderLine(theme, width, [[KEY_HINTS, "dim"]]));
  for (const row of statusRows(s, width)) lines.push(renderLine(theme, width, row));
  lines.push(renderLine(theme, width, [["─".repeat(width), "dim"]]));
  const { first, last } = s.cursor.visible();
  for (let i = first; i <= last; i++) {
    const h = s.hits[i]!;
    const m = h.message;
    const selected = i === s.cursor.selected;
    const head = `${m.session} · ${nsToLocalSeconds(m.sendAt)} · ${m.role}${m.sender ? ` · ${lineText(m.sender)}` : ""} · ${h.source}`;
    lines.push(
      selected
        ? renderLine(theme, width, [[`▶ ${head}`]], "selected")
        : renderLine(theme, width, [["  "], [head, "dim"]]),
    );
    const clean = inlineTextKeeping(h.snippet, h.highlights);
    const shown = snippetForRow(clean.text, clean.ranges, width - 2);
    lines.push(
      renderLine(theme, width, [
        [selected ? "▌ " : "  ", selected ? "hit" : undefined],
        [shown.text, undefined, shown.highlights],
      ]),
    );
  }
  return fitHeight(lines, width, height);
}

/**
 * The part of a snippet a row of `width` cells shows. A snippet is cut at the row's end, so when its first match
 * would fall past it (a long line of CJK, a match near the end of its message) its start is cut instead, marked
 * with …, and the match shows a third of the way in.
 */
export function snippetForRow(
  text: string,
  highlights: Ranges,
  width: number,
): { text: string; highlights: (readonly [number, number])[] } {
  const first = highlights[0];
  if (!first || stringWidth(text.slice(0, first[1])) < width) return { text, highlights: [...highlights] };
  const lead = Math.floor(width / 3);
  let start = first[0];
  for (let cells = 0; start > 0; ) {
    const back = start >= 2 && isLowSurrogate(text.charCodeAt(start - 1)) ? 2 : 1;
    const w = codePointWidth(text.codePointAt(start - back)!);
    if (cells + w > lead - 1) break;
    cells += w;
    start -= back;
  }
  if (start === 0) return { text, highlights: [...highlights] };
  const shift = 1 - start;
  return {
    text: "…" + text.slice(start),
    highlights: highlights.filter(([s]) => s >= start).map(([s, e]) => [s + shift, e + shift] as const),
  };
}

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** The status as rows: what the hits answer, then a fallback's reason and the notes, wrapped (never cut). */
function statusRows(s: SearchState, width: number): Segment[][] {
  const rows = wrapSegments(statusSegments(s), width);
  if (rows.length <= MAX_STATUS_ROWS) return rows;
  // A pathological note (a huge error) keeps the hits in view: its end is cut, marked with …
  return [...rows.slice(0, MAX_STATUS_ROWS - 1), [...rows[MAX_STATUS_ROWS - 1]!, [" ".repeat(width)]]];
}

function statusSegments(s: SearchState): Segment[] {
  if (s.error) return [[`search failed: ${s.error}`, "error"]];
  const fallback = s.unavailable.get(s.mode);
  const notes = [
    ...(s.removedScope !== undefined
      ? [`session ${lineText(s.removedScope)} was removed: searching all sessions`]
      : []),
    ...(fallback ? [`${s.mode} unavailable: ${fallback}`] : []),
    ...s.notes,
  ];
  if (s.query.trim() === "") return [["type to search every message; Enter opens a hit; Esc closes", "dim"]];
  if (!s.answered) return [["searching…", "busy"]];
  const n = s.hits.length;
  const none = s.answered.match === "keyword" || s.answered.newest ? "no matches" : "no close matches";
  const found = n === 0 ? none : `${n}${n >= s.limit ? "+" : ""} hit${n === 1 ? "" : "s"}`;
  // While the hits answer an older query (typing, debounce, a request in flight), say so.
  const stale = s.busy || s.answered.query !== s.query;
  return [
    [found, n ? "ok" : "dim"],
    // The query is in the field above: a long one (a pasted error) is cut here, so that the reason and notes after it
    // stay within the status rows.
    [` for "${truncate(inlineText(s.answered.query), QUERY_ECHO_CELLS)}"`, "dim"],
    [n === 0 && s.emptyReason ? `: ${inlineText(s.emptyReason)}` : "", "dim"],
    [stale ? "  searching…" : s.answered.newest ? "  newest first · ranking…" : "", "busy"],
    [notes.length ? `  ${notes.join(" · ")}` : "", "dim"],
  ];
}
