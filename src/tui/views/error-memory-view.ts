// The error-memory browser as lines: search field, status, a table of records, and the selected record's detail.
import { nsToLocalSeconds } from "../../shared/time.ts";
import type { ErrorRecord } from "../api-types.ts";
import type { ErrorMemoryState } from "../state/error-memory-state.ts";
import { fieldTail, stringWidth, truncate } from "../text/char-width.ts";
import { count, plural } from "../text/format.ts";
import { displayText, inlineText, lineText } from "../../shared/terminal-text.ts";
import { packParts, wrapLines } from "../text/wrap.ts";
import type { Theme } from "../theme.ts";
import { renderLine, fitHeight } from "./segments.ts";

/** The status wraps onto at most this many rows (a search's notes), so the table keeps its room. */
const MAX_STATUS_ROWS = 3;

/** The status line, wrapped to the width (at most MAX_STATUS_ROWS rows, the last cut). */
function statusRows(s: ErrorMemoryState, width: number): string[] {
  const rows = wrapLines(statusText(s), width);
  return rows.length <= MAX_STATUS_ROWS
    ? rows
    : [...rows.slice(0, MAX_STATUS_ROWS - 1), truncate(rows.slice(MAX_STATUS_ROWS - 1).join(" "), width)];
}

/** Rows above the table: the search line, the status (wrapped), the header. */
export function errorsChromeRows(s: ErrorMemoryState, width: number): number {
  return 2 + statusRows(s, width).length;
}

/** How many table rows fit: the rest of the pane shows the detail (or all of it with the detail toggled). */
export function tableRows(s: ErrorMemoryState, width: number, height: number): number {
  const room = height - errorsChromeRows(s, width);
  return s.detail ? 0 : Math.max(2, Math.floor(room * 0.45));
}

export function renderErrorMemory(
  s: ErrorMemoryState,
  theme: Theme,
  width: number,
  height: number,
  nowNs: bigint,
): string[] {
  const lines: string[] = [];
  const searching = s.typing || s.query !== "";
  lines.push(
    searching
      ? renderLine(theme, width, [
          ["/ search: ", "title"],
          [fieldTail(inlineText(s.query), width - 11)],
          [s.typing ? "▏" : ""],
          [s.typing ? "   Enter or Esc ends typing" : "   Esc clears", "dim"],
        ])
      : renderLine(theme, width, [["/ search · Enter detail · d delete · Esc back", "dim"]]),
  );
  for (const text of statusRows(s, width))
    lines.push(renderLine(theme, width, [[text, s.rows.length ? undefined : "dim"]]));
  const idW = 8;
  const toolW = Math.min(16, Math.max(4, ...s.rows.map((r) => stringWidth(r.record.tool))));
  const row = (id: string, tool: string, outcome: string, hits: string, error: string) =>
    `${id.padEnd(idW)} ${tool.padEnd(toolW + tool.length - stringWidth(tool))} ${outcome.padEnd(9)} ${hits.padStart(4)}  ${error}`;
  lines.push(renderLine(theme, width, [[row("ID", "TOOL", "OUTCOME", "HITS", "ERROR"), "dim"]]));
  const chrome = errorsChromeRows(s, width);
  const rows = tableRows(s, width, height);
  if (rows > 0) {
    s.cursor.setHeight(rows);
    const { first, last } = s.cursor.visible();
    for (let i = first; i <= last; i++) {
      const r = s.rows[i]!.record;
      const tool = truncate(r.tool, toolW); // by cells: a CJK name cut by characters overflowed the column
      const text = row(r.id.slice(0, idW), tool, r.outcome, count(r.hits), lineText(r.error));
      lines.push(
        i === s.cursor.selected ? renderLine(theme, width, [[text]], "selected") : renderLine(theme, width, [[text]]),
      );
    }
    while (lines.length < chrome + rows) lines.push(" ".repeat(width));
    lines.push(renderLine(theme, width, [["─".repeat(width), "dim"]]));
  }
  const sel = s.selected();
  if (sel)
    for (const l of detailLines(sel, width, nowNs, height - lines.length))
      lines.push(renderLine(theme, width, [[l.text, l.style]]));
  return fitHeight(lines, width, height);
}

