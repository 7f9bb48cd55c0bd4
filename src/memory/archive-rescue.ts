// Rescue of a broken history.db: say what SQLite can still read and what would be lost, then (when asked)
// move the broken files aside and rebuild the archive from that salvage plus every session's history.json.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { HomePaths } from "../config/home.ts";
import type { MessageRecord } from "../shared/message.ts";
import { isSessionId } from "../shared/session-id.ts";
import { agenvoyArchiveRows } from "./agenvoy-archive.ts";
import { listSome } from "./history-reconcile.ts";
import { faultPoint } from "../shared/fault-point.ts";
import { withFileLock } from "../shared/file-lock.ts";
import { nsToRfc3339 } from "../shared/time.ts";
import { readHistoryRepeats } from "../storage/history/history-file.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import { insertMessages, knownIds } from "../storage/sqlite/messages-repo.ts";
import {
  buildFromSalvage,
  markArchivedSessions,
  markRecent,
  needsRescue,
  rebuildPath,
  removeStaleRebuilds,
  salvageDatabase,
  swapInRebuilt,
  type Salvage,
} from "../storage/sqlite/salvage.ts";

export interface RescuePlan {
  file: string;
  problem: string;
  /** The file is an Agenvoy archive: its messages, and those no history.json holds (adopted as the archive). */
  agenvoy?: { messages: number; adopted: number };
  /** What SQLite could still read. */
  salvaged: { messages: number; sessions: number; errorRecords: number; usageRows: number; summaryRuns: number };
  /** Messages of history.json files the salvage lacks: restored from the files. */
  fromHistoryFiles: number;
  /** What a rebuild would lose, one line each (empty: nothing). */
  lost: string[];
}

export interface RescueReport extends RescuePlan {
  movedAside: string[];
  /** Messages in the rebuilt archive. */
  messages: number;
}

function historyFiles(paths: HomePaths): Map<string, MessageRecord[]> {
  const out = new Map<string, MessageRecord[]>();
  let names: string[] = [];
  try {
    names = readdirSync(paths.sessions, { withFileTypes: true })
      .filter((d) => d.isDirectory() && isSessionId(d.name))
      .map((d) => d.name);
  } catch {
    // no sessions folder
  }
  for (const session of names) {
    try {
      refuseSessionSymlinks(paths.session(session));
      // A repeated id's first record is taken (the archive holds one message per id). Records with no id
      // (written by Agenvoy) are kept too: the next command adopts them, as on any first encounter.
      const records = readHistoryRepeats(paths.history(session), () => {}).records;
      if (records.length > 0) out.set(session, records);
    } catch {
      // a corrupt or linked history.json is doctor's other business; it adds nothing here
    }
  }
  return out;
}

/** An Agenvoy archive's messages that no history.json holds become the salvage's messages. */
function adoptAgenvoy(salvage: Salvage, files: Map<string, MessageRecord[]>): string[] {
  if (!salvage.agenvoy) return [];
  const { rows, badSessions } = agenvoyArchiveRows(salvage.agenvoy, files);
  salvage.tables.messages = { rows, complete: salvage.agenvoy.complete };
  return badSessions.size === 0
    ? []
    : [
        `the archived messages of sessions whose ids memvoy cannot take: ${listSome([...badSessions].map((s) => JSON.stringify(s)))}`,
      ];
}

