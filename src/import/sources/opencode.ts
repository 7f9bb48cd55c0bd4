// opencode: the SQLite database $XDG_DATA_HOME/opencode/opencode.db (opencode-<channel>.db for builds of other channels;
// $OPENCODE_DB overrides), opened read-only, and the legacy JSON storage .../opencode/storage/ (opencode-legacy.ts).
// Sessions, their messages and text parts.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ForeignDatabaseError, type ForeignDatabase } from "../../app/import-api.ts";
import type { ImportTarget } from "../../app/import-target.ts";
import { describeError } from "../../shared/describe-error.ts";
import { namedError } from "../../shared/errors.ts";
import { NotThisFormatError } from "../import-types.ts";
import type { FileRead, Problem, ReadContext, Source } from "../import-types.ts";
import { isObject, tryJson } from "../read-lines.ts";
import { homeOf } from "../source-files.ts";
import {
  databasesIn,
  type Found,
  isDone,
  PREFIX,
  partText,
  type Rec,
  ready,
  toMessage,
  toSession,
} from "./opencode-common.ts";
import { forkOrigin, type ForkCandidate } from "./opencode-forks.ts";
import { legacySessions, legacyStamp, readLegacy } from "./opencode-legacy.ts";

/** opencode's database could not be read; `reason` is SQLite's words. Nothing was imported from it. */
export const OpencodeDatabaseError = namedError<{ file: string; reason: string }>(
  "OpencodeDatabaseError",
  "runtime",
  (d) => `${d.file}: cannot read the opencode database (${d.reason}); nothing was imported from it`,
);
export type OpencodeDatabaseError = InstanceType<typeof OpencodeDatabaseError>;

function dataDir(env: Record<string, string | undefined>): string {
  return join(env.XDG_DATA_HOME || join(homeOf(env), ".local", "share"), "opencode");
}

/** opencode's database (or the channel databases) and its legacy storage, where opencode keeps them. */
export function opencodeDefaultPaths(env: Record<string, string | undefined>): string[] {
  const dir = dataDir(env);
  // opencode reads a relative $OPENCODE_DB from its data folder.
  const named = env.OPENCODE_DB;
  const found = named ? [isAbsolute(named) ? named : join(dir, named)] : databasesIn(dir);
  return [...(found.length > 0 ? found : [join(dir, "opencode.db")]), join(dir, "storage")];
}

/** The opencode source needs the HomeMemory to open the foreign database through the storage layer. */
export function opencode(api: ImportTarget): Source {
  return {
    name: "opencode",
    prefix: PREFIX,
    defaultPaths: opencodeDefaultPaths,
    files: opencodeFiles,
    appendOnly: () => false,
    read: (ctx) =>
      ctx.file.endsWith(".json") ? readLegacy(ctx, (dir, id) => heldByDatabase(api, dir, id)) : readDatabase(api, ctx),
    stamp: (file) => (file.endsWith(".json") ? legacyStamp(file) : databaseStamp(file)),
  };
}

/** The databases and legacy session files at `path` (a database, opencode's data folder or its storage/). */
export function opencodeFiles(path: string): string[] {
  const st = statSync(path);
  if (st.isFile()) return [path];
  const found = databasesIn(path);
  if (found.length > 0) return [...found, ...legacySessions(join(path, "storage"))];
  return legacySessions(path);
}

/**
 * The session ids of each database, while it is unchanged (a pass over the legacy storage asks once per session).
 * One that cannot be read (locked, damaged: reported when it is read itself) holds none, and is not tried again.
 */
const sessionIds = new Map<string, { stamp: string; ids: Set<string> }>();

/** Whether a database in opencode's data folder holds the session. */
function heldByDatabase(api: ImportTarget, dataDir: string, sessionId: string): boolean {
  for (const file of databasesIn(dataDir)) {
    const st = databaseStamp(file);
    const stamp = `${st.size}:${st.mtimeNs}`;
    let known = sessionIds.get(file);
    if (known?.stamp !== stamp) {
      known = { stamp, ids: databaseSessions(api, file) };
      sessionIds.set(file, known);
    }
    if (known.ids.has(sessionId)) return true;
  }
  return false;
}

function databaseSessions(api: ImportTarget, file: string): Set<string> {
  try {
    const db = api.imports.openForeign(file);
    try {
      return new Set(db.tables().has("session") ? db.all("SELECT id FROM session").map((r) => String(r.id)) : []);
    } finally {
      db.close();
    }
  } catch {
    return new Set();
  }
}

/** Writes land in the WAL first: the database changed when either file did. */
function databaseStamp(file: string): { size: number; mtimeNs: bigint } {
  const db = statSync(file, { bigint: true });
  let size = db.size;
  let mtime = db.mtimeNs;
  if (existsSync(`${file}-wal`)) {
    const wal = statSync(`${file}-wal`, { bigint: true });
    size += wal.size;
    if (wal.mtimeNs > mtime) mtime = wal.mtimeNs;
  }
  return { size: Number(size), mtimeNs: mtime };
}

