// The public shape of an error-memory record, and how a stored row becomes one.
import { refusedBy, type ErrorOutcome, type ErrorRow } from "../../storage/sqlite/error-memory-repo.ts";
import { configuredEmbedderId } from "../../embed/create-embedder.ts";
import type { Config } from "../../config/schema.ts";

export type { ErrorOutcome };
export const OUTCOMES: readonly ErrorOutcome[] = ["resolved", "failed", "abandoned"];

export interface ErrorRecord {
  /** Short lowercase hex id; any unique prefix of it finds the record. */
  id: string;
  tool: string;
  error: string;
  cause?: string;
  fix: string;
  outcome: ErrorOutcome;
  keywords: string[];
  /** UTC ns. */
  createdAt: bigint;
  /** UTC ns of the last record or merge. */
  updatedAt: bigint;
  /** UTC ns of the last search that returned it; undefined when none has. */
  lastHitAt?: bigint;
  /** UTC ns from which the record is gone. */
  expiresAt: bigint;
  /** Times a search returned it. */
  hits: number;
  /** Times it was recorded: 1, plus one per merge of the same error. */
  occurrences: number;
  /** true when its error text has a vector from the configured embedder. */
  embedded: boolean;
}

/**
 * The embedder whose vectors count as `embedded`: the configured one, when its id is known without asking its server
 * (an HTTP embedder with no dimensions given learns them from the first answer: then any vector counts).
 */
export function recordEmbedder(ctx: { readonly config: Config }): string | undefined {
  return configuredEmbedderId(ctx.config.embedder);
}

export function toErrorRecord(row: ErrorRow, embedderId?: string): ErrorRecord {
  const r: ErrorRecord = {
    id: row.id,
    tool: row.tool,
    error: row.error,
    fix: row.fix,
    outcome: row.outcome,
    keywords: row.keywords,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
    hits: row.hits,
    occurrences: row.occurrences,
    embedded:
      row.embeddedBy !== null &&
      !row.embeddedBy.startsWith(refusedBy("")) &&
      (embedderId === undefined || row.embeddedBy === embedderId),
  };
  if (row.cause !== null) r.cause = row.cause;
  if (row.lastHitAt > 0n) r.lastHitAt = row.lastHitAt;
  return r;
}
