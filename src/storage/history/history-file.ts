// history.json: read (tolerating Agenvoy records), serialise, write atomically; corrupt files are refused.
import { type BigIntStats, lstatSync, readFileSync } from "node:fs";
import { openTempFile, stageFileAtomic, type StagedFile, type StageOptions } from "../../shared/atomic-write.ts";
import { namedError } from "../../shared/errors.ts";
import { describeOffset, jsonErrorOffset } from "../../shared/json-error-position.ts";
import { isRole, type MessageRecord } from "../../shared/message.ts";
import { nsToRfc3339, parseTime, timeInRange } from "../../shared/time.ts";
import { contentText, stripLegacyHeaders } from "./legacy-records.ts";
import { SymlinkRefusedError } from "./no-symlink.ts";

/** The facts of a corrupt history.json: the file, where in it (offset, record), and what is wrong there. */
export interface Corruption {
  file: string;
  where: string;
  detail: string;
}

/** "FILE is corrupt (WHERE: DETAIL)": the finding itself, as doctor lists it. */
export function describeCorruption(d: Corruption): string {
  return `${d.file} is corrupt (${d.where}: ${d.detail})`;
}

/** Exit 2 like any input memvoy cannot accept: the file must be repaired (doctor --repair), not retried. */
export const CorruptHistoryError = namedError<Corruption>(
  "CorruptHistoryError",
  "input",
  (d) =>
    `${describeCorruption(d)}; it was left untouched. Run \`memvoy doctor --repair\` to rebuild it from the archive`,
);
export type CorruptHistoryError = InstanceType<typeof CorruptHistoryError>;

/** A parsed history. Records lacking an id (legacy) have `id: ""` until the write path assigns one. */
export interface HistoryDoc {
  records: MessageRecord[];
  /** true when any record needed normalising (no id, a sendAt not in the file's style, headers in content). */
  legacy: boolean;
  /**
   * How the file writes sendAt: "ns" when its records carry Agenvoy's integer nanoseconds (its Go reader takes
   * nothing else, so every rewrite keeps them so); undefined for memvoy's RFC 3339 strings (and a new file).
   */
  style?: TimeStyle;
  /** serialised size in bytes of `records` as this module writes them. */
  bytes: number;
  /** The file as this process last wrote it, or found it to agree with the archive (markHistoryChecked). */
  checked?: boolean;
  /** The identity of the file read (inode, size, mtime); undefined for a missing file. */
  stamp?: string;
  /**
   * The file holds no text at all: another program writing it in place (truncated, not yet written), or one
   * made empty by hand. It holds no list, so it is no emptied list either.
   */
  blank?: true;
  /**
   * The file tells nothing of its form: it is missing, blank or an empty list. Whoever writes it next decides the
   * form from what it knows of the session (the form memvoy last met in it), not from `style`.
   */
  formless?: true;
}

interface CacheEntry extends HistoryDoc {
  stamp: string;
  checked: boolean;
  /** The file's bytes (UTF-8) in a few chunks: an append adds a chunk, so the rest is never re-encoded or copied. */
  data: Buffer[];
  size: number;
}
/**
 * Parsed files by path, least recently used first. Bounded by the memory they hold, so a long-lived process
 * or a pass over every session (an import, the daemon, doctor, the first listing of a copied home) keeps only
 * the hot ones; a miss re-reads the file.
 */
const cache = new Map<string, CacheEntry>();
const CACHE_MAX_MEMORY = 64 * 1024 * 1024;
/**
 * Memory an entry holds per byte of its file: the bytes, plus its parsed records (measured at about 4.4 times the
 * file's bytes for typical messages). Counting the file's bytes alone let the cache hold some 350 MB.
 */
const MEMORY_PER_FILE_BYTE = 5;
let cachedMemory = 0;

function cacheGet(file: string): CacheEntry | undefined {
  const hit = cache.get(file);
  if (hit) {
    cache.delete(file);
    cache.set(file, hit);
  }
  return hit;
}

function cachePut(file: string, entry: CacheEntry): void {
  cacheDrop(file);
  cache.set(file, entry);
  cachedMemory += entry.size * MEMORY_PER_FILE_BYTE;
  for (const [oldest, e] of cache) {
    if (cachedMemory <= CACHE_MAX_MEMORY || oldest === file) break;
    cache.delete(oldest);
    cachedMemory -= e.size * MEMORY_PER_FILE_BYTE;
  }
}

