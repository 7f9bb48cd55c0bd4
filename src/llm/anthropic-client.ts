// The one gateway to the Anthropic Messages API: settings from the environment, the SDK loaded lazily,
// our own bounded retry (429, 529, 5xx, dropped connections) with back-off, per-attempt timeout and an
// overall deadline, token usage reported per answer, and JSON answers pulled out of the text.
import type { Config } from "../config/schema.ts";
import {
  InvalidBaseUrlError,
  LlmAbortedError,
  LlmAnswerError,
  LlmCallError,
  MissingApiKeyError,
  truncatedAnswer,
  type LlmCallData,
  type LlmFailureKind,
} from "./llm-errors.ts";
import type { LlmReply, LlmRequest, LlmSettings } from "./llm-types.ts";
import { jsonCandidates } from "./json-answer.ts";
import { backoffMs, retryAfterMs, sleep } from "./retry.ts";
import { quotesRequest } from "./quoted-request.ts";
import { redactSecrets, redactUrl } from "../shared/redact.ts";
import { lineText } from "../shared/terminal-text.ts";

type Sdk = typeof import("@anthropic-ai/sdk");
type SdkClient = InstanceType<Sdk["default"]>;

export const DEFAULT_BASE_URL = "https://api.anthropic.com";

/**
 * Settings from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL and the [summary] config. Throws MissingApiKeyError, or
 * InvalidBaseUrlError for a base URL that is no http(s) URL.
 */
export function llmSettings(
  env: Readonly<Record<string, string | undefined>>,
  config: Pick<Config["summary"], "timeout_ms" | "max_retries">,
  extra: Partial<Pick<LlmSettings, "onUsage" | "onWarning" | "beforeCall" | "retryBaseMs" | "retryMaxMs">> = {},
): LlmSettings {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (!apiKey) throw new MissingApiKeyError();
  const baseURL = env.ANTHROPIC_BASE_URL?.trim() || DEFAULT_BASE_URL;
  if (!isHttpUrl(baseURL))
    throw new InvalidBaseUrlError({ variable: "ANTHROPIC_BASE_URL", value: redactUrl(maskUserinfo(baseURL)) });
  return {
    apiKey,
    baseURL,
    timeoutMs: config.timeout_ms,
    maxRetries: config.max_retries,
    retryBaseMs: 500,
    retryMaxMs: 20_000,
    ...extra,
  };
}

// The SDK's own table of deprecated model ids (it is not exported; its messages.create would print the notice
// on the console, so the request is posted directly and the notice goes to onWarning instead).
async function loadDeprecatedModels(): Promise<Readonly<Record<string, string>>> {
  try {
    return (
      (await import("../../node_modules/@anthropic-ai/sdk/internal/data/deprecated-models.mjs")).DEPRECATED_MODELS ?? {}
    );
  } catch {
    return {};
  }
}

export interface JsonReply {
  reply: LlmReply;
  /** Every JSON value found in the answer, most specific first. */
  candidates: unknown[];
}

export class LlmClient {
  #sdk?: Promise<{ sdk: Sdk; client: SdkClient; deprecated: Readonly<Record<string, string>> }>;
  readonly #warnedModels = new Set<string>();

  constructor(readonly settings: LlmSettings) {}

