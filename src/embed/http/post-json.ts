// POST a JSON body with a timeout, retrying 429, 5xx and a connection closed before the answer with bounded
// exponential backoff (Retry-After wins, up to maxDelayMs: a longer one fails the call at once).
import { redactSecrets } from "../../shared/redact.ts";
import { lineText } from "../../shared/terminal-text.ts";
import { retryAfterMs } from "../../shared/retry-after.ts";
import { EmbedderRejectedError, EmbedderResponseError, EmbedderUnavailableError } from "../embedder.ts";

export interface RetryPolicy {
  timeoutMs: number;
  maxRetries: number;
  /** First backoff; doubles per attempt up to maxDelayMs, with jitter in [50%, 100%]; also the longest Retry-After taken. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A performance.now() time past which no attempt runs and no retry waits: the whole call fails by then. */
  deadline?: number;
}

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** What to call the server in errors, e.g. "openai embeddings (https://api.openai.com/v1/embeddings)". */
  label: string;
  /** A secret to blank out of any error text taken from a response. */
  secret?: string;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export async function postJson(req: PostRequest, policy: RetryPolicy): Promise<unknown> {
  const doFetch = req.fetch ?? fetch;
  const body = JSON.stringify(req.body);
  const server = { label: req.label, url: req.url };
  /** Wait before trying a dropped connection again, or fail the call when no retry is left (or time for one). */
  const retryDropped = async (attempt: number, midAnswer: boolean, cause?: unknown) => {
    const delay = backoffDelay(attempt, policy);
    if (attempt >= policy.maxRetries || performance.now() + delay >= (policy.deadline ?? Number.POSITIVE_INFINITY))
      throw new EmbedderUnavailableError(
        { ...server, problem: "dropped", attempts: attempt + 1, midAnswer },
        { cause },
      );
    await sleep(delay, req.signal);
  };
  for (let attempt = 0; ; attempt++) {
    req.signal?.throwIfAborted();
    const left = policy.deadline === undefined ? policy.timeoutMs : policy.deadline - performance.now();
    const timeout = AbortSignal.timeout(Math.max(1, Math.min(policy.timeoutMs, Math.floor(left))));
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await doFetch(req.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...req.headers },
        body,
        signal,
      });
    } catch (err) {
      req.signal?.throwIfAborted();
      if (timeout.aborted)
        throw new EmbedderUnavailableError({ ...server, problem: "timeout", timeoutMs: policy.timeoutMs });
      if (!droppedConnection(err))
        throw new EmbedderUnavailableError(
          { ...server, problem: "unreachable", reason: describeNetworkError(err) },
          { cause: err },
        );
      // A connection closed before the answer (a keep-alive socket the server had just closed, a proxy restarting)
      // is tried again as a 5xx is: one such glitch must not stop a drain or a reindex of thousands of messages.
      await retryDropped(attempt, false, err);
      continue;
    }
    if (res.status === 429 || res.status >= 500) {
      const text = (await bodyText(res, timeout, server, policy, req.signal)) ?? "";
      const failure = { ...server, status: res.status, attempts: attempt + 1, ...detail(text, req.secret) };
      if (attempt >= policy.maxRetries) throw new EmbedderUnavailableError({ ...failure, problem: "kept-failing" });
      const asked = retryAfterMs(res.headers);
      // A wait longer than memvoy ever waits between attempts (an hour's rate limit): retrying sooner only fails
      // again, so the call fails now and the queue's back-off (the daemon's next tick) tries again.
      if (asked !== undefined && asked > policy.maxDelayMs)
        throw new EmbedderUnavailableError({
          ...failure,
          problem: "wait-too-long",
          serverWaitMs: asked,
          retryMaxMs: policy.maxDelayMs,
        });
      const delay = asked ?? backoffDelay(attempt, policy);
      if (performance.now() + delay >= (policy.deadline ?? Number.POSITIVE_INFINITY))
        throw new EmbedderUnavailableError({ ...failure, problem: "kept-failing" });
      await sleep(delay, req.signal);
      continue;
    }
    const text = await bodyText(res, timeout, server, policy, req.signal);
    // Closed mid-answer: what came is no answer, and the request is tried again as when closed before it.
    if (text === undefined) {
      await retryDropped(attempt, true);
      continue;
    }
    // The body of an auth failure may echo the key: it is never kept.
    if (res.status === 401 || res.status === 403) throw new EmbedderRejectedError({ ...server, status: res.status });
    if (!res.ok) throw new EmbedderRejectedError({ ...server, status: res.status, ...detail(text, req.secret) });
    try {
      return JSON.parse(text);
    } catch {
      throw new EmbedderResponseError({ ...server, problem: "not-json", ...detail(text, req.secret) });
    }
  }
}

function backoffDelay(attempt: number, p: RetryPolicy): number {
  const ceiling = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** attempt);
  return ceiling * (0.5 + Math.random() / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (ms <= 0) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The answer's body; undefined when the connection closed before its end. The request's timeout running out while
 * it is read fails the call as a timeout; the caller's own abort, as an abort.
 */
async function bodyText(
  res: Response,
  timeout: AbortSignal,
  server: { label: string; url: string },
  policy: RetryPolicy,
  outer?: AbortSignal,
): Promise<string | undefined> {
  try {
    return await res.text();
  } catch (err) {
    outer?.throwIfAborted();
    if (timeout.aborted)
      throw new EmbedderUnavailableError(
        { ...server, problem: "timeout", timeoutMs: policy.timeoutMs },
        { cause: err },
      );
    return undefined;
  }
}

/** A short, single-line excerpt of a server's answer, preferring its error message, as `{ detail }` when there is one. */
export function detail(text: string, secret?: string): { detail?: string } {
  let msg = text;
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const m = typeof j.error === "string" ? j.error : (j.error?.message ?? j.detail ?? j.message);
    if (typeof m === "string") msg = m;
  } catch {
    // not JSON: show the raw text
  }
  // The server's words go to terminals and the daemon log: one line of text, no escape sequence.
  msg = lineText(redactSecrets(msg, secret ? [secret] : []).text)
    .replace(/\s+/g, " ")
    .trim();
  if (!msg) return {};
  return { detail: msg.length > 200 ? msg.slice(0, 200) + "…" : msg };
}

function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === "ConnectionRefused" || e.code === "ECONNREFUSED") return "connection refused (is the server running?)";
  if (e.code === "ENOTFOUND" || /getaddrinfo|DNS/i.test(e.message ?? "")) return "host not found";
  // Bun's advice to its own callers ("For more information, pass `verbose: true` ...") is no help to a user.
  return (e.message ?? String(err)).split("\n")[0]!.replace(/\s*For more information, pass `verbose: true`.*$/, "");
}

const DROPPED_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET"]);

/** The server (or a proxy before it) closed the connection before answering: it was reached, and may answer again. */
function droppedConnection(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    DROPPED_CODES.has(String(e?.code)) || /socket connection was closed|connection reset/i.test(String(e?.message))
  );
}
