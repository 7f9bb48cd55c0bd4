// Errors of LLM access: a missing key (input, exit 2), a failed call, an unusable answer, an abort.
import { namedError } from "../shared/errors.ts";
import { serverWaitTail } from "../shared/retry-after.ts";

/** ANTHROPIC_API_KEY is absent: summaries cannot run. */
export class MissingApiKeyError extends namedError<{ variable: "ANTHROPIC_API_KEY" }>(
  "MissingApiKeyError",
  "input",
  (d) =>
    `${d.variable} is not set: summaries need the Anthropic API (set it, and ANTHROPIC_BASE_URL for a proxy); nothing was changed`,
) {
  constructor() {
    super({ variable: "ANTHROPIC_API_KEY" });
  }
}

/** ANTHROPIC_BASE_URL is set to something that is no http(s) URL: no call can reach the API. */
export const InvalidBaseUrlError = namedError<{ variable: "ANTHROPIC_BASE_URL"; value: string }>(
  "InvalidBaseUrlError",
  "input",
  (d) =>
    `${d.variable} ${JSON.stringify(d.value)} is not an http(s) URL (e.g. https://api.anthropic.com or http://127.0.0.1:8080); nothing was changed`,
);
export type InvalidBaseUrlError = InstanceType<typeof InvalidBaseUrlError>;

export type LlmFailureKind = "timeout" | "rate-limit" | "overloaded" | "server" | "connection" | "auth" | "request";

/** What a failed call tells its caller: the kind, the HTTP status, whether retrying later can help. */
export interface LlmFailure {
  kind: LlmFailureKind;
  status?: number;
  attempts: number;
  /** Retrying cannot help until the configuration changes (bad key, unknown model). */
  fatal: boolean;
  message: string;
}

/** The facts of a failed call: the request (purpose, model, URL without credentials), the kind and HTTP status. */
export interface LlmCallData {
  purpose: string;
  model: string;
  url: string;
  kind: LlmFailureKind;
  status?: number;
  attempts: number;
  /** Set when the overall deadline ran out: the call timed out after this many ms. */
  deadlineMs?: number;
  /** What went wrong on the last attempt ("HTTP 429 rate limited: …", "connection failed (…)"). */
  problem?: string;
  /** The failure was retryable but the deadline left no time for another attempt. */
  noTimeLeft?: boolean;
  /** The server asked to wait this long (retry-after), over retryMaxMs, the longest wait between attempts. */
  serverWaitMs?: number;
  retryMaxMs?: number;
}

function describeCall(d: LlmCallData): string {
  const what = `${d.purpose} call to ${d.model}`;
  if (d.deadlineMs !== undefined) return `${what} timed out after ${d.deadlineMs} ms`;
  const tail = d.noTimeLeft
    ? "; no time left to retry"
    : d.serverWaitMs !== undefined
      ? `${serverWaitTail(d.serverWaitMs, d.retryMaxMs ?? 0)}${d.attempts > 1 ? ` (after ${d.attempts} attempts)` : ""}`
      : d.attempts > 1
        ? ` (after ${d.attempts} attempts)`
        : "";
  return `${what} failed: ${d.problem ?? d.kind}${tail}`;
}

export class LlmCallError extends namedError<LlmCallData>("LlmCallError", "runtime", describeCall) {
  get kind(): LlmFailureKind {
    return this.data.kind;
  }

  get status(): number | undefined {
    return this.data.status;
  }

  get attempts(): number {
    return this.data.attempts;
  }

  /** Retrying cannot help until the configuration changes (bad key, unknown model). */
  get fatal(): boolean {
    return this.data.kind === "auth" || this.data.status === 404;
  }

  get failure(): LlmFailure {
    const f: LlmFailure = {
      kind: this.kind,
      attempts: this.attempts,
      fatal: this.fatal,
      message: describeCall(this.data),
    };
    if (this.status !== undefined) f.status = this.status;
    return f;
  }
}

const ANSWER_PROBLEMS = {
  empty: () => "was empty",
  // Its length only: the answer may quote the conversation, and logs never hold message content.
  "no-json": (d: { length?: number }) => `held no JSON (${d.length ?? 0} characters of text)`,
  "no-summary": (d: { detail?: string }) =>
    `held no valid summary (${d.detail ?? "it needs key_decisions, past_discussions and current_discussion"})`,
  shape: () => "did not have the expected shape",
  // Every entry of a non-empty previous summary dropped and nothing new given: a failed merge, not a summary.
  emptied: () => "was an empty summary, dropping every entry of the previous one: the previous summary is kept",
  // The model stopped at max_tokens: the JSON it was writing is incomplete (a retry gets no more room).
  truncated: (d: { maxTokens?: number }) =>
    `was cut off at its limit of ${d.maxTokens ?? "max"} output tokens (stop_reason max_tokens) before its JSON was complete`,
  refused: () => "was a refusal (stop_reason refusal): the model declined to answer",
  "not-api": () => "",
} as const;

/** The model answered, but not with what was asked for (empty, no JSON, JSON of the wrong shape). */
export const LlmAnswerError = namedError<{
  purpose: string;
  model?: string;
  problem: keyof typeof ANSWER_PROBLEMS;
  excerpt?: string;
  /** no-json: the answer's length in characters. */
  length?: number;
  /** truncated: the request's max_tokens. */
  maxTokens?: number;
  /** no-summary: what is wrong with an answer that has the summary's keys (paths and types only, never its text). */
  detail?: string;
  /** not-api: the base URL (credentials masked) and the HTTP status of an answer that is no Messages API answer. */
  server?: string;
  status?: number;
}>("LlmAnswerError", "runtime", (d) =>
  d.problem === "not-api"
    ? `the server at ${d.server} answered HTTP ${d.status} with ${d.excerpt}, not a Messages API answer: check ANTHROPIC_BASE_URL`
    : `${d.purpose} answer${d.model ? ` from ${d.model}` : ""} ${ANSWER_PROBLEMS[d.problem](d)}`,
);
export type LlmAnswerError = InstanceType<typeof LlmAnswerError>;

/** The answer stopped at max_tokens before what was asked for was complete. */
export function truncatedAnswer(req: { purpose: string; maxTokens: number }, reply: { model: string }): LlmAnswerError {
  return new LlmAnswerError({
    purpose: req.purpose,
    model: reply.model,
    problem: "truncated",
    maxTokens: req.maxTokens,
  });
}

/** The caller's AbortSignal fired before the answer arrived. */
export const LlmAbortedError = namedError<{ purpose: string; model: string }>(
  "LlmAbortedError",
  "runtime",
  (d) => `${d.purpose} call to ${d.model} was aborted`,
);
export type LlmAbortedError = InstanceType<typeof LlmAbortedError>;
