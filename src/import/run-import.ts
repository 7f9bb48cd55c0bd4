// One import pass of one source: find its files, read what is new in each, write it through the home (embedded or shared),
// keep per-file state. A failing file is reported and the pass goes on.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { ImportTarget } from "../app/import-target.ts";
import { describeError } from "../shared/describe-error.ts";
import type { MessageRecord } from "../shared/message.ts";
import { importedMessageId } from "../shared/import-id.ts";
import { fileHead, sameHead } from "./file-head.ts";
import {
  addSkipped,
  eachFile,
  type FileTick,
  newReport,
  type ImportOptions,
  type ImportProgress,
  type SourceReport,
} from "./import-report.ts";
import type { ImportedSession, Source } from "./import-types.ts";

export type { ImportOptions, ImportProgress, SourceReport };

/** Messages stored per write of one session. */
const WRITE_BATCH = 5000;
/** A file from this size on shows its bytes read on the progress bar (a smaller one is read in a moment). */
const LARGE_FILE = 4 * 1024 * 1024;

export async function importSource(api: ImportTarget, source: Source, o: ImportOptions = {}): Promise<SourceReport> {
  const paths =
    o.paths && o.paths.length > 0 ? o.paths.map((p) => resolve(p)) : (source.defaultPaths(o.env ?? process.env) ?? []);
  const report = newReport(source.name, paths, o.dryRun === true);
  const files: string[] = [];
  for (const p of paths) {
    try {
      files.push(...source.files(p));
    } catch (err) {
      if (o.paths && o.paths.length > 0) report.failed.push({ file: p, reason: describeError(err) });
    }
  }
  report.files.found = files.length;
  await eachFile(api, report, files, o, (file, sessions, tick) =>
    importFile(api, source, file, o, report, sessions, tick),
  );
  // Rewound messages were removed from the archive; their vectors go now too, so no copy of the text remains.
  if (report.messages.removed > 0 && !o.dryRun) {
    try {
      await api.purgeDeleted();
    } catch (err) {
      report.failed.push({
        file: api.imports.vectors,
        reason: `removed messages' vectors are not purged yet: ${describeError(err)}`,
      });
    }
  }
  return report;
}

