// opencode: the SQLite database $XDG_DATA_HOME/opencode/opencode.db ($OPENCODE_DB overrides), opened read-only,
// and the legacy JSON storage .../opencode/storage/{session,message,part}/. Sessions, their messages and text parts.
import { describeError } from "../../shared/describe-error.ts";
import { namedError } from "../../shared/errors.ts";
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ForeignDatabaseError, type ForeignDatabase } from "../../app/import-api.ts";
import type { ImportTarget } from "../../app/import-target.ts";
import { importedSessionId } from "../../shared/import-id.ts";
import { NotThisFormatError } from "../import-types.ts";
import type { FileRead, ImportedMessage, ImportedSession, Problem, ReadContext, Source } from "../import-types.ts";
import { isObject, readText, tryJson } from "../read-lines.ts";
import { homeOf, listFiles, titleFrom } from "../source-files.ts";

const PREFIX = "oc";

type Rec = Record<string, unknown>;

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

/** The opencode source needs the HomeMemory to open the foreign database through the storage layer. */
export function opencode(api: ImportTarget): Source {
  return {
    name: "opencode",
    prefix: PREFIX,
    defaultPaths: (env) => [env.OPENCODE_DB || join(dataDir(env), "opencode.db"), join(dataDir(env), "storage")],
    files: (path) => {
      const st = statSync(path);
      if (st.isFile()) return [path];
      if (existsSync(join(path, "opencode.db")))
        return [join(path, "opencode.db"), ...legacySessions(join(path, "storage"))];
      return legacySessions(path);
    },
    appendOnly: () => false,
    read: (ctx) => (ctx.file.endsWith(".json") ? readLegacy(ctx) : readDatabase(api, ctx)),
    stamp: (file) => {
      if (file.endsWith(".json")) return legacyStamp(file);
      // Writes land in the WAL first: the database changed when either file did.
      const db = statSync(file, { bigint: true });
      let size = db.size;
      let mtime = db.mtimeNs;
      if (existsSync(`${file}-wal`)) {
        const wal = statSync(`${file}-wal`, { bigint: true });
        size += wal.size;
        if (wal.mtimeNs > mtime) mtime = wal.mtimeNs;
      }
      return { size: Number(size), mtimeNs: mtime };
    },
  };
}

function legacySessions(storage: string): string[] {
  const dir = basename(storage) === "storage" ? join(storage, "session") : storage;
  if (!existsSync(dir)) return [];
  return listFiles(dir, (name) => name.endsWith(".json"));
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
    let rows: { sessions: Rec[]; messages: Rec[]; parts: Rec[]; present: Rec[]; updated: number };
    try {
      rows = db.snapshot(() => {
        const changed = incremental
          ? "WHERE time_updated >= ?1 OR id IN (SELECT message_id FROM part WHERE time_updated >= ?1)"
          : "";
        const args = incremental ? [since] : [];
        return {
          sessions: db.all(
            `SELECT * FROM session ORDER BY ${db.columns("session").has("time_created") ? "time_created, " : ""}id`,
          ),
          messages: db.all(`SELECT * FROM message ${changed} ORDER BY ${order}`, ...args),
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
        };
      });
    } catch (err) {
      throw unreadable(ctx.file, err);
    }
    const { sessions, messages, parts } = rows;
    const skipped: Problem[] = [];
    // A row whose data is not a JSON object is skipped and reported by its table and id.
    const data = (table: string, row: Rec): Rec | undefined => {
      const d = typeof row.data === "string" ? tryJson(row.data) : row.data;
      if (isObject(d)) return d;
      skipped.push({ file: ctx.file, reason: `${table} ${String(row.id)}: data is not a JSON object` });
      return undefined;
    };
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
    const createdOf = (m: Rec, d: Rec) =>
      isObject(d.time) && typeof d.time.created === "number" ? d.time.created : Number(m.time_created);
    const held = new Map<string, { key: string; sendAt: bigint }[]>();
    for (const m of incremental ? rows.present : messages) {
      const d = typeof m.data === "string" ? tryJson(m.data) : m.data;
      const created = isObject(d) ? createdOf(m, d) : Number(m.time_created);
      if (!Number.isFinite(created)) continue;
      const sid = String(m.session_id ?? (isObject(d) ? d.sessionID : ""));
      const one = { key: String(m.id), sendAt: BigInt(Math.round(created)) * 1_000_000n };
      const list = held.get(sid);
      if (list) list.push(one);
      else held.set(sid, [one]);
    }
    for (const m of messages) {
      const d = data("message", m);
      if (!d) continue;
      const created = createdOf(m, d);
      const msg = toMessage(String(m.id), d, created, textByMessage.get(String(m.id)));
      if (!msg) continue;
      // An assistant message still being written has no completion time: it waits for a later pass.
      const done = isDone(d.role, d.time);
      const sid = String(m.session_id ?? d.sessionID);
      const list = bySession.get(sid);
      if (list) list.push({ msg, done });
      else bySession.set(sid, [{ msg, done }]);
    }
    // A session renamed (or named by opencode's title agent) since, with no new message, is read for its title.
    const renamed = (s: Rec) => typeof s.time_updated === "number" && s.time_updated >= since;
    const wanted = incremental ? sessions.filter((s) => bySession.has(String(s.id)) || renamed(s)) : sessions;
    // A later pass reads only a session's newer messages: its first prompt is among them only when the session is new.
    const whole = (s: Rec) => !incremental || Number(s.time_created) >= since;
    return {
      sessions: wanted.map((s) => ({
        ...toSession(
          String(s.id),
          s.title,
          s.directory,
          s.parent_id,
          ready(bySession.get(String(s.id)) ?? []),
          whole(s),
        ),
        // The database holds the session's whole history: a message imported before and gone from it now was deleted.
        complete: true,
        present: held.get(String(s.id)) ?? [],
      })),
      skipped,
      state: { updatedMs: Math.max(rows.updated, incremental ? (ctx.prior.updatedMs as number) : 0) },
    };
  } finally {
    db.close();
  }
}

