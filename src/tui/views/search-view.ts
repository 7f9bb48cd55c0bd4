// The search pane as lines: the query, the mode/scope/range line, a status line, then two lines per hit.
import { nsToLocalSeconds } from "../../shared/time.ts";
import type { SearchState } from "../state/search-state.ts";
import { inlineText } from "../../shared/terminal-text.ts";
import type { Theme } from "../theme.ts";
import { renderLine, fitHeight } from "./segments.ts";
import { stringWidth } from "../text/char-width.ts";
import type { StyleName } from "../theme.ts";

/** Rows above the hit list when the option line fits on one row. */
export const SEARCH_CHROME_ROWS = 4;
export const HIT_ROWS = 2;

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

/** Rows above the hit list: the key hints go to a row of their own when the option line is too narrow. */
export function searchChromeRows(s: SearchState, width: number): number {
  const used = optionSegments(s).reduce((n, [t]) => n + stringWidth(t), 0);
  return used + 3 + stringWidth(KEY_HINTS) <= width ? SEARCH_CHROME_ROWS : SEARCH_CHROME_ROWS + 1;
}

export function renderSearch(s: SearchState, theme: Theme, width: number, height: number): string[] {
  const lines: string[] = [];
  lines.push(renderLine(theme, width, [["Search: ", "title"], [inlineText(s.query)], ["▏"]]));
  if (searchChromeRows(s, width) === SEARCH_CHROME_ROWS)
    lines.push(renderLine(theme, width, [...optionSegments(s), [`   ${KEY_HINTS}`, "dim"]]));
  else lines.push(renderLine(theme, width, optionSegments(s)), renderLine(theme, width, [[KEY_HINTS, "dim"]]));
  lines.push(statusLine(s, theme, width));
  lines.push(renderLine(theme, width, [["─".repeat(width), "dim"]]));
  const { first, last } = s.cursor.visible();
  for (let i = first; i <= last; i++) {
    const h = s.hits[i]!;
    const m = h.message;
    const selected = i === s.cursor.selected;
    const head = `${m.session} · ${nsToLocalSeconds(m.sendAt)} · ${m.role}${m.sender ? ` · ${inlineText(m.sender)}` : ""} · ${h.source}`;
    lines.push(
      selected
        ? renderLine(theme, width, [[`▶ ${head}`]], "selected")
        : renderLine(theme, width, [["  "], [head, "dim"]]),
    );
    lines.push(
      renderLine(theme, width, [
        [selected ? "▌ " : "  ", selected ? "hit" : undefined],
        [inlineText(h.snippet), undefined, h.highlights],
      ]),
    );
  }
  return fitHeight(lines, width, height);
}

function statusLine(s: SearchState, theme: Theme, width: number): string {
  if (s.error) return renderLine(theme, width, [[`search failed: ${s.error}`, "error"]]);
  const fallback = s.unavailable.get(s.mode);
  const notes = [...(fallback ? [`${s.mode} unavailable: ${fallback}`] : []), ...s.notes];
  if (s.query.trim() === "")
    return renderLine(theme, width, [["type to search every message; Enter opens a hit; Esc closes", "dim"]]);
  if (!s.answered) return renderLine(theme, width, [["searching…", "busy"]]);
  const n = s.hits.length;
  const none = s.answered.match === "keyword" || s.answered.newest ? "no matches" : "no close matches";
  const found = n === 0 ? none : `${n}${n >= s.limit ? "+" : ""} hit${n === 1 ? "" : "s"}`;
  // While the hits answer an older query (typing, debounce, a request in flight), say so.
  const stale = s.busy || s.answered.query !== s.query;
  return renderLine(theme, width, [
    [found, n ? "ok" : "dim"],
    [` for "${inlineText(s.answered.query)}"`, "dim"],
    [stale ? "  searching…" : s.answered.newest ? "  newest first · ranking…" : "", "busy"],
    [notes.length ? `  ${notes.join(" · ")}` : "", "dim"],
  ]);
}
