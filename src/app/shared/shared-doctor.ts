// `doctor` in shared mode: the shared archive (reachable, at this memvoy's schema version), the shared vectors
// (reachable, tables opened by name), this host's session caches against the archive, leases no holder could
// still be renewing, and secrets in config.toml. --repair rewrites stale caches (atomically, under the
// session's lock), removes temp files left by dead writers and ends stuck leases; --migrate migrates the schema.
import { readFileSync } from "node:fs";
import { describeError } from "../../shared/describe-error.ts";
import { MemvoyError } from "../../shared/errors.ts";
import { redactSecrets } from "../../shared/redact.ts";
import { symlinkFinding, tempFileFindings, type DoctorFinding, type DoctorReport } from "../../memory/doctor.ts";
import { checkHome } from "../../memory/doctor-home.ts";
import { earlierTables, emptyStoreFinding, lostErrorVectorsFinding } from "../../memory/doctor-vectors.ts";
import { sessionDirs } from "../../memory/session-admin.ts";
import { homePaths, resolveHome } from "../../config/home.ts";
import { loadConfig } from "../../config/load.ts";
import { listSome } from "../../memory/history-reconcile.ts";
import type { MessageRecord } from "../../shared/message.ts";
import { readHistory } from "../../storage/history/history-file.ts";
import { removedInCache } from "./removed-cache.ts";
import { staleCacheFiles, type SessionCacheState } from "./session-cache.ts";
import type { SharedHome } from "./shared-home.ts";
import { openSharedHome } from "./open-shared.ts";
import { archiveTarget } from "./shared-stats.ts";

/** Sessions whose recent tiers are read at once. */
const STATE_BATCH = 50;

/** No memvoy job takes a lease this long (they renew short ones): a lease further ahead is stuck. */
export const LONGEST_LEASE_MS = 3_600_000;

export interface SharedDoctorOptions {
  home?: string;
  env?: Record<string, string | undefined>;
  repair?: boolean;
  migrate?: boolean;
}

export interface SharedDoctorReport extends DoctorReport {
  shared: {
    archive: { target: string; reachable: boolean; schemaVersion?: number; expectedVersion?: number };
    vectors: { uri: string; reachable: boolean; messageVectors?: number; errorVectors?: number };
    /** Leases held now, across hosts. */
    leases: { job: string; session: string; holder: string; expiresInMs: number }[];
    /** This host's session folders compared with the archive. */
    caches: number;
  };
}

export async function sharedDoctor(o: SharedDoctorOptions): Promise<SharedDoctorReport> {
  const env = o.env ?? process.env;
  const paths = homePaths(resolveHome(o.home, env));
  const config = loadConfig(paths.config, env);
  const findings: DoctorFinding[] = [...configSecrets(paths.config)];
  const report = (shared: SharedDoctorReport["shared"], sessions = 0): SharedDoctorReport => ({
    home: paths.home,
    sessions,
    findings,
    ok: findings.every((f) => f.repaired !== undefined),
    shared,
  });
  let home: SharedHome;
  try {
    // A check only leaves a home that does not exist uncreated.
    const readOnly = o.repair !== true && o.migrate !== true;
    home = await openSharedHome({ home: paths.home, env, config, migrate: false, connections: 1, readOnly });
  } catch (err) {
    if (err instanceof MemvoyError && err.exitCode === 2) throw err; // a config problem: one line, exit 2
    findings.push({ problem: `the shared archive cannot be opened: ${describeError(err)}` });
    return report({
      archive: { target: archiveTarget(config), reachable: false },
      vectors: { uri: config.vectors.uri, reachable: false },
      leases: [],
      caches: 0,
    });
  }
  try {
    const shared: SharedDoctorReport["shared"] = {
      archive: { target: archiveTarget(config), reachable: true },
      vectors: { uri: config.vectors.uri, reachable: false },
      leases: [],
      caches: 0,
    };
    const current = await checkSchema(home, o.migrate === true, findings, shared.archive);
    if (!current) return report(shared);
    await checkVectors(home, findings, shared.vectors);
    shared.leases = await checkLeases(home, o.repair === true, findings);
    // This host's files outside the session caches: links, stray entries in sessions/, modes (doctor-home.ts).
    const local = checkHome(home.ctx, o.repair === true);
    findings.push(...local.findings);
    const dirs = sessionDirs(home.ctx).sort();
    shared.caches = dirs.length;
    const checked = dirs.filter((session) => !local.blocked.has(session));
    const rows = await home.ctx.archive.listSessions();
    const exists = new Set(rows.map((r) => r.id));
    // A batch of sessions at a time: a few reads, not three a session, and never all in memory.
    for (let at = 0; at < checked.length; at += STATE_BATCH) {
      const batch = checked.slice(at, at + STATE_BATCH);
      const [recent, summaries] = await Promise.all([
        home.ctx.archive.recentOf(batch),
        home.ctx.archive.summaryTexts(batch),
      ]);
      for (const [session, list] of recent) {
        const summary = summaries.get(session);
        const state = { exists: exists.has(session), recent: list, ...(summary ? { summary } : {}) };
        findings.push(...(await checkCache(home, session, o.repair === true, state)));
      }
    }
    return report(shared, rows.length);
  } finally {
    await home.close();
  }
}