function cacheDrop(file: string): void {
  const e = cache.get(file);
  if (e) {
    cache.delete(file);
    cachedMemory -= e.size * MEMORY_PER_FILE_BYTE;
  }
}

/** A file's identity: inode, size and mtime (ns). */
const identity = (s: BigIntStats) => `${s.ino}:${s.size}:${s.mtimeNs}`;

function stampOf(path: string): string | undefined {
  try {
    const s = lstatSync(path, { bigint: true });
    if (s.isSymbolicLink()) throw new SymlinkRefusedError({ path });
    if (s.isDirectory()) throw Object.assign(new Error(`EISDIR: ${path} is a folder`), { code: "EISDIR", path });
    return identity(s);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * history.json's identity (inode:size:mtime ns, as HistoryDoc.stamp and StagedHistory.stamp give it) with one
 * stat; undefined when there is no regular file to read there.
 */
export function historyStamp(file: string): string | undefined {
  try {
    const s = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return s?.isFile() ? identity(s) : undefined;
  } catch {
    return undefined; // a file in place of the session folder: the command that reads it reports it
  }
}

/** A staged history.json: `stamp()` is the identity the file will have once committed (see historyStamp). */
export interface StagedHistory extends StagedFile {
  stamp(): string;
}

/** How a history.json writes sendAt: RFC 3339 strings (memvoy's own files) or integer nanoseconds (Agenvoy's). */
export type TimeStyle = "rfc3339" | "ns";

/** JSON.rawJSON and JSON.isRawJSON (Bun has them; TypeScript's lib does not know them yet). */
const Json = JSON as unknown as { rawJSON(text: string): unknown; isRawJSON(v: unknown): v is { rawJSON: string } };

/** Fields of a record memvoy writes itself; any other field another program wrote is kept as it wrote it. */
const OWN_FIELDS = new Set(["id", "role", "content", "sendAt", "sender"]);

export function serializeRecord(r: MessageRecord, style?: TimeStyle): string {
  // Integer nanoseconds are written from their digits: 19 digits do not fit a JS number.
  const sendAt = style === "ns" ? Json.rawJSON(r.sendAt.toString()) : nsToRfc3339(r.sendAt);
  const o: Record<string, unknown> = { id: r.id, role: r.role, content: r.content, sendAt };
  if (r.sender !== undefined) o.sender = r.sender;
  const kept = r.kept;
  if (kept) {
    // Parts (an image beside the text) stay while the text memvoy holds is the text they had.
    if (kept.content !== undefined && kept.text === r.content) o.content = kept.content;
    for (const k in kept.fields) if (!OWN_FIELDS.has(k)) o[k] = kept.fields[k];
  }
  return JSON.stringify(o);
}

/** serializeRecord in `style`, for serializeHistory and the size of a file. */
export const recordJson = (style: TimeStyle | undefined) => (r: MessageRecord) => serializeRecord(r, style);

export function serializeHistory(
  records: readonly MessageRecord[],
  json: (r: MessageRecord) => string = serializeRecord,
): string {
  return records.length === 0 ? "[]\n" : "[\n" + records.map(json).join(",\n") + "\n]\n";
}

/** Bytes one record adds to the file (its JSON plus the ",\n" separator). */
export function recordBytes(r: MessageRecord, style?: TimeStyle): number {
  return Buffer.byteLength(serializeRecord(r, style)) + 2;
}

/** A JSON number as parsed (exact source text, see parseHistory): its digits when an integer, else its value. */
function plain(v: unknown): unknown {
  if (!Json.isRawJSON(v)) return v;
  const source = v.rawJSON;
  return Number.isInteger(Number(source)) ? source : Number(source);
}

const isIntegerToken = (v: unknown) => Json.isRawJSON(v) && /^-?\d+$/.test(v.rawJSON);

/**
 * "ns" when the last record of `items` that has a sendAt writes it as an integer (Agenvoy's convention), or when
 * none has a sendAt nor an id (Agenvoy before sendAt: its later versions read an int64, the older ignore it).
 */
function styleOf(items: unknown[]): TimeStyle | undefined {
  let ids = false;
  for (let i = items.length - 1; i >= 0; i--) {
    const o = items[i] as { sendAt?: unknown; id?: unknown } | null;
    if (!o || typeof o !== "object") continue;
    if (typeof o.id === "string" && o.id !== "") ids = true;
    if (o.sendAt === undefined || o.sendAt === null) continue;
    return isIntegerToken(o.sendAt) ? "ns" : undefined;
  }
  return items.length > 0 && !ids ? "ns" : undefined;
}

/**
 * The style of a file memvoy cannot parse (doctor moves a corrupt one aside): its last sendAt, from the text.
 * undefined when it holds none (garbage, cut before its first record) or cannot be read: the text does not tell.
 */
export function historyStyleOfText(file: string): TimeStyle | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const all = [...text.matchAll(/"sendAt"\s*:\s*(-?\d|")/g)];
  const last = all[all.length - 1];
  return last === undefined ? undefined : last[1] !== '"' ? "ns" : "rfc3339";
}

function parseSendAt(raw: unknown): bigint | undefined {
  raw = plain(raw);
  if (typeof raw !== "string") return undefined;
  if (!/^\d+$/.test(raw)) return parseTime(raw);
  // Nanoseconds past what a signed 64-bit count holds are no time (as a negative or garbled one is not), and 0 is
  // Agenvoy's "no time" (it leaves a zero sendAt out): the record's header time or its neighbours' stand instead.
  const ns = BigInt(raw);
  return ns !== 0n && timeInRange(ns) ? ns : undefined;
}

/** A record whose id an earlier record of the file has (a hand edit, a sync conflict); numbered from 1. */
export interface RepeatedId {
  record: number;
  id: string;
  first: number;
}

/**
 * Parse history text. Throws CorruptHistoryError naming the file and where it failed, a repeated id included;
 * with `onRepeat`, a record repeating an earlier one's id is left out and passed to it instead.
 */
export function parseHistory(text: string, file: string, mtimeNs = 0n, onRepeat?: (r: RepeatedId) => void): HistoryDoc {
  // A byte order mark (a file saved by a Windows editor) is no part of the JSON: read past it; the next write drops it.
  const bom = text.charCodeAt(0) === 0xfeff;
  if (bom) text = text.slice(1);
  if (text.trim() === "") return { records: [], legacy: bom, bytes: 3, blank: true, formless: true };
  let raw: unknown;
  try {
    // Numbers are kept as their source text (written back exactly): 19-digit nanoseconds do not fit a JS number.
    raw = JSON.parse(text, (_k, value, ctx?: { source?: string }) =>
      typeof value === "number" && ctx?.source ? Json.rawJSON(ctx.source) : value,
    );
  } catch (err) {
    const at = jsonErrorOffset(text);
    throw new CorruptHistoryError({ file, where: describeOffset(text, at < 0 ? 0 : at), detail: "invalid JSON" });
  }
  if (!Array.isArray(raw))
    throw new CorruptHistoryError({ file, where: "top level", detail: "expected a JSON array of messages" });
  let legacy = bom;
  const style = styleOf(raw);
  const records: MessageRecord[] = [];
  const missingTime: number[] = [];
  const seen = new Map<string, number>();
  raw.forEach((item, index) => {
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      throw new CorruptHistoryError({ file, where: `record ${index + 1}`, detail: "expected an object" });
    }
    const fields = item as Record<string, unknown>;
    const o: Record<string, unknown> = {
      id: plain(fields.id),
      role: plain(fields.role),
      content: plain(fields.content),
      sendAt: fields.sendAt,
      sender: plain(fields.sender),
      tool_calls: fields.tool_calls,
    };
    if (o.role === "system" || o.role === "tool" || (o.role === "assistant" && o.tool_calls)) {
      legacy = true; // tool traffic never belongs in history
      return;
    }
    if (!isRole(o.role))
      throw new CorruptHistoryError({
        file,
        where: `record ${index + 1}`,
        detail: `unknown role ${JSON.stringify(o.role)}`,
      });
    const text = contentText(o.content);
    if (text === undefined)
      throw new CorruptHistoryError({ file, where: `record ${index + 1}`, detail: "content is not text" });
    let sendAt = parseSendAt(o.sendAt);
    let sender = typeof o.sender === "string" && o.sender !== "" ? o.sender : undefined;
    let content = text;
    const sendAtInStyle =
      style === "ns" ? isIntegerToken(o.sendAt) : typeof o.sendAt === "string" && !/^\d+$/.test(o.sendAt);
    if (typeof o.id !== "string" || o.id === "" || !sendAtInStyle) legacy = true;
    if (typeof o.id !== "string" || o.id === "") {
      const stripped = stripLegacyHeaders(text);
      content = stripped.content;
      sendAt ??= stripped.sendAt;
      sender ??= stripped.sender;
    }
    if (typeof o.id === "string" && o.id !== "") {
      const first = seen.get(o.id);
      if (first !== undefined) {
        const repeat = { record: index + 1, id: o.id, first: first + 1 };
        if (!onRepeat)
          throw new CorruptHistoryError({ file, where: `record ${repeat.record}`, detail: repeatText(repeat) });
        onRepeat(repeat);
        legacy = true; // rewritten without it
        return;
      }
      seen.set(o.id, index);
    }
    if (sendAt === undefined) missingTime.push(records.length);
    const rec: MessageRecord = {
      id: typeof o.id === "string" ? o.id : "",
      role: o.role,
      content,
      sendAt: sendAt ?? 0n,
    };
    if (sender !== undefined) rec.sender = sender;
    // Content parts (an image beside the text) and fields memvoy does not know are written back as they were.
    const parts = typeof o.content === "string" ? undefined : fields.content;
    const extra = Object.keys(fields).some((k) => !OWN_FIELDS.has(k));
    if (parts !== undefined || extra)
      rec.kept = { fields, text: content, ...(parts !== undefined && { content: parts }) };
    records.push(rec);
  });
  fillMissingTimes(records, missingTime, mtimeNs);
  const doc: HistoryDoc = { records, legacy, bytes: Buffer.byteLength(serializeHistory(records, recordJson(style))) };
  if (style) doc.style = style;
  if (raw.length === 0) doc.formless = true;
  return doc;
}

/** "id X is record N's too": a repeated id, in words. */
export const repeatText = (r: RepeatedId) => `id ${r.id} is record ${r.first}'s too`;

/** A record with no time takes the previous one's + 1 ns; leading ones count back from the first known time. */
function fillMissingTimes(records: MessageRecord[], missing: number[], fallback: bigint): void {
  if (missing.length === 0) return;
  const missingSet = new Set(missing);
  const firstKnown = records.findIndex((_, i) => !missingSet.has(i));
  const anchor = firstKnown >= 0 ? records[firstKnown]!.sendAt : fallback;
  const anchorIndex = firstKnown >= 0 ? firstKnown : records.length;
  for (let i = 0; i < records.length; i++) {
    if (!missingSet.has(i)) continue;
    records[i]!.sendAt = i < anchorIndex ? anchor - BigInt(anchorIndex - i) : records[i - 1]!.sendAt + 1n;
    records[i]!.untimed = true;
  }
}

/**
 * Read a session's history.json (a missing file is an empty history). Cached per file identity. With
 * `shared`, a cached list is returned itself, not a copy: the caller must not change it (the write path,
 * which passes it back to beginAppend).
 */
export function readHistory(file: string, options: { shared?: boolean } = {}): HistoryDoc {
  const stamp = stampOf(file);
  if (stamp === undefined) return { records: [], legacy: false, bytes: 3, formless: true };
  const hit = cacheGet(file);
  if (hit && hit.stamp === stamp) {
    const records = options.shared ? hit.records : hit.records.slice();
    const doc: HistoryDoc = { records, legacy: hit.legacy, bytes: hit.bytes, checked: hit.checked, stamp };
    if (hit.blank) doc.blank = true;
    if (hit.formless) doc.formless = true;
    if (hit.style) doc.style = hit.style;
    return doc;
  }
  return readSettled(file, stamp, (data, at) => {
    const doc: HistoryDoc = { ...parseHistory(historyText(data, file), file, mtimeOf(at)), stamp: at };
    if (!doc.legacy)
      cachePut(file, {
        ...doc,
        stamp: at,
        records: doc.records.slice(),
        checked: false,
        data: [data],
        size: data.length,
      });
    return doc;
  });
}

const mtimeOf = (stamp: string) => BigInt(stamp.split(":")[2]!);

/** A file that fails to parse, or holds no text, is re-read while its mtime is younger than this (ms). */
const SETTLE_MS = 1000;
/** The longest a read waits for such a file: then it is what it is (corrupt, or blank). */
const SETTLE_MAX_MS = 2000;

/**
 * Read and parse the file found as `stamp`. Agenvoy writes history.json in place (truncate, then write): a read
 * that meets it half written finds no text, or JSON cut short. Such a file is read again (with a short backoff)
 * while it keeps changing or was changed a moment ago, up to SETTLE_MAX_MS; only one that stays unparseable
 * is corrupt, and only one that stays empty is blank.
 */
function readSettled(
  file: string,
  stamp: string | undefined,
  parse: (data: Buffer, stamp: string) => HistoryDoc,
): HistoryDoc {
  const start = Date.now();
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    if (stamp === undefined) return { records: [], legacy: false, bytes: 3, formless: true }; // deleted meanwhile
    let doc: HistoryDoc | undefined;
    let failure: unknown;
    try {
      doc = parse(readFileSync(file), stamp);
      if (!doc.blank) return doc;
    } catch (err) {
      if (!(err instanceof CorruptHistoryError)) throw err;
      failure = err;
    }
    const now = stampOf(file);
    const settled = now === stamp && Date.now() - Number(mtimeOf(stamp) / 1_000_000n) >= SETTLE_MS;
    if (settled || Date.now() - start >= SETTLE_MAX_MS) {
      if (doc) return doc;
      throw failure;
    }
    if (now === stamp) Bun.sleepSync(pause);
    stamp = now;
  }
}

/** Read history.json for a repair, uncached: a record repeating an earlier one's id is left out, given to `onRepeat`. */
export function readHistoryRepeats(file: string, onRepeat: (r: RepeatedId) => void): HistoryDoc {
  return readSettled(file, stampOf(file), (data, stamp) => ({
    ...parseHistory(historyText(data, file), file, mtimeOf(stamp), onRepeat),
    stamp,
  }));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The file's text. Bytes that are no UTF-8 (a file saved in another encoding) make it corrupt: read with
 * replacement characters, the next write would keep those in place of the text, in the file and the archive.
 */
function historyText(data: Buffer, file: string): string {
  try {
    return strictUtf8.decode(data);
  } catch {
    const at = firstInvalidByte(data);
    const where = describeOffset(data.subarray(0, at).toString("latin1"), at);
    throw new CorruptHistoryError({ file, where, detail: "not valid UTF-8 (saved in another encoding?)" });
  }
}

/** The offset of the first byte that does not start a valid UTF-8 character. */
function firstInvalidByte(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    const n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (n === 0 || i + n > b.length) return i;
    try {
      strictUtf8.decode(b.subarray(i, i + n));
    } catch {
      return i;
    }
    i += n;
  }
  return b.length;
}

/** The file read as `doc` agrees with the archive: later reads of it, while it is unchanged, say `checked`. */
export function markHistoryChecked(file: string, doc: HistoryDoc): void {
  const hit = cache.get(file);
  if (hit && doc.stamp !== undefined && hit.stamp === doc.stamp) hit.checked = true;
}

/**
 * Stage a new history.json (synced temp file); commit() renames it into place. `serialized` may hold the
 * JSON of some records already (serializeRecord output), so they are not serialised twice.
 */
export function stageHistory(
  file: string,
  records: readonly MessageRecord[],
  style: TimeStyle | undefined,
  serialized?: ReadonlyMap<MessageRecord, string>,
  options: { syncLater?: boolean } = {},
): StagedHistory {
  const json = (r: MessageRecord) => serialized?.get(r) ?? serializeRecord(r, style);
  const data = appendedData(file, records, json, style) ?? [Buffer.from(serializeHistory(records, json), "utf8")];
  return stageData(file, data, options, (stamp, size) => {
    const entry: CacheEntry = {
      records: records.slice(),
      legacy: false,
      bytes: size,
      stamp,
      checked: true,
      data,
      size,
    };
    if (style) entry.style = style;
    if (records.length === 0) entry.formless = true;
    cachePut(file, entry);
  });
}

/** Stage `data`; after the rename, `cached` is called with the file's new stamp (or the cache entry dropped). */
function stageData(
  file: string,
  data: Buffer[],
  options: { syncLater?: boolean },
  cached: (stamp: string, size: number) => void,
): StagedHistory {
  return withCacheUpdate(file, stageFileAtomic(file, data, replacing(cache.get(file)?.size, options)), data, cached);
}

/** Past this size the file a rewrite replaces is freed off the writer's thread (release-later.ts). */
const RELEASE_LATER_BYTES = 128 * 1024;

/** `options` for a rewrite replacing a file of `bytes` (as cached; undefined when unknown: freed as usual). */
function replacing(bytes: number | undefined, options: { syncLater?: boolean }): StageOptions {
  return bytes !== undefined && bytes >= RELEASE_LATER_BYTES ? { ...options, releaseReplacedLater: true } : options;
}

function withCacheUpdate(
  file: string,
  staged: StagedFile,
  data: Buffer[],
  cached: (stamp: string, size: number) => void,
): StagedHistory {
  const size = data.reduce((n, b) => n + b.length, 0);
  return {
    synced: () => staged.synced(),
    commit() {
      staged.commit();
      const stamp = stampOf(file);
      if (stamp) cached(stamp, size);
      else cacheDrop(file);
    },
    discard: () => staged.discard(),
    stat: () => staged.stat(),
    stamp: () => identity(staged.stat()),
  };
}

/** An append begun before its records are known (beginAppend). */
export interface PendingAppend {
  /**
   * Stage the file with `added` after `base`; undefined (and the temp file removed) when nothing is added or
   * `base` is no longer the cached list of the file. commit() grows the cached list in place.
   */
  stage(
    base: readonly MessageRecord[],
    added: readonly MessageRecord[],
    serialized?: ReadonlyMap<MessageRecord, string>,
    options?: { syncLater?: boolean },
  ): StagedHistory | undefined;
  /** Remove the temp file, unless stage() staged it. */
  discard(): void;
}

/**
 * Begin an append to `file` whose cached list is `base` (readHistory with `shared`) before the new records are
 * known: the cached bytes up to the closing bracket go to the temp file and their write-back starts, so the
 * disk is busy while the caller works out the records. Nothing of the file is copied or serialised again.
 * undefined when the cache does not hold `base` for this file.
 */
export function beginAppend(file: string, base: readonly MessageRecord[]): PendingAppend | undefined {
  const hit = cache.get(file);
  const tail = hit?.data[hit.data.length - 1];
  if (!hit || hit.records !== base || base.length === 0 || !tail?.subarray(-3).equals(CLOSE)) return undefined;
  const head = hit.data.slice(0, -1).concat(tail.subarray(0, tail.length - 3));
  const temp = openTempFile(file);
  temp.write(head);
  temp.writeBack();
  let used = false;
  return {
    stage(now, added, serialized, options = {}) {
      used = true;
      if (cache.get(file) !== hit || hit.records !== now || added.length === 0) {
        temp.discard();
        return undefined;
      }
      const json = added.map((r) => serialized?.get(r) ?? serializeRecord(r, hit.style)).join(",\n");
      const last = Buffer.from(",\n" + json + "\n]\n", "utf8");
      temp.write([last]);
      const chunks = head.concat(last);
      const data = chunks.length > MAX_CHUNKS ? [Buffer.concat(chunks)] : chunks;
      return withCacheUpdate(file, temp.stage(replacing(hit.size, options)), data, (stamp, size) => {
        if (cache.get(file) !== hit) return cacheDrop(file);
        for (const r of added) hit.records.push(r);
        cachedMemory += (size - hit.size) * MEMORY_PER_FILE_BYTE;
        Object.assign(hit, { bytes: size, stamp, data, size, checked: true });
      });
    },
    discard() {
      if (!used) temp.discard();
      used = true;
    },
  };
}

export function writeHistory(file: string, records: readonly MessageRecord[], style?: TimeStyle): void {
  stageHistory(file, records, style).commit();
}

const CLOSE = Buffer.from("\n]\n");
/** Chunks are written with one writev; past this many they are joined once (a copy of the whole file). */
const MAX_CHUNKS = 64;

/** When `records` only appends to what the cache holds for this file, add a chunk instead of re-serialising. */
function appendedData(
  file: string,
  records: readonly MessageRecord[],
  json: (r: MessageRecord) => string,
  style: TimeStyle | undefined,
): Buffer[] | undefined {
  const hit = cache.get(file);
  const tail = hit?.data[hit.data.length - 1];
  if (
    !hit ||
    hit.style !== style ||
    !tail ||
    hit.records.length === 0 ||
    hit.records.length >= records.length ||
    tail.length < 3 ||
    !tail.subarray(-3).equals(CLOSE)
  )
    return undefined;
  const last = hit.records.length - 1;
  if (records[last] !== hit.records[last] || records[0] !== hit.records[0] || stampOf(file) !== hit.stamp)
    return undefined;
  const added = records.slice(hit.records.length).map(json).join(",\n");
  const chunks = hit.data
    .slice(0, -1)
    .concat(tail.subarray(0, tail.length - 3), Buffer.from(",\n" + added + "\n]\n", "utf8"));
  return chunks.length > MAX_CHUNKS ? [Buffer.concat(chunks)] : chunks;
}

export function forgetHistoryCache(file?: string): void {
  if (file) cacheDrop(file);
  else {
    cache.clear();
    cachedMemory = 0;
  }
}
