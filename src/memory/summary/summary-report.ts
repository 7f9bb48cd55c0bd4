// What a summary run reports: progress events while it runs, and per session what it did and changed.
import type { LlmFailure } from "../../llm/llm-errors.ts";
import type { SummaryChanges } from "./summary-diff.ts";

export type SessionOutcome =
  /** Every chunk summarized. */
  | "ok"
  /** Some chunks saved, then one failed: the next run resumes after the last saved one. */
  | "partial"
  /** The first chunk (or the whole run) failed: nothing changed. */
  | "failed"
  /** The AbortSignal fired: summary.json is as the last saved chunk left it. */
  | "aborted"
  /** A summary with no cursor: the cursor was set to the latest message, no LLM call. */
  | "bootstrap"
  /** Nothing new since the cursor. */
  | "up-to-date"
  /** Only user messages with no reply yet are new: they wait for their answer. */
  | "waiting"
  /** Every new exchange was noise: the pruned summary and the cursor were saved, no summary call. */
  | "pruned"
  /** Another process is summarizing this session right now. */
  | "busy"
  /** Not run: an earlier session hit an error no retry can fix, or the run was aborted. */
  | "skipped";

export interface SessionReport {
  session: string;
  outcome: SessionOutcome;
  /** New messages found after the cursor (summarized, dropped as noise or waiting). */
  messages: number;
  droppedAsNoise: number;
  waiting: number;
  chunksDone: number;
  chunksTotal: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The cursor after the run (local `YYYY-MM-DD HH:MM:SS`). */
  cursor?: string;
  error?: string;
  /** The LLM call that failed after its retries, when one did (its `fatal` stops a batch). */
  failure?: LlmFailure;
  notes: string[];
  changes?: SummaryChanges;
}

/** A session's report before any work: nothing found, nothing called. */
export function emptySessionReport(session: string, outcome: SessionOutcome, notes: string[] = []): SessionReport {
  return {
    session,
    outcome,
    messages: 0,
    droppedAsNoise: 0,
    waiting: 0,
    chunksDone: 0,
    chunksTotal: 0,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    notes,
  };
}

export interface SummarizeReport {
  sessions: SessionReport[];
}

export type SummaryProgress =
  | { type: "session"; session: string; messages: number; waiting: number }
  | { type: "pruned"; session: string; kept: number; dropped: number; removedDecisions: number; removedTopics: number }
  | { type: "chunk"; session: string; chunk: number; chunks: number; chars: number; messages: number }
  | { type: "chunk-done"; session: string; chunk: number; chunks: number; inputTokens: number; outputTokens: number }
  | { type: "chunk-failed"; session: string; chunk: number; chunks: number; error: string }
  | { type: "done"; report: SessionReport };

export interface SummarizeOptions {
  signal?: AbortSignal;
  onProgress?: (event: SummaryProgress) => void;
  /** Notices from the LLM layer (a deprecated model id); the caller decides where they go. */
  onWarning?: (line: string) => void;
}
