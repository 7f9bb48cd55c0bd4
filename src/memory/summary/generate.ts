// Generate for one session: find the new messages in the archive, prune noise with the decision model,
// summarize chunk by chunk with the previous summary in the system prompt, and save summary.json and the
// cursor after every good chunk. The first failed chunk stops the run; an abort leaves the last save.
import type { LlmClient } from "../../llm/anthropic-client.ts";
import { LlmAbortedError, LlmCallError } from "../../llm/llm-errors.ts";
import { describeError, isSystemFailure } from "../../shared/describe-error.ts";
import { errorMessage } from "../../shared/errors.ts";
import { redactSecrets, secretValues } from "../../shared/redact.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { NS_PER_SEC } from "../../shared/time.ts";
import type { MemoryContext } from "../memory-context.ts";
import { ensureBackfilled } from "../sessions-list.ts";
import { planChunks, splitWaiting } from "./chunking.ts";
import { newMeter, type UsageMeter } from "./llm-access.ts";
import { groupExchanges, pruneNoise } from "./noise-pruning.ts";
import { summarizeChunk } from "./summary-call.ts";
import { diffSummaries } from "./summary-diff.ts";
import {
  emptySessionReport,
  type SessionOutcome,
  type SessionReport,
  type SummarizeOptions,
} from "./summary-report.ts";
import { SummaryMessageRemovedError, SummaryRunEndedError, SummaryStore, waitingForWriter } from "./summary-store.ts";
import { homeLockFree } from "../home-lock.ts";
import type { SummaryRunStore } from "./summary-run-store.ts";
import { cursorText } from "../../storage/history/cursor-file.ts";
import type { Summary } from "./summary-types.ts";

/** The LLM client for one session's run, counting its usage into `meter`. */
export type LlmFactory = (meter: UsageMeter) => LlmClient;

export async function generateSession(
  ctx: MemoryContext,
  session: string,
  openLlm: LlmFactory,
  o: SummarizeOptions = {},
): Promise<SessionReport> {
  const store = new SummaryStore(ctx, session);
  let release: (() => void) | undefined;
  try {
    release = store.lock();
  } catch (err) {
    // A session folder that takes no lock file (its permissions, a full disk) fails this session, not the batch.
    if (!isSystemFailure(err)) throw err;
    return { ...emptySessionReport(session, "failed"), error: describeError(err) };
  }
  if (!release) return busyReport(session, "another process is summarizing this session");
  try {
    return await generateRun(ctx, waitingForWriter(ctx, store), openLlm, o, async () => {
      await homeLockFree(ctx);
      ensureBackfilled(ctx, session);
    });
  } finally {
    release();
  }
}

/** A session's report when another worker holds its run. */
export function busyReport(session: string, note: string): SessionReport {
  return { ...emptySessionReport(session, "busy"), notes: [note] };
}

/** What a run reads of its memory besides the store: the config and the environment (secrets to redact). */
export type RunSettings = Pick<MemoryContext, "config" | "env">;

/** A run's failures its report explains in full: no "unexpected" note (a removal overtaking the run is one). */
const EXPECTED_FAILURES = [LlmAbortedError, LlmCallError, SummaryRunEndedError, SummaryMessageRemovedError];

/**
 * Generate on a store whose run the caller holds (the embedded .summary.lock, or the shared archive's lease):
 * the same steps, outcomes and report on every backend.
 */
