// One message of a turn context, as the model receives it and as the MemoryApi returns it.
import type { Role } from "./message.ts";

export interface ContextMessage {
  role: Role;
  content: string;
  /** RFC 3339 UTC with nanoseconds; absent for the turn context and the new input. */
  sendAt?: string;
  sender?: string;
  id?: string;
  /** history: one of the last N messages; summary: the turn context holding the Prior summary; input: the request. */
  kind: "history" | "summary" | "input";
}
