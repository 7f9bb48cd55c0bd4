// The per-turn relevance filter: with a decision model set, keep only the summary entries relevant to the
// request. Never delays a turn by more than context.relevance_timeout_ms; a timeout, a failure, a missing
// key or no decision model keeps every entry; when nothing is relevant the summary is left out.
import * as v from "valibot";
import { LlmAnswerError, LlmCallError } from "../../llm/llm-errors.ts";
import { describeError } from "../../shared/describe-error.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { shorten } from "./chunking.ts";
import { openLedgerLlm, type LlmLedger } from "./llm-access.ts";
import { PROMPTS } from "./prompts.ts";
import { currentIsEmpty, emptyCurrent, type Summary } from "./summary-types.ts";
import { renderMessage } from "./transcript.ts";

export type RelevanceOutcome = "off" | "all" | "some" | "none" | "failed" | "timeout";

export interface RelevanceReport {
  outcome: RelevanceOutcome;
  /** Entries kept / entries in the summary (decisions + past topics + the current topic). */
  kept: number;
  total: number;
  detail?: string;
}

const Answer = v.object({
  key_decisions: v.optional(v.array(v.pipe(v.number(), v.integer())), []),
  past_discussions: v.optional(v.array(v.pipe(v.number(), v.integer())), []),
  current_discussion: v.optional(v.boolean(), false),
});

/** A key left out means none of that kind, but an object with none of the keys is no answer (not "none relevant"). */
function holdsAnswerKey(c: unknown): boolean {
  return typeof c === "object" && c !== null && Object.keys(Answer.entries).some((k) => k in c);
}

/**
 * Every number names an entry: an answer naming one the summary does not have (counted from 1, or made up) is
 * no answer, as it could leave out the entries it meant to keep.
 */
function indexesExist(answer: v.InferOutput<typeof Answer>, s: Summary): boolean {
  const within = (list: number[], length: number) => list.every((i) => i >= 0 && i < length);
  return (
    within(answer.key_decisions, s.key_decisions.length) && within(answer.past_discussions, s.past_discussions.length)
  );
}

function entryCount(s: Summary): number {
  return s.key_decisions.length + s.past_discussions.length + (currentIsEmpty(s.current_discussion) ? 0 : 1);
}

function describe(s: Summary, input: string, recent: readonly StoredMessage[]): string {
  const lines = ["## Summary entries", "", "key_decisions:"];
  lines.push(...(s.key_decisions.length ? s.key_decisions.map((d, i) => `[${i}] ${d}`) : ["(none)"]));
  lines.push("", "past_discussions:");
  lines.push(
    ...(s.past_discussions.length
      ? s.past_discussions.map((p, i) => `[${i}] ${p.topic}: ${p.description}`)
      : ["(none)"]),
  );
  const c = s.current_discussion;
  lines.push("", `current_discussion: ${currentIsEmpty(c) ? "(none)" : `${c.topic}: ${c.description}`}`);
  if (recent.length > 0)
    lines.push("", "## Latest messages", "", ...recent.map((m) => renderMessage(m, shorten(m.content, 600))));
  lines.push("", "## The request", "", shorten(input, 4000));
  return lines.join("\n");
}

/** The whole summary, unfiltered, with this outcome (no decision model, or none available here). */
export function keepAll(summary: Summary, outcome: RelevanceOutcome, detail?: string) {
  const total = entryCount(summary);
  return { summary, report: { outcome, kept: total, total, ...(detail ? { detail } : {}) } as RelevanceReport };
}

/** `ledger`: the memory whose config, key and usage rows the call goes through (embedded or shared). */
export async function filterRelevant(
  ledger: LlmLedger,
  session: string,
  summary: Summary,
  input: string | undefined,
  recent: readonly StoredMessage[],
): Promise<{ summary: Summary | undefined; report: RelevanceReport }> {
  const total = entryCount(summary);
  const all = (outcome: RelevanceOutcome, detail?: string) => ({
    summary,
    report: { outcome, kept: total, total, ...(detail ? { detail } : {}) },
  });
  const model = ledger.config.decision_model.trim();
  if (!model) return all("off");
  if (!input || input.trim() === "") return all("off", "no request to judge");
  if (total === 0) return all("all");
  const timeoutMs = ledger.config.context.relevance_timeout_ms;
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve("timeout");
    }, timeoutMs);
  });
  const judge = (async () => {
    const llm = openLedgerLlm(ledger);
    const { candidates } = await llm.completeJson({
      model,
      system: PROMPTS.relevanceSystem,
      messages: [{ role: "user", content: describe(summary, input, recent.slice(-2)) }],
      maxTokens: 512,
      purpose: "relevance",
      session,
      signal: abort.signal,
      deadlineMs: timeoutMs,
    });
    for (const c of candidates) {
      if (!holdsAnswerKey(c)) continue;
      const r = v.safeParse(Answer, c);
      if (r.success && indexesExist(r.output, summary)) return r.output;
    }
    throw new LlmAnswerError({ purpose: "relevance", problem: "shape" });
  })();
  const late = () => all("timeout", `no answer within ${timeoutMs} ms`);
  try {
    const answer = await Promise.race([judge, timedOut]);
    if (answer === "timeout") {
      judge.catch(() => {}); // settles after the abort; nothing waits for it
      return late();
    }
    const d = new Set(answer.key_decisions);
    const p = new Set(answer.past_discussions);
    const filtered: Summary = {
      key_decisions: summary.key_decisions.filter((_, i) => d.has(i)),
      past_discussions: summary.past_discussions.filter((_, i) => p.has(i)),
      current_discussion: answer.current_discussion ? summary.current_discussion : emptyCurrent(),
    };
    const kept = entryCount(filtered);
    if (kept === 0) return { summary: undefined, report: { outcome: "none", kept, total } };
    return { summary: filtered, report: { outcome: kept === total ? "all" : "some", kept, total } };
  } catch (err) {
    // The client's own deadline (the same timeout) can expire a moment before the timer above.
    if (err instanceof LlmCallError && err.data.kind === "timeout") return late();
    return all("failed", describeError(err));
  } finally {
    clearTimeout(timer);
  }
}
