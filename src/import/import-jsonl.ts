// `memvoy import jsonl`: memvoy's own export format back in, exactly (ids, times, metadata; never redacted).
import { createReadStream, statSync } from "node:fs";
import { describeError } from "../shared/describe-error.ts";
import type { ImportTarget } from "../app/import-target.ts";
import { isRole, type MessageRecord } from "../shared/message.ts";
import { recordTime } from "./record-time.ts";
import { TIME_RANGE_TEXT } from "../shared/time.ts";
import { sendAtAsWritten } from "../shared/send-at-text.ts";
import type { MetaUpdate } from "../app/import-api.ts";
import { JSONL_SOURCE } from "../shared/jsonl-source.ts";
import { NotThisFormatError, type Problem } from "./import-types.ts";
import { isObject, streamLines, tryJson, wholeLines, type Line } from "./read-lines.ts";
import { addSkipped, eachFile, newReport, type ImportOptions, type SourceReport } from "./import-report.ts";

const ID = /^[0-9A-Za-z_-]{1,64}$/;
const SESSION = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const BATCH = 5000;

export function importJsonlFiles(
  api: ImportTarget,
  files: readonly string[],
  o: ImportOptions = {},
): Promise<SourceReport> {
  const report = newReport("jsonl", files, o.dryRun === true);
  report.files.found = files.length;
  return eachFile(api, report, files, o, async (file, sessions, tick) => {
    const st = statSync(file);
    let cut: Error | undefined;
    const onCut = (err: Error) => {
      cut = err;
    };
    // The share read is of the file's own bytes: a .zst's compressed ones, not the offsets of its decompressed lines.
    let compressed = 0;
    const zst = file.endsWith(".zst");
    const onRead = (bytes: number) => {
      compressed = bytes;
    };
    // A pipe or FIFO (<(cat f), /dev/stdin fed by a pipe) or a device (/dev/null) cannot be read at an offset: it
    // is read as a stream, by node's reads (Bun's file stream polls, and a character device refuses epoll).
    const lines = st.isFile()
      ? wholeLines(file, onCut, zst ? onRead : undefined)
      : streamLines(createReadStream(file), file);
    const size = st.isFile() ? st.size : 0;
    const share = (end: number) => (size > 0 ? Math.min(1, (zst ? compressed : end) / size) : undefined);
    await readOne(api, file, lines, o, report, sessions, (end) => tick(share(end)));
    report.files.read++;
    // A .zst export cut short: what it held is in, and the file is a failure that says so.
    if (cut) {
      report.files.failed++;
      report.failed.push({ file, reason: describeError(cut) });
    }
  });
}

/** The export format piped in (`memvoy import jsonl -`); reported under the name STDIN. */
export function importJsonlStream(
  api: ImportTarget,
  stream: ReadableStream<Uint8Array>,
  o: ImportOptions = {},
): Promise<SourceReport> {
  const report = newReport("jsonl", [STDIN], o.dryRun === true);
  report.files.found = 1;
  return eachFile(
    api,
    report,
    [STDIN],
    o,
    async (name, sessions, tick) => {
      await readOne(api, name, streamLines(stream, name), o, report, sessions, () => tick());
      report.files.read++;
    },
    false,
  );
}

export const STDIN = "(stdin)";