/** A secret written into config.toml (they belong in the environment). */
function configSecrets(path: string): DoctorFinding[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const { kinds } = redactSecrets(text);
  if (kinds.length === 0) return [];
  return [
    {
      problem: `config.toml holds a secret (${kinds.join(", ")}): remove it and set it in the environment (MEMVOY_ARCHIVE_URL or PGPASSWORD, MEMVOY_S3_* keys, the embedder's key variable)`,
      manual: true,
    },
  ];
}

/** Whether the archive is at this memvoy's schema version (after migrating it, with --migrate). */
async function checkSchema(
  home: SharedHome,
  migrate: boolean,
  findings: DoctorFinding[],
  out: SharedDoctorReport["shared"]["archive"],
): Promise<boolean> {
  const { admin } = home.ctx.archive;
  const { version, known } = await admin.schemaVersion();
  out.schemaVersion = version;
  out.expectedVersion = known;
  if (version === known) return true;
  if (version > known) {
    findings.push({
      problem: `the archive's schema is version ${version}, newer than this memvoy knows (${known}): upgrade memvoy`,
      manual: true,
    });
    return false;
  }
  const f: DoctorFinding = {
    problem: `the archive's schema is version ${version}, this memvoy needs ${known}: run memvoy doctor --migrate (the other archive checks wait for it)`,
    manual: true,
  };
  findings.push(f);
  if (!migrate) return false;
  out.schemaVersion = await admin.migrate();
  f.repaired = `migrated the schema from version ${version} to ${out.schemaVersion}`;
  return true;
}

/**
 * The shared vectors open, the configured embedder's tables by name (an S3 store cannot be listed), and an
 * earlier memvoy's table among them named (removed messages' vectors stay in its files until reindex).
 */
async function checkVectors(
  home: SharedHome,
  findings: DoctorFinding[],
  out: SharedDoctorReport["shared"]["vectors"],
): Promise<void> {
  const { vectors } = home.ctx;
  try {
    const embedder = await vectors.embedder();
    const table = await vectors.table();
    out.messageVectors = table ? await table.count() : 0;
    out.errorVectors = (await (await vectors.errorStore()).ids(embedder.id)).length;
    out.reachable = true;
    if (out.messageVectors === 0) {
      // The store emptied (its prefix deleted, a wrong [vectors] uri) or the embedder changed since the archive
      // recorded its messages as embedded: every semantic search says nothing is indexed.
      const [tiers, pending] = await Promise.all([home.ctx.archive.admin.tierCounts(), home.ctx.archive.queuedCount()]);
      const embedded = tiers.recent.messages - pending;
      if (embedded > 0) findings.push(emptyStoreFinding(out.uri, embedder.id, embedded));
    }
    if (out.errorVectors === 0) {
      // Records marked embedded are not embedded again by a lookup: only a rebuild brings their vectors back.
      const now = home.ctx.now();
      const [{ total }, unembedded] = await Promise.all([
        home.ctx.archive.liveErrors({}, now, 0),
        home.ctx.archive.unembeddedErrors(embedder.id, now, 100_000),
      ]);
      const embedded = total - unembedded.length;
      if (embedded > 0) findings.push(lostErrorVectorsFinding(out.uri, embedder.id, embedded));
    }
    findings.push(...(await earlierTables(await vectors.messageStore(), [embedder.id])));
  } catch (err) {
    if (err instanceof MemvoyError && err.exitCode === 2) throw err; // refused keys, no such bucket: exit 2
    findings.push({
      problem: `the shared vectors at ${out.uri} cannot be read: ${describeError(err)} (check that the object store is up, and [vectors] in config.toml)`,
      manual: true,
    });
  }
}