export async function generateRun(
  ctx: RunSettings,
  store: SummaryRunStore,
  openLlm: LlmFactory,
  o: SummarizeOptions = {},
  prepare?: () => void | Promise<void>,
): Promise<SessionReport> {
  const session = store.session;
  const report = emptySessionReport(session, "up-to-date");
  const meter = newMeter();
  const startedMs = Date.now();
  try {
    await prepare?.();
    const recovered = await store.begin();
    if (recovered) report.notes.push(recovered);
    const outcome = await run(ctx, store, openLlm, meter, report, o);
    report.outcome = outcome;
    if (["ok", "up-to-date", "waiting", "bootstrap", "pruned"].includes(outcome)) await store.closeGate(startedMs);
  } catch (err) {
    report.outcome = err instanceof LlmAbortedError ? "aborted" : report.chunksDone > 0 ? "partial" : "failed";
    report.error = withSaved(describeError(err), report);
    if (err instanceof LlmCallError) report.failure = err.failure;
    if (!EXPECTED_FAILURES.some((E) => err instanceof E) && !isSystemFailure(err))
      report.notes.push(`unexpected: ${err instanceof Error ? err.name : "error"}`);
  } finally {
    Object.assign(report, { calls: meter.calls, inputTokens: meter.inputTokens, outputTokens: meter.outputTokens });
    // Error texts can quote a server's answer: redacted before they are stored or shown.
    const keys = secretValues(ctx.env ?? process.env);
    if (report.error !== undefined) report.error = redactSecrets(report.error, keys).text;
    report.notes = report.notes.map((n) => redactSecrets(n, keys).text);
    if (report.failure)
      report.failure = { ...report.failure, message: redactSecrets(report.failure.message, keys).text };
    try {
      await store.finish(report.outcome, report, report.error);
    } catch (err) {
      // What was saved is in the report; only the run's record is missing.
      report.notes.push(
        `the run could not be recorded in ${store.recordsIn}: ${errorMessage(err)
          .split("\n")[0]!
          .replace(/; nothing was changed$/, "")}`,
      );
    }
  }
  const cursor = await store.cursorText();
  if (cursor !== undefined) report.cursor = cursor;
  o.onProgress?.({ type: "done", report });
  return report;
}

