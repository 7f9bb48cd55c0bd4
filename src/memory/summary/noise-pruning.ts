// The decision model before a summary run: group new messages into exchanges, drop those judged noise
// with confidence >= 0.7, then remove previous-summary entries the remaining exchanges reverse or
// supersede. A failed check keeps everything; an abort is passed on.
import * as v from "valibot";
import type { LlmClient } from "../../llm/anthropic-client.ts";
import { LlmAbortedError, LlmAnswerError, LlmCallError, type LlmFailure } from "../../llm/llm-errors.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { describeError } from "../../shared/describe-error.ts";
import { countChars, shorten } from "./chunking.ts";
import { PROMPTS } from "./prompts.ts";
import type { Summary } from "./summary-types.ts";
import { renderMessage } from "./transcript.ts";

export const NOISE_CONFIDENCE = 0.7;
const EXCERPT_CHARS = 400;
const DECISION_MAX_TOKENS = 2048;
/** Exchanges judged per noise call: the answer has a verdict for each (about 25 tokens), within DECISION_MAX_TOKENS. */
const NOISE_BATCH_EXCHANGES = 50;

/**
 * A user message and the replies after it; user messages in a row share the replies that follow them (leading
 * replies with no user message form one too). Dropping an exchange therefore never leaves a question without
 * its reply at the end of what is summarized, where a chunk would end on a user message.
 */
export type Exchange = StoredMessage[];

export function groupExchanges(messages: readonly StoredMessage[]): Exchange[] {
  const out: Exchange[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (last && (m.role !== "user" || last[last.length - 1]!.role === "user")) last.push(m);
    else out.push([m]);
  }
  return out;
}

function renderExchange(e: Exchange, index: number): string {
  return `=== Exchange ${index} ===\n` + e.map((m) => renderMessage(m, shorten(m.content, EXCERPT_CHARS))).join("\n");
}

/** Exchanges in batches of at most `maxChars` rendered characters and `maxCount` exchanges (at least one each). */
function batches(exchanges: readonly Exchange[], maxChars: number, maxCount = Infinity): Exchange[][] {
  const out: Exchange[][] = [];
  let cur: Exchange[] = [];
  let size = 0;
  for (const e of exchanges) {
    const n = countChars(renderExchange(e, 0));
    if (cur.length > 0 && (size + n > maxChars || cur.length >= maxCount)) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(e);
    size += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

const NoiseAnswer = v.object({
  exchanges: v.array(
    v.object({
      index: v.pipe(v.number(), v.integer()),
      noise: v.boolean(),
      confidence: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
    }),
  ),
});
const SupersedeAnswer = v.object({
  key_decisions: v.optional(v.array(v.pipe(v.number(), v.integer())), []),
  past_discussions: v.optional(v.array(v.pipe(v.number(), v.integer())), []),
});

function firstValid<S extends v.GenericSchema>(schema: S, candidates: unknown[], what: string): v.InferOutput<S> {
  for (const c of candidates) {
    const r = v.safeParse(schema, c);
    if (r.success) return r.output;
  }
  throw new LlmAnswerError({ purpose: what, problem: "shape" });
}

export interface PruneInput {
  llm: LlmClient;
  model: string;
  session: string;
  exchanges: Exchange[];
  previous: Summary;
  batchChars: number;
  signal?: AbortSignal;
}

export interface PruneResult {
  kept: Exchange[];
  dropped: Exchange[];
  summary: Summary;
  removedDecisions: string[];
  removedTopics: string[];
  /** What went wrong with a check (everything was kept for it), for the run report. */
  failures: string[];
  /** The LLM call that failed after its retries, when one did. */
  failure?: LlmFailure;
}

export async function pruneNoise(p: PruneInput): Promise<PruneResult> {
  const failures: string[] = [];
  let failure: LlmFailure | undefined;
  let kept = p.exchanges;
  let dropped: Exchange[] = [];
  try {
    const noise = new Set<Exchange>();
    for (const batch of batches(p.exchanges, p.batchChars, NOISE_BATCH_EXCHANGES)) {
      const { candidates } = await p.llm.completeJson({
        model: p.model,
        system: PROMPTS.noiseSystem,
        messages: [{ role: "user", content: batch.map(renderExchange).join("\n\n") }],
        maxTokens: DECISION_MAX_TOKENS,
        purpose: "noise",
        session: p.session,
        signal: p.signal,
      });
      for (const j of firstValid(NoiseAnswer, candidates, "noise").exchanges) {
        if (j.noise && j.confidence >= NOISE_CONFIDENCE && batch[j.index]) noise.add(batch[j.index]!);
      }
    }
    kept = p.exchanges.filter((e) => !noise.has(e));
    dropped = p.exchanges.filter((e) => noise.has(e));
  } catch (err) {
    if (err instanceof LlmAbortedError) throw err;
    if (err instanceof LlmCallError) failure = err.failure;
    failures.push(`noise check failed, every exchange kept: ${describeError(err)}`);
  }
  const result: PruneResult = { kept, dropped, summary: p.previous, removedDecisions: [], removedTopics: [], failures };
  if (failure) result.failure = failure;
  if (kept.length === 0 || (p.previous.key_decisions.length === 0 && p.previous.past_discussions.length === 0))
    return result;
  try {
    const decisions = new Set<number>();
    const topics = new Set<number>();
    const entries =
      "## Summary entries\n\nkey_decisions:\n" +
      (p.previous.key_decisions.map((d, i) => `[${i}] ${d}`).join("\n") || "(none)") +
      "\n\npast_discussions:\n" +
      (p.previous.past_discussions
        .map((d, i) => `[${i}] ${d.topic}: ${d.description} Direction: ${d.direction}`)
        .join("\n") || "(none)");
    for (const batch of batches(kept, p.batchChars)) {
      const { candidates } = await p.llm.completeJson({
        model: p.model,
        system: PROMPTS.supersedeSystem,
        messages: [
          { role: "user", content: `${entries}\n\n## New exchanges\n\n${batch.map(renderExchange).join("\n\n")}` },
        ],
        maxTokens: DECISION_MAX_TOKENS,
        purpose: "supersede",
        session: p.session,
        signal: p.signal,
      });
      const a = firstValid(SupersedeAnswer, candidates, "supersede");
      for (const i of a.key_decisions) if (i >= 0 && i < p.previous.key_decisions.length) decisions.add(i);
      for (const i of a.past_discussions) if (i >= 0 && i < p.previous.past_discussions.length) topics.add(i);
    }
    result.removedDecisions = p.previous.key_decisions.filter((_, i) => decisions.has(i));
    result.removedTopics = p.previous.past_discussions.filter((_, i) => topics.has(i)).map((t) => t.topic);
    result.summary = {
      key_decisions: p.previous.key_decisions.filter((_, i) => !decisions.has(i)),
      past_discussions: p.previous.past_discussions.filter((_, i) => !topics.has(i)),
      current_discussion: p.previous.current_discussion,
    };
  } catch (err) {
    if (err instanceof LlmAbortedError) throw err;
    if (err instanceof LlmCallError) result.failure = err.failure;
    failures.push(`supersede check failed, every summary entry kept: ${describeError(err)}`);
  }
  return result;
}