async function readOne(
  api: ImportTarget,
  file: string,
  input: Iterable<Line> | AsyncIterable<Line>,
  o: ImportOptions,
  report: SourceReport,
  sessions: Set<string>,
  /** After each write, with the byte offset read so far. */
  tick: (end: number) => Promise<void>,
): Promise<void> {
  let batch: MessageRecord[] = [];
  let end = 0;
  /** The line each message of the batch came from, to name a refused one. */
  const lineOf = new Map<string, number>();
  let batchSession: string | undefined;
  let lines = 0;
  let good = 0;
  /** The first session or message line refused (a file of them only is said to be an export with that fault). */
  let firstRefused: Problem | undefined;
  // Lines skipped before the first good one are held back: a file with no good line is not an export at all, and
  // is reported as that one failure rather than as every one of its lines.
  let held: SourceReport | undefined = newReport("jsonl", [], false);
  const skip = (p: Problem) => addSkipped(held ?? report, p);
  const found = () => {
    good++;
    if (!held) return;
    for (const p of held.skipped) addSkipped(report, p);
    report.skippedCount += held.skippedCount - held.skipped.length;
    held = undefined;
  };
  // A session line's metadata goes with its first messages, so that a session removed since (every message
  // tombstoned) does not come back empty; a session line with no message after it creates the session alone.
  let pending: { session: string; meta: MetaUpdate } | undefined;
  // Whether this import creates each session, asked before its first write: such a session with no source of its
  // own gets JSONL_SOURCE, so that the summary cron leaves it alone as it leaves every importer's.
  const creates = new Map<string, boolean>();
  const withSource = async (session: string, meta: MetaUpdate | undefined): Promise<MetaUpdate | undefined> => {
    if (meta?.source !== undefined || o.dryRun) return meta;
    let fresh = creates.get(session);
    if (fresh === undefined) creates.set(session, (fresh = !(await api.imports.holds(session))));
    return fresh ? { ...meta, source: JSONL_SOURCE } : meta;
  };
  const settleMeta = async () => {
    // With --since a session none of whose messages are that recent is not created.
    if (pending && o.since === undefined) {
      sessions.add(pending.session);
      if (!o.dryRun) await api.imports.setMeta(pending.session, (await withSource(pending.session, pending.meta))!);
    }
    pending = undefined;
  };
  const flush = async () => {
    if (batchSession === undefined || batch.length === 0) return;
    const given = pending?.session === batchSession ? pending.meta : undefined;
    if (given) pending = undefined;
    const meta = await withSource(batchSession, given);
    const r = await api.imports.write(batchSession, batch, meta, { redact: false, dryRun: o.dryRun, asStored: true });
    report.messages.added += r.added;
    report.messages.existing += r.existing - r.elsewhere.length;
    report.messages.tombstoned += r.tombstoned;
    for (const bad of r.invalid) skip({ file, line: lineOf.get(bad.id), reason: bad.reason });
    // An id another session holds (an export whose session ids were edited) is not this session's: said so.
    for (const e of r.elsewhere)
      skip({
        file,
        line: lineOf.get(e.id),
        reason: `message ${e.id} is already in session ${e.session} (a message id is unique across sessions): give it a new id to copy it`,
      });
    // A session whose every message another session holds is not created.
    if (r.elsewhere.length < batch.length) sessions.add(batchSession);
    batch = [];
    lineOf.clear();
    await tick(end);
  };
  for await (const l of input) {
    end = l.end;
    if (l.text.trim() === "") continue;
    lines++;
    let r = tryJson(l.text);
    // A number sendAt is read from its text (a float loses digits); only such a line pays for the reviver.
    if (isObject(r) && typeof r.sendAt === "number") r = tryJson(l.text, sendAtAsWritten);
    if (!isObject(r)) {
      skip({ file, line: l.line, reason: "not valid JSON" });
      continue;
    }
    if (r.type === "session") {
      if (typeof r.id !== "string" || !SESSION.test(r.id)) {
        const problem = { file, line: l.line, reason: "session line without a valid id" };
        firstRefused ??= problem;
        skip(problem);
        continue;
      }
      await flush();
      await settleMeta();
      found();
      const meta: MetaUpdate = {};
      for (const k of ["source", "title", "project", "parent"] as const) if (typeof r[k] === "string") meta[k] = r[k];
      pending = { session: r.id, meta };
      continue;
    }
    if (r.type !== "message") {
      skip({ file, line: l.line, reason: `unknown line type ${JSON.stringify(r.type)}` });
      continue;
    }
    const sendAt = typeof r.sendAt === "string" ? recordTime(r.sendAt) : undefined;
    if (
      typeof r.id !== "string" ||
      !ID.test(r.id) ||
      typeof r.session !== "string" ||
      !SESSION.test(r.session) ||
      !isRole(r.role) ||
      typeof r.content !== "string" ||
      sendAt === undefined
    ) {
      const problem = { file, line: l.line, reason: `message line: ${messageLineProblems(r, sendAt).join("; ")}` };
      firstRefused ??= problem;
      skip(problem);
      continue;
    }
    found();
    if (o.since !== undefined && sendAt < o.since) continue;
    if (batchSession !== r.session || batch.length >= BATCH) await flush();
    if (pending && pending.session !== r.session) await settleMeta();
    batchSession = r.session;
    const m: MessageRecord = { id: r.id, role: r.role, content: r.content, sendAt };
    if (typeof r.sender === "string") m.sender = r.sender;
    batch.push(m);
    lineOf.set(m.id, l.line);
  }
  await flush();
  await settleMeta();
  if (lines > 0 && good === 0)
    throw new NotThisFormatError({
      file,
      expected: "a memvoy export",
      because: firstRefused
        ? `no session or message line it can read; line ${firstRefused.line}: ${firstRefused.reason}`
        : "no session or message line",
    });
}

/** What a message line lacks or gives wrong, each field named (its content is never shown). */
function messageLineProblems(r: Record<string, unknown>, sendAt: bigint | undefined): string[] {
  const out: string[] = [];
  const bad = (field: string, rule: string) =>
    out.push(r[field] === undefined ? `no ${field}` : `${field} ${shown(r[field])} ${rule}`);
  if (typeof r.id !== "string" || !ID.test(r.id)) bad("id", "is not 1-64 of A-Z a-z 0-9 _ -");
  if (typeof r.session !== "string" || !SESSION.test(r.session)) bad("session", "is not a session id");
  if (!isRole(r.role)) bad("role", "is not user or assistant");
  if (typeof r.content !== "string") out.push(r.content === undefined ? "no content" : "content is not a string");
  if (sendAt === undefined)
    bad("sendAt", `is not a time (RFC 3339, or a unix time in s, ms, us or ns) within ${TIME_RANGE_TEXT}`);
  return out;
}

/** A value as the report shows it: JSON, cut to a line's worth. */
function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