  #load(): Promise<{ sdk: Sdk; client: SdkClient; deprecated: Readonly<Record<string, string>> }> {
    this.#sdk ??= Promise.all([import("@anthropic-ai/sdk"), loadDeprecatedModels()]).then(([sdk, deprecated]) => {
      const warn = (message: string, ...rest: unknown[]) => this.#warn([message, ...rest].map(String).join(" "));
      const client = new sdk.default({
        apiKey: this.settings.apiKey,
        baseURL: this.settings.baseURL,
        maxRetries: 0,
        timeout: this.settings.timeoutMs,
        openTelemetry: false,
        logLevel: "warn",
        logger: { error: warn, warn, info: () => {}, debug: () => {} },
      });
      return { sdk, client, deprecated };
    });
    return this.#sdk;
  }

  #warn(text: string): void {
    this.settings.onWarning?.(text.replace(/\s*\n\s*/g, " ").trim());
  }

  /** One completion, retried on 429, 529, 5xx and dropped connections within the budget. */
  async complete(req: LlmRequest): Promise<LlmReply> {
    await this.settings.beforeCall?.(req);
    const started = performance.now();
    const deadline = req.deadlineMs !== undefined ? started + req.deadlineMs : Infinity;
    const deadlineSignal = req.deadlineMs !== undefined ? AbortSignal.timeout(req.deadlineMs) : undefined;
    const signal = anySignal(req.signal, deadlineSignal);
    const { sdk, client, deprecated } = await this.#load();
    this.#warnIfDeprecated(req.model, deprecated);
    const maxRetries = req.maxRetries ?? this.settings.maxRetries;
    const call = { purpose: req.purpose, model: req.model, url: messagesUrl(this.settings.baseURL) };
    for (let attempt = 1; ; attempt++) {
      if (req.signal?.aborted) throw new LlmAbortedError(call, { cause: req.signal.reason });
      const left = deadline - performance.now();
      if (left <= 0)
        throw new LlmCallError({ ...call, kind: "timeout", attempts: attempt - 1, deadlineMs: req.deadlineMs });
      const timeout = Math.max(1, Math.floor(Math.min(req.timeoutMs ?? this.settings.timeoutMs, left)));
      // The SDK's timeout ends once the headers arrive: this one also bounds reading the answer's body.
      const attemptTimeout = AbortSignal.timeout(timeout);
      try {
        const response = await this.#create(client, req, {
          timeout,
          signal: anySignal(signal, attemptTimeout),
          maxRetries: 0,
        }).asResponse();
        const message = readAnswer(this.settings.baseURL, response, await response.text());
        const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
        const reply: LlmReply = {
          text,
          model: message.model || req.model,
          stopReason: message.stop_reason ?? null,
          inputTokens: message.usage?.input_tokens ?? 0,
          outputTokens: message.usage?.output_tokens ?? 0,
          attempts: attempt,
        };
        await this.settings.onUsage?.(
          {
            purpose: req.purpose,
            session: req.session,
            model: reply.model,
            inputTokens: reply.inputTokens,
            outputTokens: reply.outputTokens,
          },
          req,
        );
        return reply;
      } catch (err) {
        if (err instanceof LlmAnswerError) throw err;
        if (req.signal?.aborted) throw new LlmAbortedError(call, { cause: err });
        if (deadlineSignal?.aborted)
          throw new LlmCallError(
            { ...call, kind: "timeout", attempts: attempt, deadlineMs: req.deadlineMs },
            { cause: err },
          );
        const f: Failure = attemptTimeout.aborted
          ? { kind: "timeout", retryable: false, text: `no answer within ${timeout} ms` }
          : classify(sdk, err, timeout, req);
        if (!f.retryable || attempt > maxRetries) {
          throw new LlmCallError(callFailure(call, f, attempt), { cause: err });
        }
        const asked = retryAfterMs(f.headers);
        // A wait longer than memvoy ever waits between attempts (an hour's rate limit): retrying sooner only
        // fails again, so the call fails now and the next run (the daemon's next tick) tries again.
        if (asked !== undefined && asked > this.settings.retryMaxMs)
          throw new LlmCallError(
            { ...callFailure(call, f, attempt), serverWaitMs: asked, retryMaxMs: this.settings.retryMaxMs },
            { cause: err },
          );
        const wait = backoffMs(attempt - 1, this.settings.retryBaseMs, this.settings.retryMaxMs, asked);
        if (performance.now() + wait >= deadline) {
          throw new LlmCallError({ ...callFailure(call, f, attempt), noTimeLeft: true }, { cause: err });
        }
        if (!(await sleep(wait, req.signal))) throw new LlmAbortedError(call, { cause: req.signal?.reason });
      }
    }
  }

  /** A completion whose answer must hold JSON (inside <tag>…</tag> when a tag is given). */
  async completeJson(req: LlmRequest, tag?: string): Promise<JsonReply> {
    const reply = await this.complete(req);
    if (reply.stopReason === "refusal")
      throw new LlmAnswerError({ purpose: req.purpose, model: reply.model, problem: "refused" });
    const candidates = reply.text.trim() === "" ? [] : jsonCandidates(reply.text, tag);
    if (candidates.length === 0) {
      if (reply.stopReason === "max_tokens") throw truncatedAnswer(req, reply);
      if (reply.text.trim() === "")
        throw new LlmAnswerError({ purpose: req.purpose, model: reply.model, problem: "empty" });
      throw new LlmAnswerError({
        purpose: req.purpose,
        model: reply.model,
        problem: "no-json",
        length: reply.text.length,
      });
    }
    return { reply, candidates };
  }

  #warnIfDeprecated(model: string, deprecated: Readonly<Record<string, string>>): void {
    const endOfLife = deprecated[model];
    if (!endOfLife || this.#warnedModels.has(model)) return;
    this.#warnedModels.add(model);
    this.#warn(
      `The model '${model}' is deprecated and will reach end-of-life on ${endOfLife}. Please migrate to a newer model.`,
    );
  }

  // messages.create without its console notice (see loadDeprecatedModels): the same request, posted directly.
  #create(client: SdkClient, req: LlmRequest, options: { timeout: number; signal?: AbortSignal; maxRetries: number }) {
    const body = { model: req.model, max_tokens: req.maxTokens, system: req.system, messages: req.messages };
    return client.post("/v1/messages", { body, ...options });
  }
}