async function importFile(
  api: ImportTarget,
  source: Source,
  file: string,
  o: ImportOptions,
  report: SourceReport,
  sessions: Set<string>,
  tick: FileTick,
): Promise<void> {
  const raw = statSync(file, { bigint: true });
  const st = source.stamp ? source.stamp(file) : { size: Number(raw.size), mtimeNs: raw.mtimeNs };
  const size = st.size;
  if (o.since !== undefined && st.mtimeNs < o.since) {
    report.files.unchanged++;
    return;
  }
  const prior = await api.imports.fileState(source.name, file);
  const last = prior ? (JSON.parse(prior.state) as Record<string, unknown>) : {};
  if (prior && prior.size === size && prior.mtimeNs === st.mtimeNs && !source.outdated?.(file, last)) {
    report.files.unchanged++;
    return;
  }
  // Append-only files resume at the last complete line, unless they shrank or no longer start the same way.
  let offset = 0;
  let state: Record<string, unknown> = {};
  const kept = o.since === undefined ? last : {};
  if (prior && source.appendOnly(file) && size >= prior.offset && prior.offset > 0 && sameHead(file, prior.head)) {
    offset = prior.offset;
    state = kept;
  }
  // A large file shows progress as it is read (bytes), then as its messages are stored: each half of the file's share.
  const total = Number(raw.size);
  // Progress only: a stop is taken after the next write (tick, awaited there).
  const onRead = (done: number) => void tick(Math.min(1, done / total) / 2, { done, total }).catch(() => {});
  const read = await source.read({ file, offset, state, prior: last, ...(total >= LARGE_FILE && { onRead }) });
  report.files.read++;
  for (const p of read.skipped) addSkipped(report, p);
  const toStore = read.sessions.reduce((n, s) => n + s.messages.length, 0);
  let stored = 0;
  for (const s of read.sessions) {
    const { records, continues } = toRecords(source, s, o.since);
    // A session with nothing to add is only touched when it exists (its title may have arrived late):
    // a transcript holding no conversation yet does not create an empty session.
    if (records.length === 0 && (await api.imports.meta(s.id)) === undefined) continue;
    sessions.add(s.id);
    const meta = {
      source: source.name,
      title: s.title === undefined ? undefined : storable(s.title),
      titleIsFallback: s.titleIsFallback,
      project: s.project,
      parent: s.parent,
    };
    // Removed before the write: a message the source re-keyed (a Codex item message replaced by its event twin) may
    // hold the title, and its removal clears it; the write then sets the title again.
    const idOf = (m: { key: string; sendAt: bigint }) => importedMessageId(m.sendAt, source.name, `${s.id}\0${m.key}`);
    if (s.complete && o.since === undefined) {
      const keep = new Set([...records.map((r) => r.id), ...(s.present ?? []).map(idOf)]);
      await removeGone(api, s.id, (id) => !keep.has(id), o, report);
    }
    if (s.dropped && s.dropped.length > 0 && o.since === undefined) {
      const dropped = new Set(s.dropped.map(idOf));
      await removeGone(api, s.id, (id) => dropped.has(id), o, report);
    }
    // In parts, so that a session of a million messages shows its progress and a failure keeps what was stored.
    for (let at = 0; at === 0 || at < records.length; at += WRITE_BATCH) {
      const part = records.length <= WRITE_BATCH ? records : records.slice(at, at + WRITE_BATCH);
      const options = { redact: !o.keepSecrets, dryRun: o.dryRun, continues };
      const r = await api.imports.write(s.id, part, meta, options);
      report.messages.added += r.added;
      report.messages.extended += r.extended;
      report.messages.existing += r.existing;
      report.messages.tombstoned += r.tombstoned;
      report.redacted += r.redacted;
      for (const bad of r.invalid) addSkipped(report, { file, reason: bad.reason });
      stored += part.length;
      await tick(toStore > 0 ? 0.5 + Math.min(1, stored / toStore) / 2 : 1);
    }
  }
  // Kept what it gave, and said; no state is kept, so every pass reads it again until it is whole.
  if (read.incomplete) {
    report.files.failed++;
    report.failed.push({ file, reason: describeError(read.incomplete) });
    return;
  }
  if (!o.dryRun && o.since === undefined) {
    await api.imports.saveFileState(source.name, file, {
      size,
      mtimeNs: st.mtimeNs,
      offset: read.offset ?? size,
      head: raw.size > 0n ? fileHead(file) : "0:",
      state: JSON.stringify(read.state ?? {}),
    });
  }
}

function toRecords(
  source: Source,
  s: ImportedSession,
  since: bigint | undefined,
): { records: MessageRecord[]; continues: Set<string> } {
  const records: MessageRecord[] = [];
  const continues = new Set<string>();
  for (const m of s.messages) {
    if (since !== undefined && m.sendAt < since) continue;
    const id = importedMessageId(m.sendAt, source.name, `${s.id}\0${m.key}`);
    records.push({ id, role: m.role, content: storable(m.content), sendAt: m.sendAt });
    if (m.continues) continues.add(id);
  }
  return { records, continues };
}

/**
 * Another tool's text as memvoy stores it: an unpaired surrogate (text cut inside an emoji, bytes that were not UTF-8
 * escaped by the tool) and a NUL character become U+FFFD, so the message is kept rather than refused.
 */
const storable = (text: string): string => text.toWellFormed().replaceAll("\0", "\uFFFD");

/** Messages imported earlier that the source no longer holds, or says were taken back (a rewind): remove them. */
async function removeGone(
  api: ImportTarget,
  session: string,
  isGone: (id: string) => boolean,
  o: ImportOptions,
  report: SourceReport,
): Promise<void> {
  const gone = (await api.imports.messageIds(session)).filter(isGone);
  if (gone.length === 0) return;
  if (o.dryRun) {
    report.messages.removed += gone.length;
    return;
  }
  for (const id of gone) {
    const outcome = await api.imports.removeMessage(session, id);
    if (outcome === "removed") report.messages.removed++;
    else if (outcome === "kept") report.notRemoved++;
  }
}
