// history.json against the archive (SQLite is the journal), for every path that adopts records from the file or
// rewrites it: the file holds the session's recent rows in order, then the records the archive has never seen
// (to adopt). A record removed once (tombstoned), moved out by compaction or being removed is left out. The file's
// other writer decides what the context window holds: recent rows it dropped (Agenvoy trimming its oldest messages,
// pruning exchanges between others, emptying the list or deleting the file on a reset) leave the recent tier for
// the archive, while rows it lacks after the last one it still holds (a write memvoy made since that program
// loaded its list, a file put back from an older copy, a write that died before its rename) are put back. A record
// with another session's message id (a copied session folder) is refused: the file is reported as corrupt, and
// doctor --repair gives such records new ids in this session.
import { lstatSync } from "node:fs";
import { newId } from "../shared/ids.ts";
import type { MessageRecord, StoredMessage } from "../shared/message.ts";
import { CorruptHistoryError, markHistoryChecked, type HistoryDoc } from "../storage/history/history-file.ts";
import {
  archiveBefore,
  archiveMessages,
  archivedAtTimes,
  getMessagesById,
  listSessionMessages,
  pendingRemovalIds,
  recentTierEnds,
  sessionsOfIds,
} from "../storage/sqlite/messages-repo.ts";
import { tombstonedContents, tombstonedIds } from "../storage/sqlite/tombstones-repo.ts";
import type { MemoryContext } from "./memory-context.ts";

export interface Reconciled {
  /** What history.json should hold: the file's own records when nothing differs. */
  records: MessageRecord[];
  /** Of `records`, those the archive lacks (a record without an id is given one). */
  unseen: MessageRecord[];
  /** Ids of removed messages (tombstoned) the file held: left out. */
  tombstoned: string[];
  /** Records without an id that are copies of removed messages (by role, time, sender and text): left out. */
  tombstonedCopies: number;
  /** Recent rows of the archive the file lacked: put back. */
  restored: number;
  /**
   * Recent rows the file's writer dropped (from its front, all of them for a list emptied or a file deleted, or
   * between rows it kept): they leave the recent tier for the archive alone (`leaveWindow`). The tier starts at
   * `from` once those of the front left it; `pruned` are the seqs of the others.
   */
  dropped: number;
  from?: { seq: bigint; sendAt: bigint };
  pruned: bigint[];
  /** Records that had another session's message id (`renewForeign`): given new ids, they are in `unseen`. */
  renewed: { id: string; session: string }[];
  /** Whether `records` differ from the file's (messages, order, text, or a legacy form to normalise). */
  changed: boolean;
}

export interface ReconcileOptions {
  quick?: boolean;
  renewForeign?: boolean;
  /**
   * The file is memvoy's own older copy (a writer died holding the lock: its first write, or its first after a
   * reset), or its session folder was made anew: a file that holds none of the recent rows gets them all back.
   */
  restoreAll?: boolean;
}

export const toRecord = (m: StoredMessage): MessageRecord =>
  m.sender !== undefined
    ? { id: m.id, role: m.role, content: m.content, sendAt: m.sendAt, sender: m.sender }
    : { id: m.id, role: m.role, content: m.content, sendAt: m.sendAt };

/** `r` with what the file's record `from` kept beside memvoy's fields (see MessageRecord.kept). */
function keptBy(r: MessageRecord, from: MessageRecord | undefined): MessageRecord {
  if (from?.kept) r.kept = from.kept;
  return r;
}

/**
 * Reconcile `doc` (history.json as read) with the archive. With `quick` (the write path), a file this process
 * wrote or checked, or whose record count and first and last ids are the recent tier's, is taken as it is: only
 * a file changed behind memvoy's back (put back from a backup, edited, copied) is compared record by record.
 */
