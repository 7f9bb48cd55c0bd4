// doctor: check every session's history.json against the archive; --repair moves a corrupt file aside
// and rebuilds it from the archive (which holds every message) and re-adopts records the archive lacks; a file
// that parses but repeats an id or holds another session's ids is rewritten in place (repairCorrupt). The home
// outside the sessions (links, stray files in sessions/) is checked by doctor-home.ts.
import { existsSync, renameSync } from "node:fs";
import { describeError } from "../shared/describe-error.ts";
import { nsToRfc3339 } from "../shared/time.ts";
import {
  CorruptHistoryError,
  describeCorruption,
  readHistory,
  readHistoryRepeats,
  repeatText,
  historyStyleOfText,
  stageHistory,
  type RepeatedId,
  forgetHistoryCache,
} from "../storage/history/history-file.ts";
import { quickCheck } from "../storage/sqlite/maintenance.ts";
import { countSessionMessages, listSessionMessages } from "../storage/sqlite/messages-repo.ts";
import { listSessionRows } from "../storage/sqlite/sessions-repo.ts";
import { historyStyleOf, saveHistoryStamp, saveHistoryStyle } from "../storage/sqlite/history-stamps-repo.ts";
import { withWriteLock } from "../storage/sqlite/write-lock.ts";
import {
  NotAFileError,
  refuseSessionSymlinks,
  SessionFolderAliasError,
  SymlinkRefusedError,
} from "../storage/history/no-symlink.ts";
import { BrokenDatabaseError, isBrokenDatabase } from "../storage/sqlite/broken-database.ts";
import { UNDER_HOME_LOCK } from "./crash-recovery.ts";
import { removeStaleTempFiles, staleTempFiles } from "../shared/stale-temp-files.ts";
import { withHomeLock } from "./home-lock.ts";
import { listSome, reconcileHistory, toRecord, type Reconciled } from "./history-reconcile.ts";
import type { MemoryContext } from "./memory-context.ts";
import { sessionDirs } from "./session-admin.ts";
import { adoptHistory } from "./write-path.ts";
import type { DoctorFinding } from "./doctor-finding.ts";
import { checkHome } from "./doctor-home.ts";
import { summaryFindings } from "./doctor-summary.ts";
import { indexFindings } from "./doctor-indexes.ts";

export type { DoctorFinding };

export interface DoctorReport {
  home: string;
  sessions: number;
  findings: DoctorFinding[];
  ok: boolean;
}

export function runDoctor(ctx: MemoryContext, repair: boolean): DoctorReport {
  const findings: DoctorFinding[] = [];
  let integrity: string[];
  try {
    integrity = quickCheck(ctx.db);
  } catch (err) {
    const broken = isBrokenDatabase(err);
    if (broken) throw new BrokenDatabaseError({ path: ctx.paths.db, detail: broken }, { cause: err });
    throw err;
  }
  // A database SQLite opens but finds damaged is rescued like one it cannot open (see archive-rescue.ts).
  if (integrity.length !== 1 || integrity[0] !== "ok")
    throw new BrokenDatabaseError({
      path: ctx.paths.db,
      detail: `the integrity check failed: ${integrity.slice(0, 3).join("; ")}`,
    });
  const home = checkHome(ctx, repair);
  findings.push(...home.findings, ...indexFindings(ctx, repair));
  const ids = new Set([...sessionDirs(ctx), ...listSessionRows(ctx.db).map((r) => r.id)]);
  for (const session of [...ids].sort())
    if (!home.blocked.has(session)) findings.push(...checkSession(ctx, session, repair));
  const ok = findings.every((f) => f.repaired !== undefined);
  return { home: ctx.paths.home, sessions: ids.size, findings, ok };
}

function checkSession(ctx: MemoryContext, session: string, repair: boolean): DoctorFinding[] {
  try {
    refuseSessionSymlinks(ctx.paths.session(session));
  } catch (err) {
    return [deniedFinding(session, err) ?? symlinkFinding(session, err)];
  }
  const dir = ctx.paths.session(session);
  // Under the writer lock every history.json temp file of another process is stale (see staleTempFiles).
  const remove = () => withHomeLock(ctx, () => removeStaleTempFiles(dir, UNDER_HOME_LOCK), session);
  return [
    ...tempFileFindings(dir, session, repair, remove),
    ...folderInTheWay(session, () => checkHistory(ctx, session, repair)),
    ...folderInTheWay(session, () => summaryFindings(ctx, session)),
  ];
}

