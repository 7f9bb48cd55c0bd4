// The history pane's content as blocks (one per message, plus the archive/history.json marker) and
// their wrapped lines at a given width.
import type { StoredMessage } from "../../shared/message.ts";
import { nsToLocalSeconds } from "../../shared/time.ts";
import { stringWidth } from "../text/char-width.ts";
import { displayText } from "../../shared/terminal-text.ts";
import { wrapLines } from "../text/wrap.ts";

export type HistoryBlock = { type: "message"; message: StoredMessage } | { type: "marker"; text: string };

export type LineKind = "header" | "body" | "blank" | "marker" | "empty";

export interface ViewLine {
  kind: LineKind;
  text: string;
  /** The block the line belongs to. */
  block: number;
  /** The line belongs to the message the view was centred on (a search hit). */
  hit?: boolean;
  role?: StoredMessage["role"];
}

export const ARCHIVE_MARKER = "archive above · history.json below";
/** Where messages another program removed from the middle of history.json (archive only) begin. */
export const PRUNED_MARKER = "history.json above · archive below";
const GUTTER = 2;
const INDENT = 2;

/**
 * Messages oldest first; a marker goes where the archive ends and history.json begins, and where history.json ends
 * and archived messages follow (removed from its middle by another program). `before`: the message shown just above
 * them (the blocks go after those already shown).
 */
export function buildBlocks(messages: readonly StoredMessage[], before?: StoredMessage): HistoryBlock[] {
  const out: HistoryBlock[] = [];
  let prev = before;
  for (const m of messages) {
    if (prev && m.recent !== prev.recent) out.push({ type: "marker", text: m.recent ? ARCHIVE_MARKER : PRUNED_MARKER });
    out.push({ type: "message", message: m });
    prev = m;
  }
  return out;
}

export function messageHeader(m: StoredMessage): string {
  return `${nsToLocalSeconds(m.sendAt)} · ${m.role}${m.sender ? ` · ${displayText(m.sender).replace(/\n/g, " ")}` : ""}`;
}

export function blockLines(block: HistoryBlock, index: number, width: number, hitId?: string): ViewLine[] {
  if (block.type === "marker") {
    const label = ` ${block.text} `;
    const side = Math.max(2, Math.floor((width - stringWidth(label)) / 2));
    return [
      {
        kind: "marker",
        text: "─".repeat(side) + label + "─".repeat(Math.max(2, width - side - stringWidth(label))),
        block: index,
      },
    ];
  }
  const m = block.message;
  const hit = hitId !== undefined && m.id === hitId;
  const lines: ViewLine[] = [{ kind: "header", text: messageHeader(m), block: index, hit, role: m.role }];
  for (const text of wrapLines(displayText(m.content), Math.max(1, width - GUTTER - INDENT))) {
    lines.push({ kind: "body", text: " ".repeat(INDENT) + text, block: index, hit, role: m.role });
  }
  lines.push({ kind: "blank", text: "", block: index });
  return lines;
}

/** Where a message sits among the blocks. */
export function blockOfMessage(blocks: readonly HistoryBlock[], id: string): number {
  return blocks.findIndex((b) => b.type === "message" && b.message.id === id);
}

export { GUTTER };
