// HTTP embedders: OpenAI-compatible /v1/embeddings (OpenAI, Ollama, LM Studio, vLLM) and Voyage AI.
import { redactUrl } from "../../shared/redact.ts";
import {
  EmbedderConfigError,
  EmbedderRejectedError,
  EmbedderResponseError,
  normalizeInPlace,
  type EmbedPurpose,
  type Embedder,
} from "../embedder.ts";
import { detail, postJson, type RetryPolicy } from "./post-json.ts";

export type WireFormat = "openai" | "voyage";

/**
 * Inputs are cut to this many bytes of UTF-8: a byte-level tokenizer (OpenAI's) makes at most one token of each
 * byte, so this stays under every common model's 8k-token input limit in any script (8,000 Chinese characters
 * are about 10,000 tokens).
 */
const MAX_INPUT_BYTES = 8_000;
/**
 * A text the server refuses as bad input is sent again cut to half as many bytes, down to this: models with a
 * shorter input limit (512 tokens is common: bge, e5, MiniLM) refuse a long message at 8,000 bytes.
 */
const MIN_INPUT_BYTES = 500;
const cutBuffer = new Uint8Array(MAX_INPUT_BYTES);

/** The start of `t` within `maxBytes` of UTF-8, cut between two characters. */
function inputStart(t: string, maxBytes = MAX_INPUT_BYTES): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8.
  if (t.length * 3 <= maxBytes) return t;
  const { read } = new TextEncoder().encodeInto(t, cutBuffer.subarray(0, maxBytes));
  return read < t.length ? t.slice(0, read) : t;
}

/** A refusal that may be about the input itself (too long for the model) rather than the request. */
function inputRefused(err: unknown): boolean {
  return err instanceof EmbedderRejectedError && [400, 413, 422].includes(err.status);
}

export interface HttpEmbedderOptions {
  provider: string;
  wire: WireFormat;
  url: string;
  model: string;
  /** Expected dimension; 0 = learn it from the first response. */
  dim: number;
  /** Ask the server for `dim` dimensions (OpenAI `dimensions`, Voyage `output_dimension`). */
  requestDim: boolean;
  apiKey?: string;
  /** Where the key is read from (OPENAI_API_KEY, VOYAGE_API_KEY); none for a provider that sends no key. */
  keyVar?: string;
  batchSize: number;
  retry: RetryPolicy;
  fetch?: typeof fetch;
}

export class HttpEmbedder implements Embedder {
  readonly local = false;
  #dim: number;
  /** The server answered a batch with another number of vectors: it is sent one text per request from then on. */
  #oneByOne = false;

  constructor(private readonly o: HttpEmbedderOptions) {
    this.#dim = o.dim;
  }

  get dim(): number {
    return this.#dim;
  }

  get id(): string {
    return `${this.o.provider}:${this.o.model}:${this.#dim}`;
  }

