// Normalise records written by Agenvoy: ns-integer sendAt, no id, time/sender headers inside content.
import { parseTime } from "../../shared/time.ts";

const HEADER_BLOCK = /^\s*---\s*\n([\s\S]*?)\n---\s*(?:\n|$)/;
const HEADER_TIME = /^\s*當前時間\s*[:：]\s*(.+?)\s*$/m;
const HEADER_SENDER = /^\s*傳送者\s*[:：]\s*(.+?)\s*$/m;
const PREFIX_LINE = /^\s*sendAt:\s*([^,\n]+?)\s*(?:,\s*sender:\s*([^,\n]*?)\s*)?(?:,\s*channelId:[^\n]*)?\n/;
const LEGACY_LINE = /^\s*(?:當前時間|工作目錄|傳送者|當前 chat ID|當前 channel)\s*[:：].*$/;

export interface LegacyFields {
  content: string;
  sendAt?: bigint;
  sender?: string;
}

/** Text of provider-style content: a string, or an array of parts whose text parts are joined. */
export function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts = content
      .map((p) =>
        p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string"
          ? (p as { text: string }).text
          : "",
      )
      .filter((t) => t.length > 0);
    return parts.join("\n");
  }
  return undefined;
}

/** Strip the legacy header block / prefix line, returning what they said (times read in local time). */
export function stripLegacyHeaders(text: string): LegacyFields {
  const out: LegacyFields = { content: text };
  const block = HEADER_BLOCK.exec(text);
  if (block && block[1]!.split("\n").some((l) => LEGACY_LINE.test(l))) {
    const header = block[1]!;
    const t = HEADER_TIME.exec(header);
    if (t) out.sendAt = parseTime(t[1]!);
    const s = HEADER_SENDER.exec(header);
    if (s && s[1]) out.sender = s[1];
    out.content = text.slice(block[0].length);
  }
  const prefix = PREFIX_LINE.exec(out.content);
  if (prefix) {
    const t = parseTime(prefix[1]!);
    if (t !== undefined) {
      out.sendAt ??= t;
      if (prefix[2]) out.sender ??= prefix[2];
      out.content = out.content.slice(prefix[0].length);
    }
  }
  return out;
}