function plan(paths: HomePaths, salvage: Salvage, files: Map<string, MessageRecord[]>): RescuePlan {
  const lost = adoptAgenvoy(salvage, files);
  const t = salvage.tables;
  const salvagedIds = new Set(t.messages.rows.map((r) => String(r.id)));
  let fromHistoryFiles = 0;
  for (const records of files.values()) for (const r of records) if (!salvagedIds.has(r.id)) fromHistoryFiles++;
  if (!t.messages.complete)
    lost.push("archive-only messages (compacted out of history.json) that SQLite could not read");
  if (!t.error_records.complete) lost.push("error-memory records that SQLite could not read");
  if (!t.llm_usage.complete) lost.push("LLM token usage rows that SQLite could not read");
  if (!t.summary_runs.complete)
    lost.push(
      "the record of past summary runs that SQLite could not read (the summaries themselves are in summary.json)",
    );
  if (!t.sessions.complete) lost.push("the source, title and project of imported sessions that SQLite could not read");
  if (!t.tombstones.complete)
    lost.push("the record of removed messages that SQLite could not read: a re-import could bring those back");
  if (!t.untimed_messages.complete)
    lost.push("which messages came with no time of their own, where SQLite could not read it");
  return {
    file: paths.db,
    problem: salvage.problem,
    ...(salvage.agenvoy ? { agenvoy: { messages: salvage.agenvoy.rows.length, adopted: t.messages.rows.length } } : {}),
    salvaged: {
      messages: t.messages.rows.length,
      sessions: new Set(t.messages.rows.map((r) => String(r.session_id))).size,
      errorRecords: t.error_records.rows.length,
      usageRows: t.llm_usage.rows.length,
      summaryRuns: t.summary_runs.rows.length,
    },
    fromHistoryFiles,
    lost,
  };
}

/** What a rescue would keep and lose; changes nothing. */
export function planRescue(paths: HomePaths, problem: string): RescuePlan {
  return plan(paths, salvageDatabase(paths.db, problem), historyFiles(paths));
}

/**
 * Rebuild the archive from the salvage and the history.json files beside the broken database, then keep the broken
 * files aside and put the rebuilt one in their place (salvage.ts's swapInRebuilt: a kill never leaves an empty one).
 */
export function rescueArchive(paths: HomePaths, problem: string, now: bigint): RescueReport | undefined {
  // Under the home's writer lock: a rebuild another rescue is making is not taken for a killed one's leftovers, and
  // one it has put in place meanwhile is not rebuilt again (undefined: nothing left to do).
  return withFileLock(
    join(paths.store, "write.lock"),
    () => (needsRescue(paths.db) ? rescueLocked(paths, problem, now) : undefined),
    RESCUE_WAIT_MS,
  );
}

/** How long a rescue waits for another one (or a writer) to finish: a large archive takes minutes to rebuild. */
const RESCUE_WAIT_MS = 30 * 60_000;

function rescueLocked(paths: HomePaths, problem: string, now: bigint): RescueReport {
  const salvage = salvageDatabase(paths.db, problem);
  const files = historyFiles(paths);
  const p = plan(paths, salvage, files);
  const stamp = nsToRfc3339(now).replace(/[:.]/g, "");
  removeStaleRebuilds(paths.db);
  const rebuilt = rebuildPath(paths.db, stamp);
  let messages: number;
  try {
    messages = buildRebuilt(rebuilt, salvage, files, now);
  } catch (err) {
    // Nothing was changed: the partial rebuild goes too, so a full disk gets back the space it took.
    removeStaleRebuilds(paths.db);
    throw err;
  }
  faultPoint("before-rebuild-swap");
  const movedAside = swapInRebuilt(paths.db, rebuilt, stamp, salvage.agenvoy ? "agenvoy" : "broken");
  removeStaleRebuilds(paths.db);
  return { ...p, movedAside, messages };
}

/** Build the rebuilt archive at `rebuilt`: the salvage plus the history.json files' records. Its message count. */
function buildRebuilt(rebuilt: string, salvage: Salvage, files: Map<string, MessageRecord[]>, now: bigint): number {
  const db = buildFromSalvage(rebuilt, salvage);
  try {
    db.transaction(() => {
      for (const [session, all] of files) {
        const records = all.filter((r) => r.id !== "");
        if (records.length === 0) continue;
        const known = knownIds(
          db,
          records.map((r) => r.id),
        );
        insertMessages(
          db,
          session,
          records.filter((r) => !known.has(r.id)),
          now,
        );
        markRecent(
          db,
          session,
          records.map((r) => r.id),
          records[0]!.sendAt,
        );
      }
      markArchivedSessions(db);
    })();
    const messages = Number((db.query("SELECT count(*) AS n FROM messages").get() as { n: bigint }).n);
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    return messages;
  } finally {
    db.close();
  }
}