interface Failure {
  kind: LlmFailureKind;
  status?: number;
  retryable: boolean;
  text: string;
  headers?: Headers;
  /** The API's not_found_error names the model (`model: claude-x`): the model id is unknown, not the URL. */
  unknownModel?: boolean;
}

function classify(sdk: Sdk, err: unknown, timeoutMs: number, req: LlmRequest): Failure {
  if (err instanceof sdk.APIConnectionTimeoutError)
    return { kind: "timeout", retryable: false, text: `no answer within ${timeoutMs} ms` };
  if (err instanceof sdk.APIConnectionError)
    return { kind: "connection", retryable: true, text: `connection failed (${errorText(err)})` };
  if (err instanceof sdk.APIError && typeof err.status === "number") {
    const s = err.status;
    const detail = !err.apiMessage
      ? ""
      : quotesRequest(err.apiMessage, req)
        ? ": (the server's message quoted the request, so it is left out)"
        : // The server's words go to terminals and the daemon log: as one line of text, no escape sequence.
          `: ${lineText(err.apiMessage)}`;
    const base = { status: s, headers: err.headers instanceof Headers ? err.headers : undefined };
    if (s === 429) return { ...base, kind: "rate-limit", retryable: true, text: `HTTP 429 rate limited${detail}` };
    if (s === 529) return { ...base, kind: "overloaded", retryable: true, text: `HTTP 529 overloaded${detail}` };
    if (s >= 500) return { ...base, kind: "server", retryable: true, text: `HTTP ${s} server error${detail}` };
    // The body of an auth failure may echo the key: it is never kept.
    if (s === 401 || s === 403)
      return { ...base, kind: "auth", retryable: false, text: `HTTP ${s}: the API key was refused` };
    const unknownModel = s === 404 && /^model:/i.test(err.apiMessage ?? "");
    return { ...base, kind: "request", retryable: false, text: `HTTP ${s}${detail}`, unknownModel };
  }
  // A connection dropped mid-answer surfaces from the body read, outside the SDK's own error classes (or as
  // JSON that ends early).
  if (
    DROPPED.has(String((err as { code?: unknown })?.code)) ||
    /socket connection was closed|connection reset/i.test(errorText(err)) ||
    err instanceof SyntaxError
  ) {
    return { kind: "connection", retryable: true, text: `connection dropped (${errorText(err)})` };
  }
  return { kind: "connection", retryable: false, text: errorText(err) };
}