export function reconcileHistory(
  ctx: MemoryContext,
  session: string,
  doc: HistoryDoc,
  file: string,
  o: ReconcileOptions = {},
): Reconciled {
  if (o.quick && !doc.legacy && (doc.checked || matchesRecentTier(ctx, session, doc))) {
    markHistoryChecked(file, doc);
    return {
      records: doc.records,
      unseen: [],
      tombstoned: [],
      tombstonedCopies: 0,
      restored: 0,
      dropped: 0,
      pruned: [],
      renewed: [],
      changed: false,
    };
  }
  const removing = pendingRemovalIds(ctx.db, session); // rm-message under way: never brought back
  const recent = listSessionMessages(ctx.db, session, { recentOnly: true }).filter((m) => !removing.has(m.id));
  const recentIds = new Set(recent.map((m) => m.id));
  const others = doc.records.filter((r) => r.id !== "" && !recentIds.has(r.id)).map((r) => r.id);
  const owners = sessionsOfIds(ctx.db, others); // this session's: compacted, or being removed
  const renewed = doc.records.flatMap((r) => {
    const owner = recentIds.has(r.id) ? undefined : owners.get(r.id);
    return owner !== undefined && owner !== session ? [{ id: r.id, session: owner }] : [];
  });
  if (renewed.length > 0 && !o.renewForeign) throw foreignRecords(file, doc, renewed);
  const foreign = new Set(renewed.map((r) => r.id));
  const dead = tombstonedIds(
    ctx.db,
    others.filter((id) => !owners.has(id)),
  );
  const inFile = new Set(doc.records.map((r) => r.id));
  const adopted = adoptedRows(recent, inFile);
  // A record with no time of its own (Agenvoy before sendAt) is given one from its neighbours or the file's mtime,
  // which a rewrite of the file changes: it is also that row when role, sender and text agree (each row once).
  const untimed = doc.records.some((r) => r.id === "" && r.untimed) ? adoptedRows(recent, inFile, textKey) : undefined;
  const taken = new Set<string>();
  // The file's record standing for each recent row: what its writer kept beside memvoy's fields goes back with it.
  const standsFor = new Map<string, MessageRecord>();
  for (const r of doc.records) if (r.kept && recentIds.has(r.id)) standsFor.set(r.id, r);
  const take = (rows: Map<string, string[]> | undefined, r: MessageRecord, key: string) => {
    const ids = rows?.get(key);
    while (ids?.length) {
      const id = ids.shift()!;
      if (taken.has(id)) continue;
      if (r.kept) standsFor.set(id, r);
      return taken.add(id);
    }
    return false;
  };
  // Exact matches first, so that a record with no time never takes a row another record is exactly.
  const unmatched = doc.records.filter((r) => r.id === "" && !take(adopted, r, recordKey(r)));
  const loose = unmatched.filter((r) => !(r.untimed && take(untimed, r, textKey(r))));
  const held = taken.size; // recent rows the file holds without their ids
  const known = knownCopies(ctx, session, loose, recent, removing, inFile);
  const fresh = new Set(loose.filter((r) => !known.archived.has(r) && !known.removed.has(r)));
  const unseen: MessageRecord[] = [];
  for (const r of doc.records) {
    if (r.id === "" ? fresh.has(r) : foreign.has(r.id)) unseen.push({ ...r, id: newId(Number(r.sendAt / 1_000_000n)) });
    else if (r.id !== "" && !recentIds.has(r.id) && !owners.has(r.id) && !dead.has(r.id)) unseen.push(r);
  }
  // A session folder removed whole (by hand, or the home moved away), or a file with no text (caught between the
  // truncation and the write of a writer that rewrites it in place), is no other writer's choice of window.
  const all =
    o.restoreAll === true || doc.blank === true || (doc.stamp === undefined && !isFolder(ctx.paths.session(session)));
  const holds = (m: StoredMessage) => inFile.has(m.id) || taken.has(m.id);
  const start = windowStart(recent, holds, doc.records, all);
  // Rows the file lacks between the first and the last one it holds were removed by its writer (Agenvoy's
  // /memory compact keeps the exchanges it judges worth it): they leave the window too.
  const pruned = all ? [] : prunedRows(recent, holds);
  const kept = start > 0 || pruned.length > 0 ? recent.slice(start).filter((m) => !pruned.includes(m)) : recent;
  const records = kept.map((m) => keptBy(toRecord(m), standsFor.get(m.id))).concat(unseen);
  const changed = doc.legacy || start > 0 || pruned.length > 0 || !sameRecords(records, doc.records);
  if (!changed && unseen.length === 0) markHistoryChecked(file, doc);
  const c: Reconciled = {
    records: changed ? records : doc.records,
    unseen,
    tombstoned: [...dead],
    tombstonedCopies: known.removed.size,
    restored: kept.filter((m) => !inFile.has(m.id)).length - held,
    dropped: start + pruned.length,
    pruned: pruned.map((m) => m.seq),
    renewed,
    changed,
  };
  if (start > 0) c.from = windowFrom(recent, start);
  return c;
}

