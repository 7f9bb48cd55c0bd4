// The transcript the summary model reads. Every message carries its UTC time so that `last_discussed` can
// be real; kept compact so the transcript adds little to the text itself: a `== YYYY-MM-DD UTC ==` line
// starts each day, then `[HH:MM role] text` per message.
import type { StoredMessage } from "../../shared/message.ts";
import { nsToUtcSeconds } from "../../shared/time.ts";

function who(m: StoredMessage): string {
  return m.sender ? `${m.role} (${m.sender.replace(/[\r\n\]()]/g, " ")})` : m.role;
}

/** `[2026-05-01 09:30 user] text`: one message on its own, with its full time. */
export function renderMessage(m: StoredMessage, text: string = m.content): string {
  const when = m.sendAt > 0n ? nsToUtcSeconds(m.sendAt).slice(0, 16) : "time unknown";
  return `[${when} ${who(m)}] ${text}`;
}

/** Messages grouped by UTC day: `== 2026-05-01 UTC ==`, then `[09:30 user] text`, a blank line between messages. */
export function renderTranscript(entries: readonly { message: StoredMessage; text: string }[]): string {
  const out: string[] = [];
  let day = "";
  for (const { message: m, text } of entries) {
    const stamp = m.sendAt > 0n ? nsToUtcSeconds(m.sendAt) : "";
    const d = stamp ? stamp.slice(0, 10) : "date unknown";
    if (d !== day) {
      day = d;
      out.push(`== ${d}${stamp ? " UTC" : ""} ==\n`);
    }
    out.push(`[${stamp ? stamp.slice(11, 16) : "--:--"} ${who(m)}] ${text}\n\n`);
  }
  return out.join("").trimEnd();
}
