// The shapes of LLM access: a request, its reply, the usage report and the client settings.

export interface LlmMessage {
  role: "user" | "assistant";
  content: string;
}

export interface LlmRequest {
  model: string;
  system: string;
  messages: LlmMessage[];
  maxTokens: number;
  /** What the call is for (summary, noise, supersede, relevance): recorded with its token usage. */
  purpose: string;
  session?: string;
  signal?: AbortSignal;
  /** Timeout of one attempt in ms (default: the client's). */
  timeoutMs?: number;
  /** Budget in ms for the whole call, retries and back-off included. */
  deadlineMs?: number;
  /** Retries after the first attempt (default: the client's). */
  maxRetries?: number;
}

export interface LlmUsage {
  purpose: string;
  session?: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface LlmReply {
  text: string;
  model: string;
  stopReason: string | null;
  inputTokens: number;
  outputTokens: number;
  attempts: number;
}

export interface LlmSettings {
  apiKey: string;
  baseURL: string;
  timeoutMs: number;
  maxRetries: number;
  /** First back-off delay in ms; doubles per retry up to retryMaxMs (a retry-after header wins). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Called once per answered request (failed attempts bill nothing); awaited before the answer returns. */
  onUsage?: (usage: LlmUsage, req: LlmRequest) => unknown;
  /** One-line warnings from the SDK (deprecated model ids and the like); default: stderr. */
  onWarning?: (line: string) => void;
  /** Called (and awaited) before each request is sent; a throw stops it (the daily token budget). */
  beforeCall?: (req: LlmRequest) => void | Promise<void>;
}
