// Shared helpers for semantic-tier tests: temp homes with a chosen config, and views of both stores.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { validateConfig } from "../../src/config/load.ts";
import { homePaths } from "../../src/config/home.ts";
import type { Config } from "../../src/config/schema.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { VectorStore } from "../../src/storage/lance/vector-store.ts";
import type { MemoryContext } from "../../src/memory/memory-context.ts";
import { nowNs } from "../../src/shared/time.ts";

export const BUILTIN_ID = "builtin:v1:384";

export function config(raw: Record<string, unknown> = {}): Config {
  return validateConfig(raw, "test config");
}

export function sqlite(home: string): Database {
  return new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
}

/** Ids of the messages in the recent tier (what the vector table must hold once drained). */
export function recentIds(home: string, session?: string): string[] {
  const db = sqlite(home);
  try {
    const sql = "SELECT id FROM messages WHERE recent = 1" + (session ? " AND session_id = ?" : "");
    const rows = (session ? db.query(sql).all(session) : db.query(sql).all()) as { id: string }[];
    return rows.map((r) => r.id).sort();
  } finally {
    db.close();
  }
}

export function queueSize(home: string): number {
  const db = sqlite(home);
  try {
    return Number((db.query("SELECT count(*) AS n FROM embed_queue").get() as { n: bigint }).n);
  } finally {
    db.close();
  }
}

/** Ids stored in an embedder's vector table (empty when the table does not exist). */
export async function vectorIds(home: string, embedderId = BUILTIN_ID, session?: string): Promise<string[]> {
  const store = await VectorStore.open(join(home, ".store", "lance"));
  try {
    const t = await store.table(embedderId, 0);
    if (!t) return [];
    const keys = await t.keys(session ? { session } : {});
    t.close();
    return keys.map((k) => k.id).sort();
  } finally {
    store.close();
  }
}

export async function tableIds(home: string): Promise<string[]> {
  const store = await VectorStore.open(join(home, ".store", "lance"));
  try {
    return (await store.tables()).map((t) => t.embedderId).sort();
  } finally {
    store.close();
  }
}

/** A MemoryContext of its own on a home (a second connection, as another process would have). */
export function contextFor(home: string, cfg: Config = config()): MemoryContext {
  const paths = homePaths(home);
  return { paths, config: cfg, db: openDatabase(paths.db), now: nowNs, env: {} };
}

export const NS_PER_DAY = 86_400_000_000_000n;
