// The Embedder port: text in, unit-length Float32Array vectors out, one per input, in order.
import { InputError, RuntimeFailure } from "../shared/errors.ts";

/** "document" for stored text, "query" for search text; providers that ignore it embed both alike. */
export type EmbedPurpose = "document" | "query";

export interface Embedder {
  /** provider:model-or-version:dimension, e.g. `builtin:v1:384`. Vectors of two ids are never compared. */
  readonly id: string;
  readonly dim: number;
  /** true when embedding is cheap and offline (no network, no key). */
  readonly local: boolean;
  embed(texts: string[], signal?: AbortSignal, purpose?: EmbedPurpose): Promise<Float32Array[]>;
}

/** The embedder is misconfigured (missing key, bad base_url): the user must fix the setup. */
export class EmbedderConfigError extends InputError {}

/** The embedding server could not be reached, timed out or kept failing. */
export class EmbedderUnavailableError extends RuntimeFailure {}

/** The server answered, but not with one finite vector of the right dimension per input. */
export class EmbedderResponseError extends RuntimeFailure {}

/** The server refused the request (4xx other than 429). */
export class EmbedderRejectedError extends RuntimeFailure {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
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