function statusText(s: ErrorMemoryState): string {
  const notes = s.notes.length ? ` · ${s.notes.join(" · ")}` : "";
  if (s.searching !== undefined) return `searching "${truncate(inlineText(s.searching), 40)}"…`;
  if (s.showing.kind === "search") {
    const n = s.rows.length;
    // At most 40 cells of the query (it is in the field above): a pasted error would push the notes off the row.
    const query = truncate(inlineText(s.showing.query), 40);
    return `${n === 0 ? "no records match" : `${plural(n, "record")} ${n === 1 ? "matches" : "match"}`} "${query}"${notes}`;
  }
  if (s.total === 0)
    return "no error records yet: agents add them with memvoy errors record (or recordError in the library)";
  const shown =
    s.rows.length < s.total ? `showing ${count(s.rows.length)} of ${count(s.total)}` : plural(s.total, "record");
  return `${shown}, most recent first${notes}`;
}

type StyledLine = { text: string; style?: "title" | "dim" | "ok" | "error" };

/**
 * The record's detail in `room` rows. When it is taller, the longest of error, cause and fix gives way first (a stack
 * trace in the error would hide the fix below it), each cut one ending in a line saying how much more `o` shows.
 */
function detailLines(r: ErrorRecord, width: number, nowNs: bigint, room: number): StyledLine[] {
  const when = (ns: bigint | undefined) => (ns ? nsToLocalSeconds(ns).slice(0, 16) : "never");
  const days = Math.max(0, Math.ceil(Number(r.expiresAt - nowNs) / 86_400e9));
  // Wrapped between their parts, so that the last (expires in…) is not cut at 80 columns.
  const out: StyledLine[] = [
    ...packParts(
      [lineText(r.tool), r.outcome, plural(r.hits, "hit"), `recorded ${plural(r.occurrences, "time")}`, `id ${r.id}`],
      width,
    ).map((text) => ({ text, style: "title" as const })),
    ...packParts(
      [
        `created ${when(r.createdAt)}`,
        `updated ${when(r.updatedAt)}`,
        `last hit ${when(r.lastHitAt)}`,
        `expires in ${plural(days, "day")}`,
      ],
      width,
    ).map((text) => ({ text, style: "dim" as const })),
  ];
  const blocks: { label: string; body: string[] }[] = [];
  for (const [label, text] of [
    ["error", r.error],
    ["cause", r.cause],
    ["fix", r.fix],
  ] as const)
    if (text) blocks.push({ label, body: wrapLines(displayText(text), Math.max(1, width - 2)) });
  const keywords = r.keywords.length ? wrapLines(displayText(`keywords: ${r.keywords.join(", ")}`), width) : [];
  // Rows over the room: the longest body is cut first (to no fewer than 2 rows, and a note), then the next.
  const full = blocks.map((b) => b.body.length);
  const shown = [...full];
  const rows = () =>
    out.length + keywords.length + blocks.reduce((n, _, i) => n + 1 + shown[i]! + (shown[i]! < full[i]! ? 1 : 0), 0);
  for (let over = rows() - room; over > 0; over = rows() - room) {
    let at = -1;
    for (let i = 0; i < shown.length; i++) if (shown[i]! > 2 && (at < 0 || shown[i]! > shown[at]!)) at = i;
    if (at < 0) break;
    shown[at] = Math.max(2, shown[at]! - over - (shown[at] === full[at] ? 1 : 0));
  }
  blocks.forEach((b, i) => {
    out.push({ text: b.label, style: "title" });
    for (const l of b.body.slice(0, shown[i])) out.push({ text: `  ${l}` });
    if (shown[i]! < full[i]!)
      out.push({ text: `  … ${plural(full[i]! - shown[i]!, "more line")}: o shows the whole record`, style: "dim" });
  });
  for (const text of keywords) out.push({ text, style: "dim" });
  return out;
}
