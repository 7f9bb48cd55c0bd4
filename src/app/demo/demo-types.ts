// The shape of the demo home's content: sessions of dated turns, an optional summary each, error records.

export type Turn = readonly [role: "user" | "assistant", text: string];

export interface DemoSession {
  id: string;
  /** Days before now when the conversation ended. */
  endedDaysAgo: number;
  /** Who speaks for the user (assistant turns carry no sender). */
  user: string;
  /** Minutes between turns. */
  pace: number;
  turns: readonly Turn[];
  /** summary.json content (imported as is, no LLM call). */
  summary?: {
    key_decisions: string[];
    past_discussions: { topic: string; description: string; direction: string; last_discussed: string }[];
    current_discussion: { topic: string; description: string; perspectives: string; direction: string };
  };
}

export interface DemoError {
  tool: string;
  error: string;
  cause?: string;
  fix: string;
  outcome?: "resolved" | "failed" | "abandoned";
  keywords?: string[];
}
