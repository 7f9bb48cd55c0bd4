// Open .store/history.db: WAL, busy timeout, bigint integers, migrations to the current schema version.
import { Database } from "bun:sqlite";
import { basename, dirname } from "node:path";
import { accessSync, chmodSync, constants, statSync } from "node:fs";
import { ensureDir, FILE_MODE } from "../../shared/atomic-write.ts";
import { skipRecentTextCache } from "./recent-text-cache.ts";
import { namedError } from "../../shared/errors.ts";
import { MOVE_IN_PLACE, refuseLink } from "../../shared/no-follow.ts";
import { SCHEMA_VERSION } from "./migrations/schema-version.ts";
import { asNoSpace, freeBytes } from "./no-space.ts";
import { BrokenDatabaseError, isBrokenDatabase } from "./broken-database.ts";
import { upgradeEmptyFts } from "./fts-upgrade.ts";
import { openingRead } from "./schema-shape.ts";
import { rememberDbFile } from "./db-in-place.ts";

export const SchemaTooNewError = namedError<{ path: string; version: number; known: number }>(
  "SchemaTooNewError",
  "runtime",
  (d) => `${d.path} has schema version ${d.version}; this memvoy knows ${d.known}: upgrade memvoy`,
);
export type SchemaTooNewError = InstanceType<typeof SchemaTooNewError>;

export interface OpenDatabaseOptions {
  readonly?: boolean;
  /**
   * A short-lived process (one CLI command): SQLite's default page cache (2 MiB) instead of 64 MiB. Each
   * page a process reads first takes a fresh page of memory; a big cache keeps taking new ones (a page fault
   * each, which costs a fresh process more than reading the page) where a small one reuses its own. The big
   * cache pays off only in a process that reads the same pages again.
   */
  shortLived?: boolean;
  /** false: the database must exist; no folder or file is created (a home deleted meanwhile stays deleted). */
  create?: boolean;
}

/**
 * SQLite could not open the archive because its folder cannot be written (WAL needs its -wal and -shm files): a home
 * that cannot be used, a setting to change (exit 2) as a home that cannot be made.
 */
export const DatabaseNotWritableError = namedError<{
  path: string;
  reason: "read-only" | "permission" | "file-permission";
  /** With file-permission: the file this user may not read or write (the archive, its -wal or its -shm). */
  file?: string;
}>(
  "DatabaseNotWritableError",
  "input",
  (d) =>
    `cannot open ${d.path}: ${d.reason === "read-only" ? "its folder is on a read-only file system" : d.reason === "permission" ? "permission denied on its folder" : `permission denied on ${d.file ?? d.path}`}; memvoy writes to its home, even to read it`,
);
export type DatabaseNotWritableError = InstanceType<typeof DatabaseNotWritableError>;

export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database {
  try {
    const db = open(path, options);
    if (path !== ":memory:") rememberDbFile(db, path);
    return db;
  } catch (err) {
    const broken = isBrokenDatabase(err);
    if (broken) throw new BrokenDatabaseError({ path, detail: broken }, { cause: err });
    const unwritable = path !== ":memory:" && cannotOpen(err) ? folderUnwritable(dirname(path)) : undefined;
    if (unwritable) throw new DatabaseNotWritableError({ path, reason: unwritable }, { cause: err });
    const file = path !== ":memory:" && cannotOpen(err) ? fileDenied(path) : undefined;
    if (file) throw new DatabaseNotWritableError({ path, reason: "file-permission", file }, { cause: err });
    const folder = path !== ":memory:" && cannotOpen(err) ? folderInPlace(path) : undefined;
    // SQLite says only "unable to open database file": describeError names the folder in the way.
    if (folder) throw Object.assign(new Error(`EISDIR: ${folder} is a folder`), { code: "EISDIR", path: folder });
    throw asNoSpace(err, path, `opening ${basename(path)}`);
  }
}

function cannotOpen(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? "");
  return code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_READONLY");
}

/** The archive, its -wal or its -shm when this user may not read and write it. */
function fileDenied(path: string): string | undefined {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM") return file;
    }
  }
  return undefined;
}

/** The archive, its -wal or its -shm when a folder is in its place. */
function folderInPlace(path: string): string | undefined {
  return [path, `${path}-wal`, `${path}-shm`].find((f) => statSync(f, { throwIfNoEntry: false })?.isDirectory());
}

function folderUnwritable(dir: string): "read-only" | "permission" | undefined {
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "EROFS" ? "read-only" : code === "EACCES" || code === "EPERM" ? "permission" : undefined;
  }
}

function open(path: string, options: OpenDatabaseOptions): Database {
  const fresh = path !== ":memory:" && !existsUnlinked(path);
  if (path !== ":memory:" && options.create !== false) ensureDir(dirname(path));
  const db = new Database(path, {
    create: !options.readonly && options.create !== false,
    readonly: options.readonly,
    safeIntegers: true,
    strict: true,
  });
  if (fresh) chmodSync(path, FILE_MODE);
  if (options.readonly) db.run("PRAGMA busy_timeout = 15000");
  else {
    // The connection's settings in one call. secure_delete: deleted rows are overwritten with zeros, and
    // freed pages too, so a removed message leaves no text behind.
    db.run("PRAGMA busy_timeout = 15000; PRAGMA secure_delete = ON; PRAGMA synchronous = NORMAL");
    migrate(db, path, enterWal(db, path));
    upgradeEmptyFts(db);
  }
  if (!options.shortLived) db.run("PRAGMA cache_size = -65536");
  else skipRecentTextCache(db);
  return db;
}

