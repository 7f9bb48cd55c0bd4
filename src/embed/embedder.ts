// The Embedder port: text in, unit-length Float32Array vectors out, one per input, in order.
import { namedError } from "../shared/errors.ts";
import { serverWaitTail } from "../shared/retry-after.ts";

/** "document" for stored text, "query" for search text; providers that ignore it embed both alike. */
export type EmbedPurpose = "document" | "query";

export interface Embedder {
  /** provider:model-or-version:dimension, e.g. `builtin:v1:384`. Vectors of two ids are never compared. */
  readonly id: string;
  readonly dim: number;
  /** true when embedding is cheap and offline (no network, no key). */
  readonly local: boolean;
  embed(texts: string[], signal?: AbortSignal, purpose?: EmbedPurpose): Promise<Float32Array[]>;
  /**
   * When `query` embeds into one part of this embedder's vectors only, the factor that turns a text's cosine to it
   * into their cosine over that part (a text's vector spreads over every part); undefined for a whole-vector query.
   */
  partScale?(query: string): ((text: string) => number) | undefined;
}

/** The embedder is misconfigured (missing key, bad base_url): the user must fix the setup. */
export const EmbedderConfigError = namedError<
  | { problem: "not-a-url"; baseUrl: string; example: string }
  | { problem: "not-http"; baseUrl: string }
  | { problem: "missing-key"; provider: string; keyVar: string }
  /** The server answered 401/403 to a request sent without a key (none was set, or the provider sends none). */
  | { problem: "key-wanted"; provider: string; label: string; status: number; keyVar?: string }
>("EmbedderConfigError", "input", (d) => {
  if (d.problem === "missing-key")
    return `embedder "${d.provider}" needs an API key: set ${d.keyVar} in the environment`;
  if (d.problem === "key-wanted")
    return d.keyVar
      ? `${d.label} wants an API key (${d.status}) and none is set: set ${d.keyVar} in the environment`
      : `${d.label} wants an API key (${d.status}), which the ${d.provider} provider never sends: use provider = "openai" with OPENAI_API_KEY`;
  const base = `[embedder] base_url ${JSON.stringify(d.baseUrl)}`;
  return d.problem === "not-a-url"
    ? `${base} is not a URL (e.g. ${d.example})`
    : `${base} must start with http:// or https://`;
});
export type EmbedderConfigError = InstanceType<typeof EmbedderConfigError>;

/** Which server a request went to: `label` names it for people ("openai embeddings (URL)"), `url` is the endpoint. */
interface EmbedRequestFacts {
  label: string;
  url: string;
}

/** ": excerpt" of the server's answer (secrets blanked), or nothing. */
function detailText(detail: string | undefined): string {
  return detail ? `: ${detail}` : "";
}

/** The embedding server could not be reached, timed out or kept failing. */
export const EmbedderUnavailableError = namedError<
  EmbedRequestFacts &
    (
      | { problem: "timeout"; timeoutMs: number }
      | { problem: "unreachable"; reason: string }
      | { problem: "kept-failing"; status: number; attempts: number; detail?: string }
      /** A retry-after (serverWaitMs) over retryMaxMs, the longest wait between attempts: not retried now. */
      | {
          problem: "wait-too-long";
          status: number;
          attempts: number;
          detail?: string;
          serverWaitMs: number;
          retryMaxMs: number;
        }
      /** The connection was closed before an answer (or, `midAnswer`, before its end), on every attempt. */
      | { problem: "dropped"; attempts: number; midAnswer?: boolean }
    )
>("EmbedderUnavailableError", "runtime", (d) => {
  switch (d.problem) {
    case "timeout":
      return `${d.label} timed out after ${d.timeoutMs} ms`;
    case "unreachable":
      return `cannot reach ${d.label}: ${d.reason}`;
    case "kept-failing": {
      const what = d.status === 429 ? "kept rate-limiting (429)" : `kept failing (${d.status})`;
      return `${d.label} ${what} after ${d.attempts} attempts${detailText(d.detail)}`;
    }
    case "wait-too-long": {
      const what = d.status === 429 ? "rate-limited the request (429)" : `failed (${d.status})`;
      const after = d.attempts > 1 ? ` (after ${d.attempts} attempts)` : "";
      return `${d.label} ${what}${detailText(d.detail)}${serverWaitTail(d.serverWaitMs, d.retryMaxMs)}${after}`;
    }
    case "dropped":
      return `${d.label} closed the connection ${d.midAnswer ? "mid-answer" : "before answering"} (${d.attempts} attempt${d.attempts === 1 ? "" : "s"})`;
  }
});
export type EmbedderUnavailableError = InstanceType<typeof EmbedderUnavailableError>;

/** The server answered, but not with one finite vector of the right dimension per input. */
export const EmbedderResponseError = namedError<
  { label: string; url?: string } & (
    | { problem: "not-json"; detail?: string }
    /**
     * `zeros`: the answer is well formed but an input's vector is all zeros (a fault of that input, maybe).
     * `wrongCount`: it holds another number of vectors than inputs sent.
     */
    | { problem: "malformed"; why: string; zeros?: true; wrongCount?: true }
  )
>("EmbedderResponseError", "runtime", (d) =>
  d.problem === "not-json"
    ? `${d.label} answered with something that is not JSON${detailText(d.detail)}`
    : `${d.label} returned a malformed response: ${d.why}`,
);
export type EmbedderResponseError = InstanceType<typeof EmbedderResponseError>;

/** The server refused the request (4xx other than 429); 401 and 403 refuse the API key. */
export class EmbedderRejectedError extends namedError<EmbedRequestFacts & { status: number; detail?: string }>(
  "EmbedderRejectedError",
  "runtime",
  (d) =>
    `${d.label} ${d.status === 401 || d.status === 403 ? "rejected the API key" : "refused the request"} (${d.status})${detailText(d.detail)}`,
) {
  get status(): number {
    return this.data.status;
  }
}

export function embedderIdDim(id: string): number {
  const dim = Number(id.slice(id.lastIndexOf(":") + 1));
  return Number.isInteger(dim) ? dim : 0;
}

export function normalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s > 0) {
    const k = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i]! *= k;
  }
  return v;
}