/**
 * A folder where the session keeps a file (history.json, summary.json, the cursor), or such a file this user may not
 * read (another owner, mode 000), is a finding of its own: the other sessions are checked all the same.
 */
function folderInTheWay(session: string, check: () => DoctorFinding[]): DoctorFinding[] {
  try {
    return check();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const denied = deniedFinding(session, err);
    if (denied) return [denied];
    if (e.code !== "EISDIR" || typeof e.path !== "string") throw err;
    return [{ session, problem: describeError(err), manual: true }];
  }
}

/** A session file or folder this user may not read (another owner, mode 000): what to do about it. */
function deniedFinding(session: string, err: unknown): DoctorFinding | undefined {
  const e = err as NodeJS.ErrnoException;
  if ((e.code !== "EACCES" && e.code !== "EPERM") || typeof e.path !== "string") return undefined;
  const problem = `${e.path} cannot be read by this user (permission denied): give its folder and files back to the user running memvoy (folders 0700, files 0600)`;
  return { session, problem, manual: true };
}

/** A symbolic link met in a session folder, or a folder that is another session's (rethrows any other error). */
export function symlinkFinding(session: string, err: unknown): DoctorFinding {
  if (err instanceof NotAFileError) return { session, problem: err.message, manual: true };
  if (err instanceof SessionFolderAliasError) return { session, problem: err.message, manual: true };
  if (!(err instanceof SymlinkRefusedError)) throw err;
  return {
    session,
    problem: `${err.data.path} is a symbolic link: memvoy does not follow it; replace it with the real file or folder`,
    manual: true,
  };
}

/** Temp files a writer that died left in a session folder; removed with `repair` (by `remove`). */
export function tempFileFindings(
  dir: string,
  session: string,
  repair: boolean,
  remove = () => removeStaleTempFiles(dir),
): DoctorFinding[] {
  const temps = staleTempFiles(dir);
  if (temps.length === 0) return [];
  const f: DoctorFinding = {
    session,
    problem: `${temps.length} temp file(s) left by a writer that died: ${temps.join(", ")}`,
  };
  if (repair) f.repaired = `removed ${remove().length} temp file(s)`;
  return [f];
}

function checkHistory(ctx: MemoryContext, session: string, repair: boolean): DoctorFinding[] {
  const file = ctx.paths.history(session);
  try {
    const problems = historyProblems(reconcileHistory(ctx, session, readHistory(file), file), existsSync(file));
    if (problems.length === 0) return [];
    const f: DoctorFinding = { session, problem: problems.join("; ") };
    if (repair) f.repaired = describeRepair(adoptHistory(ctx, session));
    return [f];
  } catch (err) {
    if (!(err instanceof CorruptHistoryError)) throw err;
    const f: DoctorFinding = { session, problem: describeCorruption(err.data) };
    if (unreadable(file) && countSessionMessages(ctx.db, session) === 0) {
      // A file memvoy never read (Agenvoy's, or one copied in): the archive has no copy to rebuild it from.
      f.problem += `; the archive holds none of the session's messages, so a rebuild would leave it empty: correct the file by hand, or move it away to start the session empty`;
      f.manual = true;
      return [f];
    }
    if (repair) f.repaired = repairCorrupt(ctx, session, file);
    return [f];
  }
}

/** What differs between history.json and the archive, in words. */
function historyProblems(c: Reconciled, exists: boolean): string[] {
  const out: string[] = [];
  if (c.unseen.length > 0) out.push(`history.json holds ${c.unseen.length} message(s) the archive lacks`);
  if (c.tombstoned.length > 0)
    out.push(`history.json holds ${c.tombstoned.length} removed message(s) (${listSome(c.tombstoned)})`);
  if (c.tombstonedCopies > 0) out.push(`history.json holds ${c.tombstonedCopies} removed message(s) without an id`);
  if (c.restored > 0)
    out.push(
      `${exists ? "history.json lacks" : "history.json is missing;"} ${c.restored} recent message(s) the archive holds`,
    );
  if (c.dropped > 0)
    out.push(
      exists
        ? `history.json no longer holds ${c.dropped} message(s) of the context window (another program removed them; the archive keeps them)`
        : `history.json was deleted by another program: ${c.dropped} message(s) leave the context window (the archive keeps them)`,
    );
  if (out.length === 0 && c.changed) out.push("history.json differs from the archive's recent messages");
  return out;
}