/** Live leases; one running further ahead than any job takes is stuck (--repair ends it). */
async function checkLeases(home: SharedHome, repair: boolean, findings: DoctorFinding[]) {
  const { admin } = home.ctx.archive;
  const live = (await admin.leases()).filter((l) => l.expiresAt > l.serverNow);
  for (const l of live) {
    const aheadMs = Number((l.expiresAt - l.serverNow) / 1_000_000n);
    if (aheadMs <= LONGEST_LEASE_MS) continue;
    const f: DoctorFinding = {
      problem: `the lease on ${l.job} (${l.session}) held by ${l.holder} runs ${Math.round(aheadMs / 60_000)} more minutes: no memvoy job takes one that long`,
    };
    if (repair) {
      await admin.expireLease(l.job, l.session);
      f.repaired = "ended the lease; the next taker gets it";
    }
    findings.push(f);
  }
  return live.map((l) => ({
    job: l.job,
    session: l.session,
    holder: l.holder,
    expiresInMs: Number((l.expiresAt - l.serverNow) / 1_000_000n),
  }));
}

/** This host's files of one session against the archive, and temp files left by a writer that died. */
async function checkCache(
  home: SharedHome,
  session: string,
  repair: boolean,
  state: SessionCacheState,
): Promise<DoctorFinding[]> {
  const dir = home.ctx.paths.session(session);
  let stale: string[];
  try {
    stale = staleCacheFiles(home.ctx.paths, session, state);
  } catch (err) {
    return [symlinkFinding(session, err)];
  }
  const out = tempFileFindings(dir, session, repair);
  if (stale.length === 0) return out;
  // Another host's writes since this host last used the session: the caches catch up at its next use here.
  if (await behindArchive(home, session, stale, state)) return out;
  const removed = await removedInCache(home.ctx, session);
  const problems =
    removed.length > 0 ? [`history.json holds ${removed.length} removed message(s) (${listSome(removed)})`] : [];
  const names = stale.flatMap((p) => {
    if (p === dir) return ["the folder of a session the archive no longer has"];
    return removed.length > 0 && p === home.ctx.paths.history(session) ? [] : [p.slice(dir.length + 1)];
  });
  if (names.length > 0) problems.push(`cache differs from the archive: ${names.join(", ")}`);
  const f: DoctorFinding = { session, problem: problems.join("; ") };
  if (repair) {
    await home.repairCache(session);
    f.repaired = `rewrote the cache from the archive${removed.length > 0 ? `: left out ${removed.length} removed message(s)` : ""}`;
  }
  return [f, ...out];
}

/**
 * Whether the session's stale files only lag the archive: a summary another host saved, or a history.json
 * whose every message the archive holds in this session as it is here (other hosts added or compacted since).
 * A summary kept here that the archive dropped (reset --all, rm-message --drop-summary) does not lag: it is
 * removed text.
 */
async function behindArchive(
  home: SharedHome,
  session: string,
  stale: string[],
  state: SessionCacheState,
): Promise<boolean> {
  const { paths, archive } = home.ctx;
  if (stale.includes(paths.session(session))) return false;
  if (!state.summary && (stale.includes(paths.summary(session)) || stale.includes(paths.cursor(session)))) return false;
  if (!stale.includes(paths.history(session))) return true;
  let cached: MessageRecord[];
  try {
    cached = readHistory(paths.history(session), { shared: true }).records;
  } catch {
    return false; // unreadable: it differs
  }
  const held = new Map((await archive.messagesById(cached.map((r) => r.id))).map((m) => [m.id, m]));
  return cached.every((r) => {
    const m = held.get(r.id);
    return (
      m !== undefined &&
      m.session === session &&
      m.role === r.role &&
      m.content === r.content &&
      m.sendAt === r.sendAt &&
      m.sender === r.sender
    );
  });
}
