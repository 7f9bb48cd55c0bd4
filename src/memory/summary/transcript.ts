// The transcript the summary model reads: every message with its UTC time, role and sender, so that
// `last_discussed` can be real.
import type { StoredMessage } from "../../shared/message.ts";
import { nsToUtcSeconds } from "../../shared/time.ts";

export function messageHeader(m: StoredMessage): string {
  const when = m.sendAt > 0n ? `${nsToUtcSeconds(m.sendAt)} UTC` : "time unknown";
  const who = m.sender ? ` (${m.sender.replace(/[\r\n\]]/g, " ")})` : "";
  return `[${when}] ${m.role}${who}:`;
}

/** One message as the model sees it; `text` replaces the content (a shortened copy) when given. */
export function renderMessage(m: StoredMessage, text: string = m.content): string {
  return `${messageHeader(m)}\n${text}`;
}

export function renderTranscript(entries: readonly { message: StoredMessage; text: string }[]): string {
  return entries.map((e) => renderMessage(e.message, e.text)).join("\n\n");
}