/**
 * Whether the database file exists; a symbolic link at it, its WAL or its shared-memory file is refused
 * (HomeLinkRefusedError): SQLite opens a linked database where the link points, and fails on a linked WAL.
 */
function existsUnlinked(path: string): boolean {
  const exists = refuseLink(path, MOVE_IN_PLACE) !== undefined;
  refuseLink(`${path}-wal`);
  refuseLink(`${path}-shm`);
  return exists;
}

/**
 * Switch a new database to WAL (a setting kept in the file); returns the user_version read with the journal
 * mode (the connection's first read, see openingRead). Two processes opening a fresh home at once can meet
 * here, and SQLite answers SQLITE_BUSY to this switch without calling the busy handler when it would
 * deadlock: wait and try again, as the busy timeout would.
 */
function enterWal(db: Database, path: string): number {
  const deadline = Date.now() + 15_000;
  for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
    try {
      const r = openingRead(db);
      // memvoy sets user_version in the transaction that creates its tables: tables with none are another
      // program's, refused before anything (the journal mode included) is changed in the file.
      if (r.userVersion === 0) refuseForeignSchema(db, path);
      if (r.journalMode !== "wal") db.run("PRAGMA journal_mode = WAL");
      return r.userVersion;
    } catch (err) {
      if ((err as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw err;
      Bun.sleepSync(wait);
    }
  }
}

export function schemaVersion(db: Database): number {
  return Number((db.query("PRAGMA user_version").get() as { user_version: bigint }).user_version);
}

function migrate(db: Database, path: string, current: number): void {
  if (current > SCHEMA_VERSION) {
    throw new SchemaTooNewError({ path, version: current, known: SCHEMA_VERSION });
  }
  if (current === SCHEMA_VERSION) return;
  const { MIGRATIONS } = require("./migrations/index.ts") as typeof import("./migrations/index.ts");
  db.transaction(() => {
    const again = schemaVersion(db); // another process may have migrated meanwhile
    for (let i = again; i < MIGRATIONS.length; i++) db.run(MIGRATIONS[i]!);
    db.run(`PRAGMA user_version = ${MIGRATIONS.length}`);
  }).immediate();
}

/** An Agenvoy archive (or another program's tables) where memvoy's archive belongs: refused, left as it is. */
function refuseForeignSchema(db: Database, path: string): void {
  // The tables and user_version read in one statement (one snapshot): another memvoy making this archive at the same
  // moment commits both at once, after the user_version of 0 the caller read, and its tables are not foreign.
  const r = db
    .query(
      "SELECT u.user_version AS version, EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages') AS found FROM pragma_user_version u",
    )
    .get() as { version: bigint | number; found: bigint | number };
  if (Number(r.found) === 0 || Number(r.version) !== 0) return;
  const foreign = foreignArchiveKind(db);
  db.close();
  throw new BrokenDatabaseError({ path, detail: foreign ?? "another program's tables", foreign: true });
}

/** "an Agenvoy archive" when `messages` has the columns Agenvoy writes (session_id, send_at, role, content). */
export function foreignArchiveKind(db: Database): string | undefined {
  const cols = new Set(
    (db.query("SELECT name FROM pragma_table_info('messages')").all() as { name: string }[]).map((c) => c.name),
  );
  const agenvoy = ["session_id", "send_at", "role", "content"].every((c) => cols.has(c)) && !cols.has("seq");
  return agenvoy ? "an Agenvoy archive" : undefined;
}

/**
 * Copy the WAL into the database and truncate it to zero bytes, so no removed text lingers in old WAL
 * frames. Waits (busy timeout) for readers of an older snapshot; false when it could not finish.
 */
export function checkpointTruncate(db: Database): boolean {
  const r = db.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: bigint | number } | null;
  return !r || Number(r.busy) === 0;
}

/**
 * After a deletion: rewrite the database file (VACUUM), then checkpointTruncate. secure_delete zeroes a deleted
 * cell and a freed page, but when SQLite rebalances a b-tree page it copies the cells it keeps and leaves their
 * old bytes in the page's unused space, so a copy of a row's text can outlive the row there. Only rewriting
 * every page removes such copies. Call outside a transaction; the cost grows with the size of the file. False
 * when either could not finish: the rewrite needs free space of about the file's size, and a full disk must
 * not fail the deletion (committed already) nor every later open that finishes it.
 */
export function scrubDatabase(db: Database): boolean {
  // VACUUM writes a copy of the file (a temp file, then every page into the WAL): a rewrite the disk cannot
  // hold is not started, and one that fails for space is given up (its WAL frames are reused).
  const size = statSync(db.filename, { throwIfNoEntry: false })?.size ?? 0;
  const free = freeBytes(dirname(db.filename));
  let rewritten = free === undefined || free >= 2 * size;
  try {
    if (rewritten) db.run("VACUUM");
  } catch (err) {
    if (asNoSpace(err, db.filename, "") === err) throw err;
    rewritten = false;
  }
  return checkpointTruncate(db) && rewritten;
}
