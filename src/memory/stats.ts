// `stats`: sessions, messages and bytes per tier, vectors and their backlog, error records, disk use, tokens.
import { lstatSync, readdirSync, type Stats } from "node:fs";
import { join } from "node:path";
import { queuedCount } from "../storage/sqlite/embed-queue-repo.ts";
import { countLive } from "../storage/sqlite/error-memory-repo.ts";
import { listSessionRows } from "../storage/sqlite/sessions-repo.ts";
import { tierCounts, usageSums, type TierCount, type UsageSum } from "../storage/sqlite/stats-queries.ts";
import type { MemoryContext } from "./memory-context.ts";
import { sessionDirs } from "./session-admin.ts";
import { messageVectorFolders } from "./vector-folders.ts";

export interface StatsReport {
  home: string;
  sessions: number;
  tiers: {
    /** Tier 1: what history.json holds (bytes: the files' size). */
    window: { messages: number; bytes: number };
    /**
     * Tier 2: vectors of recent messages the configured embedder made, and messages still waiting for one.
     * `stale`: recent messages whose vectors come from another embedder, or were lost with the vector store
     * (semantic search finds them only once memvoy reindex ran); `reindexNeeded` also when only some are.
     */
    semantic: { vectors: number; pending: number; stale: number; reindexNeeded: boolean };
    /** Tier 3: every message ever written (bytes: UTF-8 text), of which `archivedOnly` left history.json. */
    archive: { messages: number; bytes: number; archivedOnly: number };
  };
  errors: { records: number };
  /** Bytes on disk of each store: the space allocated, as du counts it (vectors: with .store/relevance). */
  disk: { sessions: number; archive: number; vectors: number; total: number };
  tokens: { calls: number; input: number; output: number; byPurpose: UsageSum[] };
}

/**
 * The space a file or folder tree takes on disk, as du counts it: the blocks allocated (a small file takes a
 * whole block, a folder its own), or the size where the system gives no block count. Symlinks are counted as
 * links, never followed.
 */
export function diskBytes(path: string): number {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return 0;
  }
  const own = typeof st.blocks === "number" && Number.isFinite(st.blocks) ? st.blocks * 512 : st.size;
  if (!st.isDirectory()) return st.isFile() || st.isSymbolicLink() ? own : 0;
  let sum = own;
  let names: string[] = [];
  try {
    names = readdirSync(path);
  } catch {
    return sum;
  }
  for (const name of names) sum += diskBytes(join(path, name));
  return sum;
}

/** A file's size in bytes (0 when it is missing or no regular file). */
function fileBytes(path: string): number {
  try {
    const st = lstatSync(path);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

export function collectStats(ctx: MemoryContext): StatsReport {
  const { db, paths } = ctx;
  const dirs = sessionDirs(ctx);
  const ids = new Set([...listSessionRows(db).map((r) => r.id), ...dirs]);
  const tiers = tierCounts(db);
  const pending = queuedCount(db);
  const embedded = Math.max(0, tiers.recent.messages - pending);
  // From the store's folder names (the vector store is never loaded here); a remote store is not looked at.
  const folders = ctx.config.vectors.uri ? undefined : messageVectorFolders(paths.lance, ctx.config.embedder);
  const unusable = folders !== undefined && (folders.none || folders.configured === false);
  let windowBytes = 0;
  for (const id of dirs) windowBytes += fileBytes(paths.history(id));
  return statsReport({
    home: paths.home,
    sessions: ids.size,
    tiers,
    windowBytes,
    vectors: unusable ? 0 : embedded,
    pending,
    stale: unusable ? embedded : 0,
    reindexNeeded: embedded > 0 && (unusable || folders?.others === true),
    errors: countLive(db, {}, ctx.now()),
    disk: {
      sessions: diskBytes(paths.sessions),
      archive: ["", "-wal", "-shm"].reduce((n, s) => n + diskBytes(paths.db + s), 0),
      // The relevance statistics kept from the vector tables are part of the vector store.
      vectors: diskBytes(paths.lance) + diskBytes(paths.relevance),
    },
    usage: usageSums(db),
  });
}

/** The figures `stats` prints, from what each backend counts. */
export interface StatsParts {
  home: string;
  sessions: number;
  tiers: { recent: TierCount; archived: TierCount };
  /** Tier 1's bytes as the backend measures them. */
  windowBytes: number;
  vectors: number;
  pending: number;
  stale?: number;
  reindexNeeded?: boolean;
  errors: number;
  disk: { sessions: number; archive: number; vectors: number };
  usage: UsageSum[];
}

export function statsReport(p: StatsParts): StatsReport {
  const { tiers, usage } = p;
  return {
    home: p.home,
    sessions: p.sessions,
    tiers: {
      window: { messages: tiers.recent.messages, bytes: p.windowBytes },
      semantic: {
        vectors: p.vectors,
        pending: p.pending,
        stale: p.stale ?? 0,
        reindexNeeded: p.reindexNeeded ?? false,
      },
      archive: {
        messages: tiers.recent.messages + tiers.archived.messages,
        bytes: tiers.recent.bytes + tiers.archived.bytes,
        archivedOnly: tiers.archived.messages,
      },
    },
    errors: { records: p.errors },
    disk: { ...p.disk, total: p.disk.sessions + p.disk.archive + p.disk.vectors },
    tokens: {
      calls: usage.reduce((n, u) => n + u.calls, 0),
      input: usage.reduce((n, u) => n + u.inputTokens, 0),
      output: usage.reduce((n, u) => n + u.outputTokens, 0),
      byPurpose: usage,
    },
  };
}
