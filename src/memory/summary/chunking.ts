// Split new messages into chunks of at most `limit` characters of message text (the per-message header
// is not counted). A chunk never ends on a user message: cuts fall only after an assistant message, and
// trailing user messages with no reply yet wait for the next run. An exchange too long for one chunk is
// shortened (head and tail of its longest messages kept) so that every chunk stays within the limit.
import type { StoredMessage } from "../../shared/message.ts";

export interface ChunkPart {
  message: StoredMessage;
  /** The text sent: the content, or a shortened copy of it. */
  text: string;
  truncated: boolean;
}

export interface Chunk {
  parts: ChunkPart[];
  /** Characters (code points) of message text in this chunk. */
  chars: number;
}

/** Length in code points (what "characters" means for chunk_chars). */
export function countChars(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Trailing user messages with no reply yet wait for the next run, to be summarized with their answer. */
export function splitWaiting(messages: readonly StoredMessage[]): { ready: StoredMessage[]; waiting: StoredMessage[] } {
  let end = messages.length;
  while (end > 0 && messages[end - 1]!.role === "user") end--;
  return { ready: messages.slice(0, end), waiting: messages.slice(end) };
}

/** Units that may not be split: user messages (if any) followed by one assistant message. */
function units(messages: readonly StoredMessage[]): StoredMessage[][] {
  const out: StoredMessage[][] = [];
  let cur: StoredMessage[] = [];
  for (const m of messages) {
    cur.push(m);
    if (m.role === "assistant") {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** Shorten `text` to at most `max` code points, keeping its head and tail around a marker. */
export function shorten(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const marker = (n: number) => `\n[… ${n} characters left out …]\n`;
  // Sized for the longest number it can hold; the real marker is never longer.
  const room = max - countChars(marker(chars.length));
  if (room < 20) return max <= 1 ? "" : chars.slice(0, max - 1).join("") + "…";
  const head = Math.floor(room * 0.7);
  return (
    chars.slice(0, head).join("") + marker(chars.length - room) + chars.slice(chars.length - (room - head)).join("")
  );
}

/** The unit's parts, shortened so their text fits `limit` (the largest messages give up characters first). */
function fitUnit(unit: StoredMessage[], limit: number): ChunkPart[] {
  const lengths = unit.map((m) => countChars(m.content));
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total <= limit) return unit.map((m) => ({ message: m, text: m.content, truncated: false }));
  // Largest cap c with sum(min(len, c)) <= limit.
  const sorted = [...lengths].sort((a, b) => a - b);
  let rest = limit;
  let cap = 0;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(rest / (sorted.length - i));
    if (sorted[i]! <= share) rest -= sorted[i]!;
    else {
      cap = share;
      break;
    }
  }
  return unit.map((m, i) =>
    lengths[i]! <= cap
      ? { message: m, text: m.content, truncated: false }
      : { message: m, text: shorten(m.content, cap), truncated: true },
  );
}

/** Chunks of `messages` (call splitWaiting first: a trailing user message here ends the last chunk). */
export function planChunks(messages: readonly StoredMessage[], limit: number): Chunk[] {
  const chunks: Chunk[] = [];
  let cur: Chunk = { parts: [], chars: 0 };
  for (const unit of units(messages)) {
    const parts = fitUnit(unit, limit);
    const chars = parts.reduce((n, p) => n + countChars(p.text), 0);
    if (cur.parts.length > 0 && cur.chars + chars > limit) {
      chunks.push(cur);
      cur = { parts: [], chars: 0 };
    }
    cur.parts.push(...parts);
    cur.chars += chars;
  }
  if (cur.parts.length > 0) chunks.push(cur);
  return chunks;
}
