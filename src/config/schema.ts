// config.toml schema (valibot): every key, its type and its default.
import * as v from "valibot";
import { pgUrlParts } from "../shared/postgres-url.ts";
import { MAX_TIMER_MS } from "../shared/time.ts";
import { nearestName } from "../shared/nearest-name.ts";
import { VectorsSchema } from "./vectors-schema.ts";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const ms = (min: number) => int(min, MAX_TIMER_MS);
/** A name (a model id, a language tag): spaces around it (an env file, a copy from a web page) are no part of it. */
const name = () => v.pipe(v.string(), v.trim());
const someName = () => v.pipe(v.string(), v.trim(), v.minLength(1));
// Shape only (5 or 6 fields, or a nickname as crontab has them); the daemon checks the full grammar with croner.
const cronPattern = v.pipe(
  v.string(),
  v.regex(
    /^\s*(?:\S+(\s+\S+){4,5}|@(?:yearly|annually|monthly|weekly|daily|midnight|hourly))\s*$/i,
    "not a cron pattern: expected 5 fields (or 6 with seconds), or @hourly, @daily, @weekly, @monthly or @yearly",
  ),
);

export const LimitsSchema = v.strictObject({
  max_history_messages: v.optional(int(1, 10_000), 16),
  max_history_bytes: v.optional(int(4096), 4 * 1024 * 1024),
  max_message_bytes: v.optional(int(1, 64 * 1024 * 1024), 1024 * 1024),
});

export const SummarySchema = v.strictObject({
  model: v.optional(someName(), "claude-sonnet-5-5"),
  cron: v.optional(cronPattern, "*/15 * * * *"),
  chunk_chars: v.optional(int(1000), 32_000),
  timeout_ms: v.optional(ms(100), 120_000),
  max_retries: v.optional(int(0, 10), 3),
  /** The model for noise pruning and the relevance filter; the top-level `decision_model` is an alias. */
  decision_model: v.optional(name(), ""),
  /** Input plus output tokens per UTC day over every LLM call memvoy makes; 0 = no limit. */
  daily_token_budget: v.optional(int(0), 0),
});

export const ContextSchema = v.strictObject({
  relevance_timeout_ms: v.optional(ms(50), 3000),
});

function isHttpUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text.trim()).protocol);
  } catch {
    return false;
  }
}

const POSTGRES_URL = /^postgres(?:ql)?:\/\/\S+$/i;

/** A # in the URL, or a password followed by an @ after the host (in the path or query): see ArchiveSchema. */
function passwordSpillsOver(url: string): boolean {
  if (url.includes("#")) return true;
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)([/?].*)?$/i.exec(url);
  return !!m && m[1]!.includes("@") && m[1]!.slice(0, m[1]!.lastIndexOf("@")).includes(":") && !!m[2]?.includes("@");
}

/** Parses, with well-formed %-escapes where the client decodes them (user, password, database). */
function parsesAsUrl(text: string): boolean {
  try {
    pgUrlParts(text);
    return true;
  } catch {
    return false;
  }
}

/** Empty: the provider's own URL. Checked here, so that `config check` refuses what the embedder would. */
const baseUrl = v.pipe(
  v.string(),
  v.check((s) => s === "" || isHttpUrl(s), "expected http(s)://host[:port][/path], e.g. http://127.0.0.1:11434/v1"),
);

export const EmbedderSchema = v.strictObject({
  provider: v.optional(v.picklist(["builtin", "openai", "ollama", "voyage"]), "builtin"),
  model: v.optional(name(), ""),
  base_url: v.optional(baseUrl, ""),
  dimensions: v.optional(int(0, 8192), 0),
  batch_size: v.optional(int(1, 2048), 64),
  timeout_ms: v.optional(ms(100), 30_000),
  max_retries: v.optional(int(0, 10), 4),
});

export const ErrorMemorySchema = v.strictObject({
  ttl_days: v.optional(int(1, 36_500), 90),
});

export const SearchSchema = v.strictObject({
  /** Semantic hits with a calibrated score below this are dropped; unset: the embedder's default. */
  min_score: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
});