interface Found {
  msg: ImportedMessage;
  /** False for an assistant message without a completion time: it is still being written. */
  done: boolean;
}

/** Only the last message of a session can still be in progress; an unfinished one followed by others was abandoned. */
const ready = (list: Found[]) => list.filter((x, i) => x.done || i < list.length - 1).map((x) => x.msg);

const isDone = (role: unknown, time: unknown) =>
  role !== "assistant" || (isObject(time) && typeof time.completed === "number");

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

/** The text of a part: `text` parts that were typed or answered (synthetic and ignored ones are injected). */
function partText(d: Rec): string | undefined {
  if (d.type !== "text" || typeof d.text !== "string" || d.synthetic === true || d.ignored === true) return undefined;
  const t = d.text.trim();
  return t === "" ? undefined : t;
}

/** A user or assistant message with text; the summary compaction writes (the conversation retold) is left out. */
function toMessage(id: string, d: Rec, createdMs: number, texts: string[] | undefined): ImportedMessage | undefined {
  const role = d.role;
  if ((role !== "user" && role !== "assistant") || !texts || texts.length === 0 || !Number.isFinite(createdMs))
    return undefined;
  if (role === "assistant" && d.summary === true) return undefined;
  return { key: id, role, content: texts.join("\n\n"), sendAt: BigInt(Math.round(createdMs)) * 1_000_000n };
}

/** The title opencode gives a session until it names one ("New session - <ISO time>", "Child session - …"). */
const PLACEHOLDER_TITLE = /^(?:New [Ss]ession|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

function toSession(
  id: string,
  title: unknown,
  directory: unknown,
  parent: unknown,
  messages: ImportedMessage[],
  whole = true,
): ImportedSession {
  const own =
    typeof title === "string" && title.trim() !== "" && !PLACEHOLDER_TITLE.test(title.trim())
      ? title.trim()
      : undefined;
  const first = whole ? messages.find((m) => m.role === "user") : undefined;
  return {
    id: importedSessionId(PREFIX, id),
    title: own ?? (first ? titleFrom(first.content) : undefined),
    titleIsFallback: own === undefined,
    project: typeof directory === "string" && directory !== "" ? directory : undefined,
    parent: typeof parent === "string" && parent !== "" ? importedSessionId(PREFIX, parent) : undefined,
    messages,
  };
}

/** Legacy storage: session/<projectID>/<sessionID>.json, message/<sessionID>/<messageID>.json, part/<messageID>/<partID>.json. */
function readLegacy(ctx: ReadContext): FileRead {
  const skipped: Problem[] = [];
  const s = tryJson(readText(ctx.file));
  if (!isObject(s) || typeof s.id !== "string")
    throw new NotThisFormatError({ file: ctx.file, expected: "an opencode session file", because: "no id" });
  const storage = dirname(dirname(dirname(ctx.file)));
  const messages: Found[] = [];
  const metas: Rec[] = [];
  for (const f of jsonFiles(join(storage, "message", s.id))) {
    const m = tryJson(readText(f));
    if (isObject(m) && typeof m.id === "string") metas.push(m);
    else skipped.push({ file: f, reason: "not an opencode message" });
  }
  const created = (m: Rec) => (isObject(m.time) && typeof m.time.created === "number" ? m.time.created : NaN);
  metas.sort((a, b) => created(a) - created(b) || String(a.id).localeCompare(String(b.id)));
  for (const m of metas) {
    const texts: string[] = [];
    for (const f of jsonFiles(join(storage, "part", String(m.id)))) {
      const p = tryJson(readText(f));
      if (!isObject(p)) {
        skipped.push({ file: f, reason: "not valid JSON" });
        continue;
      }
      const t = partText(p);
      if (t !== undefined) texts.push(t);
    }
    const msg = toMessage(String(m.id), m, created(m), texts);
    if (msg) messages.push({ msg, done: isDone(m.role, m.time) });
  }
  return { sessions: [toSession(s.id, s.title, s.directory, s.parentID, ready(messages))], skipped };
}

/**
 * A legacy session changed when its file or any of its message and part files did: their sizes summed, the
 * newest mtime. Only stats, so an unchanged session is still skipped without reading anything.
 */
function legacyStamp(file: string): { size: number; mtimeNs: bigint } {
  const storage = dirname(dirname(dirname(file)));
  let size = 0;
  let mtimeNs = 0n;
  const add = (f: string) => {
    const st = statSync(f, { bigint: true, throwIfNoEntry: false });
    if (!st) return;
    size += Number(st.size);
    if (st.mtimeNs > mtimeNs) mtimeNs = st.mtimeNs;
  };
  add(file);
  for (const m of jsonFiles(join(storage, "message", basename(file, ".json")))) {
    add(m);
    for (const p of jsonFiles(join(storage, "part", basename(m, ".json")))) add(p);
  }
  return { size, mtimeNs };
}

function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()
    .map((n) => join(dir, n));
}