async function run(
  ctx: RunSettings,
  store: SummaryRunStore,
  openLlm: LlmFactory,
  meter: UsageMeter,
  report: SessionReport,
  o: SummarizeOptions,
): Promise<SessionOutcome> {
  const session = store.session;
  const { before, legacy, cursor, start, notes } = await store.load();
  report.notes.push(...notes);
  if (start.kind === "bootstrap") {
    const newest = await store.newestPosition();
    if (!newest) return "up-to-date";
    await store.saveCursor(newest);
    return "bootstrap";
  }
  const { fresh, last } = await store.messagesFrom(start);
  const { ready, waiting } = splitWaiting(fresh);
  Object.assign(report, { messages: fresh.length, waiting: waiting.length });
  o.onProgress?.({ type: "session", session, messages: fresh.length, waiting: waiting.length });
  if (ready.length === 0) return waiting.length > 0 ? "waiting" : "up-to-date";

  const llm = openLlm(meter);
  let summary = before;
  let kept: StoredMessage[] = ready;
  const model = ctx.config.decision_model.trim();
  if (model) {
    const pr = await pruneNoise({
      llm,
      model,
      session,
      exchanges: groupExchanges(ready),
      previous: before,
      batchChars: ctx.config.summary.chunk_chars,
      signal: o.signal,
    });
    report.notes.push(...pr.failures);
    if (pr.failure) report.failure = pr.failure;
    summary = pr.summary;
    kept = pr.kept.flat();
    report.droppedAsNoise = pr.dropped.reduce((n, e) => n + e.length, 0);
    o.onProgress?.({
      type: "pruned",
      session,
      kept: kept.length,
      dropped: report.droppedAsNoise,
      removedDecisions: pr.removedDecisions.length,
      removedTopics: pr.removedTopics.length,
    });
  }

  // Cursor text after each message of `ready`: the latest time seen so far, never earlier than the old
  // cursor (compared in ns, not as text, so a DST change cannot misorder them). An untimed message's
  // synthesized time moves it only when there is no cursor at all yet.
  const untimed = await store.untimedSeqs();
  const cursorAfter: string[] = [];
  let latestNs = cursor.state === "ok" ? cursor.ns : -1n;
  let latest = cursor.state === "ok" ? cursor.text : "";
  // From the exact position, the cursor stands for the summarized messages' latest time: read in another zone than
  // the one that wrote it, its text is rewritten in this one (else it would stay hours off, before or after them).
  const until = start.kind === "position" ? await store.summarizedUntil(start.afterSeq) : undefined;
  if (until !== undefined && cursor.state === "ok" && writtenInSomeZone(cursor.text, until)) {
    latestNs = until;
    latest = cursorText(until);
  }
  for (const m of ready) {
    if (m.sendAt > latestNs && (latest === "" || !untimed.has(m.seq))) {
      latestNs = m.sendAt;
      latest = cursorText(m.sendAt);
    }
    cursorAfter.push(latest);
  }
  const positionAt = async (i: number) => {
    const at = await store.positionAfter(fresh, i, last!);
    return { seq: at.seq, id: at.id, cursor: cursorAfter[i]! };
  };
  const indexOf = new Map(ready.map((m, i) => [m.seq, i]));

  if (kept.length === 0) {
    // No summary call folds in the keys of Agenvoy's older format this time: they stay for the next one.
    const note = await store.save(summary, await positionAt(ready.length - 1), legacy);
    if (note) report.notes.push(note);
    report.changes = diffSummaries(before, summary);
    return "pruned";
  }

  const chunks = planChunks(kept, ctx.config.summary.chunk_chars);
  report.chunksTotal = chunks.length;
  for (const [i, chunk] of chunks.entries()) {
    if (o.signal?.aborted) return finishWith(report, before, summary, "aborted");
    const index = i + 1;
    o.onProgress?.({
      type: "chunk",
      session,
      chunk: index,
      chunks: chunks.length,
      chars: chunk.chars,
      messages: chunk.parts.length,
    });
    let result: Awaited<ReturnType<typeof summarizeChunk>>;
    try {
      result = await summarizeChunk(llm, {
        model: ctx.config.summary.model,
        session,
        previous: summary,
        legacy: i === 0 ? legacy : {},
        chunk,
        index,
        total: chunks.length,
        replyLang: ctx.config.reply_lang,
        signal: o.signal,
      });
    } catch (err) {
      report.error = redactSecrets(
        withSaved(`chunk ${index}/${chunks.length}: ${describeError(err)}`, report),
        secretValues(ctx.env ?? process.env),
      ).text;
      if (err instanceof LlmCallError) report.failure = err.failure;
      o.onProgress?.({ type: "chunk-failed", session, chunk: index, chunks: chunks.length, error: report.error });
      return finishWith(
        report,
        before,
        summary,
        err instanceof LlmAbortedError ? "aborted" : i > 0 ? "partial" : "failed",
      );
    }
    // Through the message before the next chunk (noise dropped in between counts as done), or the last one.
    const next = chunks[i + 1]?.parts[0]?.message;
    const through = next ? indexOf.get(next.seq)! - 1 : ready.length - 1;
    const saved = await store.save(result.summary, await positionAt(through));
    summary = result.summary;
    report.chunksDone = index;
    if (saved) report.notes.push(saved);
    const n = result.notes;
    if (n.markersRewritten) report.notes.push(`${n.markersRewritten} decision(s) with a legacy marker rewritten`);
    if (n.decisionsCut) report.notes.push(`the answer had ${n.decisionsCut} decision(s) over the limit of 8: left out`);
    if (n.pastCut)
      report.notes.push(`the answer had ${n.pastCut} past topic(s) over the limit of 8: the oldest left out`);
    if (n.traditionalFields) report.notes.push(`${n.traditionalFields} field(s) converted to Traditional Chinese`);
    o.onProgress?.({
      type: "chunk-done",
      session,
      chunk: index,
      chunks: chunks.length,
      inputTokens: result.inputTokens,
      outputTokens: result.outputTokens,
    });
  }
  return finishWith(report, before, summary, "ok");
}

function finishWith(report: SessionReport, before: Summary, after: Summary, outcome: SessionOutcome): SessionOutcome {
  report.changes = diffSummaries(before, after);
  return outcome;
}

/** An error after chunks were saved must not say that nothing changed: it says what was saved. */
function withSaved(text: string, report: SessionReport): string {
  if (report.chunksDone === 0) return text;
  const plain = text
    .replace(/no space left on the device; nothing was changed \((.*)\)$/, "no space left on the device ($1)")
    .replace(/; nothing was changed/g, "");
  return `${plain}; saved: summary.json and .summary_cursor through chunk ${report.chunksDone}/${report.chunksTotal}`;
}

/**
 * Whether a cursor text is `ns` written in some zone (its wall time differs from UTC by a whole quarter-hour, at most
 * 14 hours): a cursor carried over from an older, later one (Agenvoy's, past untimed messages) is not, and stays.
 */
function writtenInSomeZone(text: string, ns: bigint): boolean {
  const wall = Date.parse(`${text.replace(" ", "T")}Z`);
  if (!Number.isFinite(wall)) return false;
  const offset = wall / 1000 - Number(ns / NS_PER_SEC);
  return offset % 900 === 0 && Math.abs(offset) <= 14 * 3600;
}
