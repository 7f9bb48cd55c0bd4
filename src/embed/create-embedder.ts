// Builds the configured Embedder ([embedder] in config.toml); providers load lazily.
import type { Config } from "../config/schema.ts";
import { EmbedderConfigError, type Embedder } from "./embedder.ts";
import { BUILTIN_ID } from "./builtin/builtin-id.ts";

export type EmbedderConfig = Config["embedder"];
type Env = Record<string, string | undefined>;

interface ProviderDefaults {
  baseUrl: string;
  model: string;
  /** The default model's dimension; used when `dimensions` is 0 and the model is the default. */
  dim: number;
  keyVar?: string;
  keyRequired: (url: URL) => boolean;
}

const DEFAULTS: Record<Exclude<EmbedderConfig["provider"], "builtin">, ProviderDefaults> = {
  openai: {
    baseUrl: "https://api.openai.com/v1",
    model: "text-embedding-3-small",
    dim: 256,
    keyVar: "OPENAI_API_KEY",
    keyRequired: (u) => u.hostname === "api.openai.com",
  },
  ollama: { baseUrl: "http://127.0.0.1:11434/v1", model: "nomic-embed-text", dim: 768, keyRequired: () => false },
  voyage: {
    baseUrl: "https://api.voyageai.com/v1",
    model: "voyage-3.5",
    dim: 1024,
    keyVar: "VOYAGE_API_KEY",
    keyRequired: () => true,
  },
};

export interface CreateEmbedderOptions {
  env?: Env;
  fetch?: typeof fetch;
  /** Backoff base for retries (tests shorten it). */
  baseDelayMs?: number;
}

export async function createEmbedder(cfg: EmbedderConfig, options: CreateEmbedderOptions = {}): Promise<Embedder> {
  if (cfg.provider === "builtin") {
    const { BuiltinEmbedder } = await import("./builtin/builtin-embedder.ts");
    return BuiltinEmbedder.create();
  }
  const d = DEFAULTS[cfg.provider];
  const env = options.env ?? process.env;
  const base = cfg.base_url || d.baseUrl;
  let url: URL;
  try {
    url = new URL(endpoint(base));
  } catch {
    throw new EmbedderConfigError({ problem: "not-a-url", baseUrl: base, example: d.baseUrl });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new EmbedderConfigError({ problem: "not-http", baseUrl: base });
  }
  const apiKey = d.keyVar ? env[d.keyVar]?.trim() || undefined : undefined;
  if (!apiKey && d.keyRequired(url)) {
    throw new EmbedderConfigError({ problem: "missing-key", provider: cfg.provider, keyVar: d.keyVar ?? "" });
  }
  const model = cfg.model || d.model;
  const dim = cfg.dimensions || (model === d.model ? d.dim : 0);
  // OpenAI's default model is shortened to 256 on request; other defaults are their native size.
  const requestDim = cfg.dimensions > 0 || (cfg.provider === "openai" && model === d.model);
  const { HttpEmbedder } = await import("./http/http-embedder.ts");
  const embedder = new HttpEmbedder({
    provider: cfg.provider,
    wire: cfg.provider === "voyage" ? "voyage" : "openai",
    url: url.href,
    model,
    dim,
    requestDim,
    apiKey,
    keyVar: d.keyVar,
    batchSize: cfg.batch_size,
    retry: {
      timeoutMs: cfg.timeout_ms,
      maxRetries: cfg.max_retries,
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: 20_000,
    },
    fetch: options.fetch,
  });
  // As a search's query: within timeout_ms in all, as a search may be what opens the embedder.
  if (dim === 0) await embedder.embed(["dimension probe"], undefined, "query");
  return embedder;
}

/**
 * The id createEmbedder gives for `cfg` when it is known without asking the server; undefined for a model whose
 * dimension is learnt from its first answer.
 */
export function configuredEmbedderId(cfg: EmbedderConfig): string | undefined {
  if (cfg.provider === "builtin") return BUILTIN_ID;
  const d = DEFAULTS[cfg.provider];
  const model = cfg.model || d.model;
  const dim = cfg.dimensions || (model === d.model ? d.dim : 0);
  return dim > 0 ? `${cfg.provider}:${model}:${dim}` : undefined;
}

/**
 * base_url may be the API root (…/v1), the server root, or the full …/embeddings endpoint; a query (a gateway's
 * api-version=…) stays after the path.
 */
export function endpoint(base: string): string {
  const t = base.trim();
  const at = t.search(/[?#]/);
  const query = at < 0 ? "" : t.slice(at).split("#")[0]!;
  const b = (at < 0 ? t : t.slice(0, at)).replace(/\/+$/, "");
  if (/\/embeddings$/.test(b)) return `${b}${query}`;
  if (/\/v\d+$/.test(b)) return `${b}/embeddings${query}`;
  return `${b}/v1/embeddings${query}`;
}