/** The recent rows the file lacks between the first and the last one it holds. */
function prunedRows(recent: readonly StoredMessage[], holds: (m: StoredMessage) => boolean): StoredMessage[] {
  const first = recent.findIndex(holds);
  if (first < 0) return [];
  let last = recent.length - 1;
  while (!holds(recent[last]!)) last--;
  return recent.slice(first, last + 1).filter((m) => !holds(m));
}

/**
 * The index of the first recent row the window keeps: the first one the file holds, when it holds any (those before
 * it were dropped by the file's writer). A file holding none of them was emptied (or deleted), maybe with turns
 * added since: rows older than its oldest record leave the window, and a newer one (memvoy's write since that
 * writer loaded an empty list) stays.
 */
function windowStart(
  recent: readonly StoredMessage[],
  holds: (m: StoredMessage) => boolean,
  records: readonly MessageRecord[],
  restoreAll: boolean,
): number {
  const first = recent.findIndex(holds);
  if (first >= 0) return first;
  if (restoreAll || recent.length === 0) return 0;
  if (records.length === 0) return recent.length;
  let oldest = records[0]!.sendAt;
  for (const r of records) if (r.sendAt < oldest) oldest = r.sendAt;
  const newer = recent.findIndex((m) => m.sendAt >= oldest);
  return newer < 0 ? recent.length : newer;
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Where the recent tier starts once `recent`'s first `start` rows left it (past the last row when all did). */
function windowFrom(recent: readonly StoredMessage[], start: number): { seq: bigint; sendAt: bigint } {
  const next = recent[start];
  if (next) return { seq: next.seq, sendAt: next.sendAt };
  let last = recent[0]!.sendAt;
  for (const m of recent) if (m.sendAt > last) last = m.sendAt;
  return { seq: recent[recent.length - 1]!.seq + 1n, sendAt: last + 1n };
}

/**
 * Apply what `reconcileHistory` found the file's writer dropped: those rows leave the recent tier (their vectors
 * go, as compaction's do); the archive keeps them. Run in the write transaction that writes the file's records.
 */
export function leaveWindow(ctx: MemoryContext, session: string, c: Reconciled, now: bigint): void {
  archiveMessages(ctx.db, session, c.pruned, now);
  if (c.from) archiveBefore(ctx.db, session, c.from.seq, c.from.sendAt, now);
}

const recordKey = (r: { role: string; content: string; sendAt: bigint; sender?: string }) =>
  JSON.stringify([r.role, r.sendAt.toString(), r.sender ?? null, r.content]);
const textKey = (r: { role: string; content: string; sender?: string }) =>
  JSON.stringify([r.role, r.sender ?? null, r.content]);

/**
 * Recent rows the file lacks, by role, time, sender and text: a record without an id equal to one of them is that
 * row, adopted by a writer that died before its rename put the ids into the file (each row stands for one record).
 */
function adoptedRows(
  recent: readonly StoredMessage[],
  inFile: ReadonlySet<string>,
  key: (m: StoredMessage) => string = recordKey,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of recent) {
    if (inFile.has(m.id)) continue;
    const k = key(m);
    const ids = out.get(k);
    if (ids) ids.push(m.id);
    else out.set(k, [m.id]);
  }
  return out;
}