function callFailure(call: Pick<LlmCallData, "purpose" | "model" | "url">, f: Failure, attempts: number): LlmCallData {
  // A 404 is an unknown model or a wrong ANTHROPIC_BASE_URL (one ending in /v1): the URL tells which.
  const doubled = f.status === 404 && call.url.endsWith("/v1/v1/messages");
  const hint = doubled
    ? ": ANTHROPIC_BASE_URL ends in /v1, which memvoy adds itself; set it without the /v1"
    : f.status === 404 && f.unknownModel
      ? `: no model ${JSON.stringify(call.model)} there; check ${call.purpose === "summary" ? "summary.model" : "decision_model"}`
      : "";
  // A server that cannot be reached is named: the key's ANTHROPIC_BASE_URL may come from a unit file or a gateway.
  const problem =
    f.status === 404
      ? `${f.text} (from ${call.url}${hint})`
      : f.kind === "connection"
        ? `${f.text} (to ${call.url})`
        : f.text;
  const d: LlmCallData = { ...call, kind: f.kind, attempts, problem };
  if (f.status !== undefined) d.status = f.status;
  return d;
}

/** `user:password@` before a host is masked, even in text that does not parse as a URL. */
function maskUserinfo(text: string): string {
  return text.replace(/^((?:[A-Za-z][\w+.-]*:)?\/\/)?[^@/\s]*@/, "$1***@");
}

function isHttpUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The Messages endpoint, without any credentials a base URL might carry. */
function messagesUrl(baseURL: string): string {
  try {
    const u = new URL(baseURL.replace(/\/+$/, "") + "/v1/messages");
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString();
  } catch {
    return "(invalid ANTHROPIC_BASE_URL)";
  }
}

const DROPPED = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ECONNREFUSED", "ETIMEDOUT", "UND_ERR_SOCKET"]);

type Answer = {
  content: { type: string; text?: string }[];
  model?: string;
  stop_reason?: string | null;
  usage?: { input_tokens?: number; output_tokens?: number };
};

function asMessage(m: unknown): Answer | undefined {
  return typeof m === "object" && m !== null && Array.isArray((m as { content?: unknown }).content)
    ? (m as Answer)
    : undefined;
}

/**
 * A success answer's body as a Messages API answer. A body that is no JSON (a proxy's page, "Bad Gateway"), or JSON
 * of another shape, is no API answering: an LlmAnswerError naming its content type and first characters, never
 * retried. JSON that breaks off (a connection closed mid-answer) throws its SyntaxError: a dropped connection.
 */
function readAnswer(baseURL: string, response: Response, body: string): Answer {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim() || "no content type";
  if (!/\bjson\b|\+json$/i.test(type)) throw notAnAnswer(baseURL, response, described(type, body, ""));
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    // An answer opens an object: one that does not parse was cut off on the way.
    if (body.trimStart().startsWith("{")) throw err;
    throw notAnAnswer(baseURL, response, described(type, body, " that is not JSON,"));
  }
  const message = asMessage(value);
  if (message === undefined)
    throw notAnAnswer(baseURL, response, typeof value === "string" ? `${type}, ${excerpt(value)}` : type);
  return message;
}

/** `an empty text/html body`, `a text/html body starting "<html>…"` (redacted, cut). */
function described(type: string, body: string, what: string): string {
  if (body.trim() === "") return `an empty ${type} body`;
  return `${/^[aeiou]/i.test(type) ? "an" : "a"} ${type} body${what} starting ${excerpt(body)}`;
}

/** A 200 answer that is no Messages API answer: a login page, a proxy's HTML, the wrong path. */
function notAnAnswer(baseURL: string, response: Response, got: string): LlmAnswerError {
  return new LlmAnswerError({
    purpose: "request",
    problem: "not-api",
    server: redactUrl(baseURL),
    status: response.status,
    excerpt: got,
  });
}

function errorText(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return (e?.cause?.message ?? e?.message ?? String(err)).split("\n")[0]!;
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const list = signals.filter((s): s is AbortSignal => s !== undefined);
  if (list.length === 0) return undefined;
  return list.length === 1 ? list[0] : AbortSignal.any(list);
}

function excerpt(text: string): string {
  const t = redactSecrets(text.replace(/\s+/g, " ").trim()).text;
  return JSON.stringify(t.length > 80 ? t.slice(0, 80) + "…" : t);
}