function readDatabase(api: ImportTarget, ctx: ReadContext): FileRead {
  let db: ForeignDatabase;
  try {
    db = api.imports.openForeign(ctx.file);
  } catch (err) {
    throw unreadable(ctx.file, err);
  }
  try {
    let tables: Set<string>;
    try {
      tables = db.tables();
    } catch (err) {
      throw unreadable(ctx.file, err);
    }
    if (!tables.has("session") || !tables.has("message") || !tables.has("part")) {
      throw new NotThisFormatError({
        file: ctx.file,
        expected: "an opencode database",
        because: "no session, message and part tables",
      });
    }
    // Everything is read in one snapshot before anything is written: a locked or changing database is never half-imported.
    // After a first pass only messages updated since (minus a minute of slack) are read; ids skip what is known.
    const incremental =
      db.columns("message").has("time_updated") &&
      db.columns("part").has("time_updated") &&
      typeof ctx.prior.updatedMs === "number";
    const since = incremental ? (ctx.prior.updatedMs as number) - 60_000 : 0;
    const order = db.columns("message").has("time_created") ? "time_created, id" : "id";
    let rows: {
      sessions: Rec[];
      messages: Rec[];
      parts: Rec[];
      present: Rec[];
      updated: number;
      origins: { messages: Rec[]; parts: Rec[] };
    };
    try {
      rows = db.snapshot(() => {
        const changed = incremental
          ? "WHERE time_updated >= ?1 OR id IN (SELECT message_id FROM part WHERE time_updated >= ?1)"
          : "";
        const args = incremental ? [since] : [];
        const sessions = db.all(
          `SELECT * FROM session ORDER BY ${db.columns("session").has("time_created") ? "time_created, " : ""}id`,
        );
        const messages = db.all(`SELECT * FROM message ${changed} ORDER BY ${order}`, ...args);
        // A fork's copies are matched with the messages they were copied from, which a later pass has not read:
        // those with the copies' times are read too.
        const early = incremental ? copiedTimes(sessions, messages) : [];
        const origin =
          "CASE WHEN json_valid(data) THEN json_extract(data, '$.time.created') END IN (SELECT value FROM json_each(?1))";
        return {
          sessions,
          messages,
          parts: db.all(
            `SELECT * FROM part ${incremental ? `WHERE message_id IN (SELECT id FROM message ${changed})` : ""} ORDER BY id`,
            ...args,
          ),
          // Every message the sessions read still hold, to tell which ones opencode deleted since (an /undo
          // followed by a new prompt deletes the undone turns).
          present: incremental
            ? db.all(
                `SELECT * FROM message WHERE session_id IN (SELECT session_id FROM message ${changed})${db.columns("session").has("time_updated") ? " OR session_id IN (SELECT id FROM session WHERE time_updated >= ?1)" : ""}`,
                ...args,
              )
            : [],
          updated: db.columns("message").has("time_updated")
            ? Number(db.all("SELECT max(time_updated) AS t FROM message")[0]?.t ?? 0)
            : 0,
          origins:
            early.length === 0
              ? { messages: [], parts: [] }
              : {
                  messages: db.all(`SELECT * FROM message WHERE ${origin}`, JSON.stringify(early)),
                  parts: db.all(
                    `SELECT * FROM part WHERE message_id IN (SELECT id FROM message WHERE ${origin}) ORDER BY id`,
                    JSON.stringify(early),
                  ),
                },
        };
      });
    } catch (err) {
      throw unreadable(ctx.file, err);
    }
    const { sessions } = rows;
    const skipped: Problem[] = [];
    // A row whose data is not a JSON object is skipped and reported by its table and id.
    const data = (table: string, row: Rec): Rec | undefined => {
      const d = typeof row.data === "string" ? tryJson(row.data) : row.data;
      if (isObject(d)) return d;
      skipped.push({ file: ctx.file, reason: `${table} ${String(row.id)}: data is not a JSON object` });
      return undefined;
    };
    const bySession = collect(rows.messages, rows.parts, data);
    const held = new Map<string, { key: string; sendAt: bigint }[]>();
    for (const m of incremental ? rows.present : rows.messages) {
      const d = typeof m.data === "string" ? tryJson(m.data) : m.data;
      const created = isObject(d) ? createdOf(m, d) : Number(m.time_created);
      if (!Number.isFinite(created)) continue;
      const sid = String(m.session_id ?? (isObject(d) ? d.sessionID : ""));
      const one = { key: String(m.id), sendAt: BigInt(Math.round(created)) * 1_000_000n };
      const list = held.get(sid);
      if (list) list.push(one);
      else held.set(sid, [one]);
    }
    const forks = forksIn(sessions, bySession, collect(rows.origins.messages, rows.origins.parts, quiet));
    // A session renamed (or named by opencode's title agent) since, with no new message, is read for its title.
    const renamed = (s: Rec) => typeof s.time_updated === "number" && s.time_updated >= since;
    const wanted = incremental ? sessions.filter((s) => bySession.has(String(s.id)) || renamed(s)) : sessions;
    // A later pass reads only a session's newer messages: its first prompt is among them only when the session is new.
    const whole = (s: Rec) => !incremental || Number(s.time_created) >= since;
    // A fork found in an earlier pass still names the session it came from.
    const knownForks = isObject(ctx.prior.forks) ? (ctx.prior.forks as Record<string, unknown>) : {};
    const parentOf = (s: Rec) => s.parent_id || forks.get(String(s.id))?.parent || knownForks[String(s.id)];
    return {
      sessions: wanted.map((s) => {
        const copies = forks.get(String(s.id))?.copies;
        const own = (bySession.get(String(s.id)) ?? []).filter((x) => !copies?.has(x.msg.key));
        const parent = parentOf(s);
        return {
          ...toSession(String(s.id), s.title, s.directory, parent, ready(own), whole(s)),
          // The database holds the session's whole history: a message imported before and gone from it now was deleted.
          complete: true,
          present: (held.get(String(s.id)) ?? []).filter((m) => !copies?.has(m.key)),
        };
      }),
      skipped,
      state: {
        updatedMs: Math.max(rows.updated, incremental ? (ctx.prior.updatedMs as number) : 0),
        forks: { ...knownForks, ...Object.fromEntries([...forks].map(([id, f]) => [id, f.parent])) },
      },
    };
  } finally {
    db.close();
  }
}