/**
 * Of the file's records without an id that no recent row stands for, those the archive holds already (archived
 * rows of the same role, time, sender and text, one record each: Agenvoy writing back a list it loaded before
 * memvoy's compaction, or a write that died between its archive commit and its rename) and those that are copies
 * of a message removed once or being removed (Agenvoy writing back a list it loaded before rm-message or reset).
 */
function knownCopies(
  ctx: MemoryContext,
  session: string,
  loose: readonly MessageRecord[],
  recent: readonly StoredMessage[],
  removing: ReadonlySet<string>,
  inFile: ReadonlySet<string>,
): { archived: Set<MessageRecord>; removed: Set<MessageRecord> } {
  const archived = new Set<MessageRecord>();
  const removed = new Set<MessageRecord>();
  if (loose.length === 0) return { archived, removed };
  // Only a record older than the newest recent row can be an archived one: Agenvoy's new turns, newer than every
  // row, spare the look-up (it reads the session's rows).
  let newest: bigint | undefined;
  for (const m of recent) if (newest === undefined || m.sendAt > newest) newest = m.sendAt;
  const older = newest === undefined ? loose : loose.filter((r) => r.sendAt <= newest);
  const rows = archivedAtTimes(
    ctx.db,
    session,
    older.map((r) => r.sendAt),
  );
  const dying = new Set(
    getMessagesById(ctx.db, [...removing])
      .filter((m) => m.session === session)
      .map(recordKey),
  );
  const stored = adoptedRows(
    rows.filter((m) => !removing.has(m.id)),
    inFile,
  );
  for (const r of loose) {
    const k = recordKey(r);
    if (dying.has(k)) removed.add(r);
    else if (stored.get(k)?.pop() !== undefined) archived.add(r);
  }
  const rest = loose.filter((r) => !archived.has(r) && !removed.has(r));
  for (const r of tombstonedContents(ctx.db, session, rest)) removed.add(r);
  return { archived, removed };
}

/** "FILE is corrupt (records 1, 2: ids of session "a"'s messages (X, Y): …)": never taken, never dropped unseen. */
function foreignRecords(file: string, doc: HistoryDoc, foreign: { id: string; session: string }[]) {
  const ids = new Set(foreign.map((r) => r.id));
  const numbers = doc.records.flatMap((r, i) => (ids.has(r.id) ? [i + 1] : []));
  const sessions = [...new Set(foreign.map((r) => JSON.stringify(r.session)))].join(", ");
  return new CorruptHistoryError({
    file,
    where: `record${numbers.length > 1 ? "s" : ""} ${listSome(numbers)}`,
    detail: `ids of session ${sessions}'s messages (${listSome([...ids])}): a copied session folder?`,
  });
}

/** The first three, then "…". */
export const listSome = (items: readonly (string | number)[]) =>
  items.length > 3 ? `${items.slice(0, 3).join(", ")}, …` : items.join(", ");

function matchesRecentTier(ctx: MemoryContext, session: string, doc: HistoryDoc): boolean {
  const tier = recentTierEnds(ctx.db, session);
  const n = doc.records.length;
  return tier.count === n && (n === 0 || (tier.first === doc.records[0]!.id && tier.last === doc.records[n - 1]!.id));
}

function sameRecords(a: readonly MessageRecord[], b: readonly MessageRecord[]): boolean {
  return (
    a.length === b.length &&
    a.every((r, i) => {
      const f = b[i]!;
      return (
        r.id === f.id && r.role === f.role && r.content === f.content && r.sendAt === f.sendAt && r.sender === f.sender
      );
    })
  );
}
