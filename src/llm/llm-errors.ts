// Errors of LLM access: a missing key (input, exit 2), a failed call, an unusable answer, an abort.
import { InputError, RuntimeFailure } from "../shared/errors.ts";

export class MissingApiKeyError extends InputError {
  constructor() {
    super("ANTHROPIC_API_KEY is not set: summaries need the Anthropic API (set it, and ANTHROPIC_BASE_URL for a proxy); nothing was changed");
  }
}

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

export class LlmCallError extends RuntimeFailure {
  constructor(
    message: string,
    readonly kind: LlmFailureKind,
    readonly status: number | undefined,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Retrying cannot help until the configuration changes (bad key, unknown model). */
  get fatal(): boolean {
    return this.kind === "auth" || this.status === 404;
  }

  get failure(): LlmFailure {
    const f: LlmFailure = { kind: this.kind, attempts: this.attempts, fatal: this.fatal, message: this.message };
    if (this.status !== undefined) f.status = this.status;
    return f;
  }
}

/** The model answered, but not with what was asked for (empty, no JSON, JSON of the wrong shape). */
export class LlmAnswerError extends RuntimeFailure {}

/** The caller's AbortSignal fired before the answer arrived. */
export class LlmAbortedError extends RuntimeFailure {}