export const DaemonSchema = v.strictObject({
  embed_interval_ms: v.optional(ms(100), 2000),
  sweep_cron: v.optional(cronPattern, "0 * * * *"),
  maintenance_cron: v.optional(cronPattern, "30 3 * * *"),
  log_max_bytes: v.optional(int(4096), 5 * 1024 * 1024),
});

export const IMPORT_SOURCES = ["claude-code", "codex", "opencode", "gemini"] as const;

/** `"cladue-code" is not a source this imports live: did you mean claude-code? (use ...)`. */
function unknownSource(issue: { input: unknown }): string {
  const near = typeof issue.input === "string" ? nearestName(issue.input, IMPORT_SOURCES) : undefined;
  return `${JSON.stringify(issue.input)} is not a source the daemon imports live${near ? `: did you mean ${near}?` : ""} (use ${IMPORT_SOURCES.join(", ")})`;
}

export const ImportSchema = v.strictObject({
  /** Sources the daemon captures live (each at its default location). */
  sources: v.optional(v.array(v.picklist(IMPORT_SOURCES, unknownSource)), []),
  cron: v.optional(cronPattern, "* * * * *"),
  /** Imported sessions are summarized by the cron only when this is true (no LLM spend by surprise). */
  summarize: v.optional(v.boolean(), false),
});

export const HttpSchema = v.strictObject({
  /** Whether the daemon serves the loopback HTTP API (and /mcp). */
  enabled: v.optional(v.boolean(), true),
  /** 0 picks a free port; absent, the port is derived from the home path. */
  port: v.optional(int(0, 65_535)),
  max_body_bytes: v.optional(int(1024, 1024 * 1024 * 1024), 8 * 1024 * 1024),
});

/** The shared archive on PostgreSQL; empty = the embedded SQLite archive. No password here (see load.ts). */
export const ArchiveSchema = v.strictObject({
  url: v.optional(
    v.pipe(
      v.string("expected a postgres://user@host/db URL"),
      // Spaces or a newline around it (a secret file's last line) are not part of it.
      v.trim(),
      v.union(
        [
          v.literal(""),
          v.pipe(
            v.string(),
            v.regex(POSTGRES_URL, "expected a postgres://user@host/db URL"),
            // Only for a URL of the right form, so that a wrong one gets one message, not two.
            v.check(
              (s) => !POSTGRES_URL.test(s) || parsesAsUrl(s),
              "expected a postgres://user@host/db URL (this one does not parse)",
            ),
            // A connection URL has no #fragment: a # in it is a character of the password. So is a / or ? before an
            // @ after the password: the rest of the password would be read as the host and the path, query or fragment.
            v.check(
              (s) => !POSTGRES_URL.test(s) || !parsesAsUrl(s) || !passwordSpillsOver(s),
              "expected a postgres://user@host/db URL (a password's reserved characters are %-escaped: # as %23, / as %2F, ? as %3F, @ as %40)",
            ),
          ),
        ],
        "expected a postgres://user@host/db URL",
      ),
    ),
    "",
  ),
  /** Job leases in the shared archive (a summary per session, the daily token budget): held this long unless renewed. */
  lease_ms: v.optional(int(500, 3_600_000), 30_000),
});

export const ConfigSchema = v.strictObject({
  reply_lang: v.optional(someName(), "auto"),
  /** Alias of summary.decision_model (after loading, both hold the effective value). */
  decision_model: v.optional(name(), ""),
  limits: v.optional(LimitsSchema, {}),
  summary: v.optional(SummarySchema, {}),
  context: v.optional(ContextSchema, {}),
  embedder: v.optional(EmbedderSchema, {}),
  error_memory: v.optional(ErrorMemorySchema, {}),
  search: v.optional(SearchSchema, {}),
  daemon: v.optional(DaemonSchema, {}),
  import: v.optional(ImportSchema, {}),
  http: v.optional(HttpSchema, {}),
  archive: v.optional(ArchiveSchema, {}),
  vectors: v.optional(VectorsSchema, {}),
});

export type Config = v.InferOutput<typeof ConfigSchema>;