function describeRepair(c: Reconciled): string {
  const done: string[] = [];
  if (c.unseen.length > 0) done.push(`archived ${c.unseen.length} message(s)`);
  const removed = c.tombstoned.length + c.tombstonedCopies;
  if (removed > 0) done.push(`left out ${removed} removed message(s)`);
  if (c.restored > 0) done.push(`put back ${c.restored} recent message(s) from the archive`);
  if (c.dropped > 0) done.push(`moved ${c.dropped} message(s) out of the context window (the archive keeps them)`);
  if (!c.changed) return done.join(", ");
  return `rewrote history.json${done.length > 0 ? `: ${done.join(", ")}` : " as the archive has it"}`;
}

/** history.json is not JSON memvoy can read (as opposed to one that repeats an id). */
function unreadable(file: string): boolean {
  try {
    readHistoryRepeats(file, () => {});
    return false;
  } catch (err) {
    if (err instanceof CorruptHistoryError) return true;
    throw err;
  }
}

/**
 * A corrupt history.json that parses (an id repeated, or ids of another session's messages: a copied folder) is
 * rewritten as the archive has it plus its records the archive lacks: the first record of a repeated id kept, the
 * others dropped, and another session's ids replaced by new ones here. Any other is moved aside (rebuild).
 */
function repairCorrupt(ctx: MemoryContext, session: string, file: string): string {
  const repeats: RepeatedId[] = [];
  const read = (f: string) => {
    repeats.length = 0;
    return readHistoryRepeats(f, (r) => repeats.push(r));
  };
  try {
    read(file);
  } catch (err) {
    if (!(err instanceof CorruptHistoryError)) throw err;
    return rebuild(ctx, session, file);
  }
  const c = adoptHistory(ctx, session, { read, renewForeign: true });
  const done: string[] = [];
  if (repeats.length > 0) done.push(`dropped ${listSome(repeats.map((r) => `record ${r.record} (${repeatText(r)})`))}`);
  if (c.renewed.length > 0) {
    const sessions = [...new Set(c.renewed.map((r) => JSON.stringify(r.session)))].join(", ");
    done.push(`gave ${c.renewed.length} message(s) copied from session ${sessions} new ids`);
  }
  return [...done, describeRepair(c)].filter((d) => d !== "").join("; ");
}

/** Move the bad file aside and write history.json again from the archive's recent rows. */
function rebuild(ctx: MemoryContext, session: string, corrupt: string): string {
  return withHomeLock(
    ctx,
    () => {
      let aside = "";
      if (existsSync(corrupt)) {
        aside = `${corrupt}.corrupt-${nsToRfc3339(ctx.now()).replace(/[:.]/g, "")}`;
        renameSync(corrupt, aside);
        forgetHistoryCache(corrupt);
      }
      const recent = withWriteLock(ctx.db, () => {
        const rows = listSessionMessages(ctx.db, session, { recentOnly: true });
        // Written in the bad file's style (or, with no file or none its text tells, the session's last one):
        // Agenvoy's reader takes only integer sendAt.
        const told = aside ? historyStyleOfText(aside) : undefined;
        const style = (told ?? historyStyleOf(ctx.db, session)) === "ns" ? "ns" : undefined;
        const staged = stageHistory(ctx.paths.history(session), rows.map(toRecord), style);
        saveHistoryStamp(ctx.db, session, staged.stamp());
        saveHistoryStyle(ctx.db, session, style ?? "rfc3339");
        return { rows, staged };
      });
      recent.staged.commit();
      return `${aside ? `moved the bad file to ${aside}; ` : ""}rebuilt history.json with ${recent.rows.length} message(s) from the archive`;
    },
    session,
  );
}
