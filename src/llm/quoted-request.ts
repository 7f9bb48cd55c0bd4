// Whether a server's error message quotes the request it answers (a gateway or a validation error may echo the
// conversation): such a message is left out of what memvoy reports and logs, which never hold message content.
import type { LlmRequest } from "./llm-types.ts";

/** Shorter runs of text are common words and names, not a quote. */
const QUOTE_CHARS = 24;

/** Only the start of a long message is looked at (a failure is reported once; this stays cheap). */
const SCANNED_CHARS = 2000;

export function quotesRequest(whole: string, req: Pick<LlmRequest, "system" | "messages">): boolean {
  const message = whole.slice(0, SCANNED_CHARS);
  if (message.length < QUOTE_CHARS) return false;
  const sent = [req.system, ...req.messages.map((m) => m.content)].join("\n");
  for (let at = 0; at + QUOTE_CHARS <= message.length; at++)
    if (sent.includes(message.slice(at, at + QUOTE_CHARS))) return true;
  return false;
}