  async embed(texts: string[], signal?: AbortSignal, purpose?: EmbedPurpose): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.o.batchSize) {
      const batch = texts.slice(i, i + this.o.batchSize);
      out.push(...(await this.#requestBatch(batch, signal, purpose)));
    }
    return out;
  }

  /**
   * Some OpenAI-compatible servers embed one text per request: given several, they answer with one vector (the
   * first text's, or that of the texts joined). Such an answer is dropped and the texts are sent one at a time.
   */
  async #requestBatch(batch: string[], signal?: AbortSignal, purpose?: EmbedPurpose): Promise<Float32Array[]> {
    if (batch.length > 1 && !this.#oneByOne) {
      try {
        return await this.#requestCut(batch, signal, purpose);
      } catch (err) {
        if (!(err instanceof EmbedderResponseError && err.data.problem === "malformed" && err.data.wrongCount))
          throw err;
        this.#oneByOne = true;
      }
    }
    const out: Float32Array[] = [];
    for (const text of batch) out.push(...(await this.#requestCut([text], signal, purpose)));
    return out;
  }

  /** One text refused as bad input is sent again with a shorter beginning (MIN_INPUT_BYTES), then given up. */
  async #requestCut(batch: string[], signal?: AbortSignal, purpose?: EmbedPurpose): Promise<Float32Array[]> {
    for (let maxBytes = MAX_INPUT_BYTES; ; maxBytes = Math.floor(maxBytes / 2)) {
      try {
        return await this.#request(batch, signal, purpose, maxBytes);
      } catch (err) {
        const shorter = Math.floor(maxBytes / 2);
        const cutsMore = batch.length === 1 && Buffer.byteLength(batch[0]!, "utf8") > shorter;
        if (!inputRefused(err) || !cutsMore || shorter < MIN_INPUT_BYTES) throw err;
      }
    }
  }

  async #request(
    batch: string[],
    signal: AbortSignal | undefined,
    purpose: EmbedPurpose | undefined,
    maxBytes: number,
  ): Promise<Float32Array[]> {
    // Empty strings are rejected by OpenAI; one space embeds as "nothing". Long texts are cut (inputStart):
    // the vector describes their beginning.
    const input = batch.map((t) => (t.trim() === "" ? " " : inputStart(t, maxBytes)));
    const body: Record<string, unknown> = { model: this.o.model, input };
    if (this.o.wire === "openai") {
      body.encoding_format = "float";
      if (this.o.requestDim && this.o.dim > 0) body.dimensions = this.o.dim;
    } else {
      if (purpose) body.input_type = purpose;
      if (this.o.requestDim && this.o.dim > 0) body.output_dimension = this.o.dim;
    }
    const headers: Record<string, string> = {};
    if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`;
    const label = `${this.o.provider} embeddings (${redactUrl(this.o.url)})`;
    // A search waits for its query's vector timeout_ms in all, retries included: with a rate-limited server (429
    // with a long Retry-After) it gives its keyword results by then rather than after minutes.
    const retry =
      purpose === "query" ? { ...this.o.retry, deadline: performance.now() + this.o.retry.timeoutMs } : this.o.retry;
    const json = await postJson(
      { url: this.o.url, headers, body, label, secret: this.o.apiKey, signal, fetch: this.o.fetch },
      retry,
    ).catch((err: unknown) => {
      if (this.o.apiKey || !(err instanceof EmbedderRejectedError) || ![401, 403].includes(err.status)) throw err;
      throw new EmbedderConfigError(
        { problem: "key-wanted", provider: this.o.provider, label, status: err.status, keyVar: this.o.keyVar },
        { cause: err },
      );
    });
    const vectors = parseEmbeddings(
      json,
      batch.length,
      this.#dim,
      label,
      () => detail(JSON.stringify(json), this.o.apiKey).detail,
    );
    if (this.#dim === 0) this.#dim = vectors[0]!.length;
    return vectors;
  }
}

/**
 * Checks the response shape strictly: one finite vector per input, each of the same (expected) dimension. `said`:
 * an excerpt of the answer (its error message, when it has one), named when the answer holds no vectors at all.
 */
export function parseEmbeddings(
  json: unknown,
  count: number,
  dim: number,
  label: string,
  said?: () => string | undefined,
): Float32Array[] {
  const bad = (why: string) => new EmbedderResponseError({ label, problem: "malformed", why });
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    // A server (or a gateway before it) that answers 200 with an error: its words say what is wrong.
    const excerpt = said?.();
    throw bad(`no \`data\` array${excerpt ? ` (it answered: ${excerpt})` : ""}`);
  }
  if (data.length !== count)
    throw new EmbedderResponseError({
      label,
      problem: "malformed",
      why: `${data.length} embeddings for ${count} inputs`,
      wrongCount: true,
    });
  const out: (Float32Array | undefined)[] = new Array(count);
  let want = dim;
  data.forEach((item: unknown, pos) => {
    const { index = pos, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count || out[index]) {
      throw bad(`bad or repeated index ${JSON.stringify(index)}`);
    }
    if (!Array.isArray(embedding) || embedding.length === 0) throw bad(`item ${index} has no embedding array`);
    if (want === 0) want = embedding.length;
    if (embedding.length !== want) {
      throw bad(
        `a ${embedding.length}-dimensional vector where ${want} was expected (set [embedder] dimensions to match the model)`,
      );
    }
    const v = new Float32Array(want);
    let nonZero = false;
    for (let d = 0; d < want; d++) {
      const x = embedding[d];
      if (typeof x !== "number" || !Number.isFinite(x))
        throw bad(`item ${index} holds a non-number (${JSON.stringify(x)})`);
      v[d] = x;
      if (!Number.isFinite(v[d]!)) throw bad(`item ${index} holds ${x}, out of float32 range`);
      nonZero ||= v[d] !== 0;
    }
    // A vector of zeros has no direction: it is close to nothing, so its message would never be found.
    if (!nonZero)
      throw new EmbedderResponseError({
        label,
        problem: "malformed",
        why: `item ${index} is a vector of zeros`,
        zeros: true,
      });
    out[index] = normalizeInPlace(v);
  });
  return out as Float32Array[];
}