const createdOf = (m: Rec, d: Rec) =>
  isObject(d.time) && typeof d.time.created === "number" ? d.time.created : Number(m.time_created);

/** Rows' data, with nothing reported: the rows read only to match a fork's copies are reported where they are imported. */
const quiet = (_table: string, row: Rec): Rec | undefined => {
  const d = typeof row.data === "string" ? tryJson(row.data) : row.data;
  return isObject(d) ? d : undefined;
};

/** The messages of the rows with their text parts, by session, in the rows' order. */
function collect(
  messages: Rec[],
  parts: Rec[],
  data: (table: string, row: Rec) => Rec | undefined,
): Map<string, Found[]> {
  const textByMessage = new Map<string, string[]>();
  for (const p of parts) {
    const d = data("part", p);
    if (!d) continue;
    const text = partText(d);
    const mid = String(p.message_id ?? d.messageID ?? "");
    if (text === undefined) continue;
    const list = textByMessage.get(mid);
    if (list) list.push(text);
    else textByMessage.set(mid, [text]);
  }
  const bySession = new Map<string, Found[]>();
  for (const m of messages) {
    const d = data("message", m);
    if (!d) continue;
    const msg = toMessage(String(m.id), d, createdOf(m, d), textByMessage.get(String(m.id)));
    if (!msg) continue;
    // An assistant message still being written has no completion time: it waits for a later pass.
    const done = isDone(d.role, d.time);
    const sid = String(m.session_id ?? d.sessionID);
    const list = bySession.get(sid);
    if (list) list.push({ msg, done });
    else bySession.set(sid, [{ msg, done }]);
  }
  return bySession;
}

/** Creation times (ms) of the messages made before their session was: a fork's copies. Sub-agent sessions are no forks. */
function copiedTimes(sessions: Rec[], messages: Rec[]): number[] {
  const made = new Map<string, number>();
  for (const s of sessions) if (!s.parent_id) made.set(String(s.id), Number(s.time_created));
  const out = new Set<number>();
  for (const m of messages) {
    const d = quiet("message", m);
    const at = made.get(String(m.session_id ?? d?.sessionID));
    const created = d ? createdOf(m, d) : Number.NaN;
    if (at !== undefined && created < at) out.add(created);
  }
  return [...out];
}

/** The forks among the sessions read, by opencode session id: the session each came from and its copies' ids. */
function forksIn(
  sessions: Rec[],
  bySession: Map<string, Found[]>,
  origins: Map<string, Found[]>,
): Map<string, { parent: string; copies: Set<string> }> {
  const candidate = (s: Rec): ForkCandidate => {
    const id = String(s.id);
    const list = [...(bySession.get(id) ?? []), ...(origins.get(id) ?? [])];
    return { id, createdMs: Number(s.time_created), messages: list.map((x) => x.msg) };
  };
  const out = new Map<string, { parent: string; copies: Set<string> }>();
  let all: ForkCandidate[] | undefined;
  for (const s of sessions) {
    if (s.parent_id || !bySession.has(String(s.id))) continue;
    const fork = candidate(s);
    const made = BigInt(Math.round(fork.createdMs)) * 1_000_000n;
    if (!fork.messages.some((m) => m.sendAt < made)) continue;
    all ??= sessions.map(candidate);
    const found = forkOrigin(fork, all);
    if (found) out.set(fork.id, found);
  }
  return out;
}

/** The database could not be read: a file that is not SQLite at all is not this format; else SQLite's words. */
function unreadable(file: string, err: unknown): Error {
  if (err instanceof ForeignDatabaseError && err.data.notDatabase)
    return new NotThisFormatError(
      { file, expected: "an opencode database", because: "not an SQLite database" },
      { cause: err },
    );
  const reason = err instanceof ForeignDatabaseError ? err.data.reason : describeError(err);
  return new OpencodeDatabaseError({ file, reason }, { cause: err });
}
