// opencode's legacy JSON storage, before its SQLite database: storage/session/<projectID>/<sessionID>.json,
// message/<sessionID>/<messageID>.json, part/<messageID>/<partID>.json.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { NotThisFormatError } from "../import-types.ts";
import type { FileRead, Problem, ReadContext } from "../import-types.ts";
import { isObject, readText, tryJson } from "../read-lines.ts";
import { listFiles } from "../source-files.ts";
import { type Found, isDone, partText, type Rec, ready, toMessage, toSession } from "./opencode-common.ts";
import { type ForkCandidate, forkOrigin } from "./opencode-forks.ts";

export function legacySessions(storage: string): string[] {
  const dir = basename(storage) === "storage" ? join(storage, "session") : storage;
  if (!existsSync(dir)) return [];
  return listFiles(dir, (name) => name.endsWith(".json"));
}

/**
 * Legacy storage: session/<projectID>/<sessionID>.json, message/<sessionID>/<messageID>.json, part/<messageID>/<partID>.json.
 * `held` tells whether a database in opencode's data folder holds the session: opencode copied the storage into it
 * when it moved to SQLite and reads only the database since (the storage, left in place, is an old copy).
 */
export function readLegacy(ctx: ReadContext, held: (dataDir: string, sessionId: string) => boolean): FileRead {
  const skipped: Problem[] = [];
  const s = tryJson(readText(ctx.file));
  if (!isObject(s) || typeof s.id !== "string")
    throw new NotThisFormatError({ file: ctx.file, expected: "an opencode session file", because: "no id" });
  const storage = dirname(dirname(dirname(ctx.file)));
  if (held(dirname(storage), s.id)) return { sessions: [], skipped };
  const messages = legacyMessages(storage, s.id, skipped);
  const fork = s.parentID ? undefined : legacyForkOrigin(ctx.file, s, messages);
  const own = fork ? messages.filter((x) => !fork.copies.has(x.msg.key)) : messages;
  return {
    sessions: [toSession(s.id, s.title, s.directory, s.parentID ?? fork?.parent, ready(own))],
    skipped,
  };
}

const createdMs = (m: Rec) => (isObject(m.time) && typeof m.time.created === "number" ? m.time.created : NaN);

/** A legacy session's messages with their text parts, in time order; problems go to `skipped` when given. */
function legacyMessages(storage: string, sessionId: string, skipped?: Problem[]): Found[] {
  const messages: Found[] = [];
  const metas: Rec[] = [];
  for (const f of jsonFiles(join(storage, "message", sessionId))) {
    const m = tryJson(readText(f));
    if (isObject(m) && typeof m.id === "string") metas.push(m);
    else skipped?.push({ file: f, reason: "not an opencode message" });
  }
  metas.sort((a, b) => createdMs(a) - createdMs(b) || String(a.id).localeCompare(String(b.id)));
  for (const m of metas) {
    const texts: string[] = [];
    for (const f of jsonFiles(join(storage, "part", String(m.id)))) {
      const p = tryJson(readText(f));
      if (!isObject(p)) {
        skipped?.push({ file: f, reason: "not valid JSON" });
        continue;
      }
      const t = partText(p);
      if (t !== undefined) texts.push(t);
    }
    const msg = toMessage(String(m.id), m, createdMs(m), texts);
    if (msg) messages.push({ msg, done: isDone(m.role, m.time) });
  }
  return messages;
}

/** A legacy fork's origin: the earlier session of the same project its copies came from (session/<projectID>/). */
function legacyForkOrigin(
  file: string,
  s: Rec,
  messages: Found[],
): { parent: string; copies: Set<string> } | undefined {
  const fork: ForkCandidate = { id: String(s.id), createdMs: createdMs(s), messages: messages.map((x) => x.msg) };
  const made = BigInt(Math.round(fork.createdMs || 0)) * 1_000_000n;
  if (!Number.isFinite(fork.createdMs) || !fork.messages.some((m) => m.sendAt < made)) return undefined;
  const storage = dirname(dirname(dirname(file)));
  const others: ForkCandidate[] = [];
  for (const f of jsonFiles(dirname(file))) {
    if (f === file) continue;
    try {
      const o = tryJson(readText(f));
      if (!isObject(o) || typeof o.id !== "string" || !(createdMs(o) < fork.createdMs)) continue;
      others.push({ id: o.id, createdMs: createdMs(o), messages: legacyMessages(storage, o.id).map((x) => x.msg) });
    } catch {
      // another session that cannot be read is no origin; it is reported when it is imported itself
    }
  }
  return forkOrigin(fork, others);
}

/**
 * A legacy session changed when its file or any of its message and part files did: their sizes summed, the
 * newest mtime. Only stats, so an unchanged session is still skipped without reading anything.
 */
export function legacyStamp(file: string): { size: number; mtimeNs: bigint } {
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
