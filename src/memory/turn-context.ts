// The turn context an agent sends to its model: the last N messages in full, then the user input.
import type { Role } from "../shared/message.ts";
import { nsToRfc3339 } from "../shared/time.ts";
import type { MemoryContext } from "./memory-context.ts";
import { readSessionHistory } from "./history-view.ts";

export interface ContextMessage {
  role: Role;
  content: string;
  /** RFC 3339 UTC with nanoseconds; absent for the turn context and the new input. */
  sendAt?: string;
  sender?: string;
  id?: string;
}

export interface TurnContext {
  session: string;
  /** In the order they go to the model. */
  messages: ContextMessage[];
  /** The system prompt's `Prior Conversation Context` section ("" when there is no summary). */
  system: string;
}

export function buildTurnContext(ctx: MemoryContext, session: string, input?: string): TurnContext {
  const recent = readSessionHistory(ctx, session);
  const messages: ContextMessage[] = recent.map((m) => {
    const c: ContextMessage = { id: m.id, role: m.role, content: m.content, sendAt: nsToRfc3339(m.sendAt) };
    if (m.sender !== undefined) c.sender = m.sender;
    return c;
  });
  if (input !== undefined && input !== "") messages.push({ role: "user", content: input });
  return { session, messages, system: "" };
}
