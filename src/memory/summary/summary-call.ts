// One summary call: the previous summary in the system prompt, one chunk of transcript as the user
// message; the answer parsed, put under the summary rules, converted to Traditional Chinese when Chinese,
// and validated. Anything short of a valid summary is an LlmAnswerError.
import type { LlmClient } from "../../llm/anthropic-client.ts";
import { LlmAnswerError, LlmCallError, truncatedAnswer } from "../../llm/llm-errors.ts";
import type { Chunk } from "./chunking.ts";
import { PROMPTS, fenceFor, fill } from "./prompts.ts";
import { isJapaneseOutput, languageRule, toTraditional, wantsTraditional } from "./reply-language.ts";
import { assertValidSummary, looseSummaryProblem, parseLooseSummary } from "./summary-schema.ts";
import { applySummaryRules, type RuleNotes } from "./summary-rules.ts";
import { summaryIsEmpty, type Summary } from "./summary-types.ts";
import { renderTranscript } from "./transcript.ts";

export const SUMMARY_MAX_TOKENS = 4096;
/** The room for a second call after an answer was cut off at SUMMARY_MAX_TOKENS (every current model allows it). */
export const SUMMARY_MAX_TOKENS_RETRY = 8192;

export interface ChunkInput {
  model: string;
  session: string;
  previous: Summary;
  /** Pre-v0.32.7 keys of the previous summary, shown to the model so it folds them in. */
  legacy: Record<string, unknown>;
  chunk: Chunk;
  index: number;
  total: number;
  replyLang: string;
  signal?: AbortSignal;
}

export interface ChunkResult {
  summary: Summary;
  notes: RuleNotes & { traditionalFields: number };
  inputTokens: number;
  outputTokens: number;
}

export function summarySystemPrompt(previous: Summary, legacy: Record<string, unknown>, replyLang: string): string {
  const shown = summaryIsEmpty(previous) && Object.keys(legacy).length === 0 ? {} : { ...previous, ...legacy };
  const json = JSON.stringify(shown, null, 2);
  return fill(PROMPTS.summarySystem, {
    LANGUAGE_RULE: languageRule(replyLang),
    PREVIOUS_SUMMARY: json,
    FENCE: fenceFor(json),
  });
}

export function summaryUserPrompt(chunk: Chunk, index: number, total: number): string {
  // A message cannot close the <conversation> block early, however the tag is cased or spaced.
  const transcript = renderTranscript(chunk.parts).replace(/<(\/\s*conversation\s*>)/gi, "<\\$1");
  return fill(PROMPTS.summaryUser, { TRANSCRIPT: transcript, PART: `part ${index} of ${total}` });
}

/**
 * One chunk's summary. An answer cut off at its output limit gets one more call with twice the room: the same
 * chunk would be cut off at every later run, and the session never summarized again. A model that does not
 * allow that much output (HTTP 400) leaves the first error standing.
 */
export async function summarizeChunk(llm: LlmClient, input: ChunkInput): Promise<ChunkResult> {
  try {
    return await summarizeWithin(llm, input, SUMMARY_MAX_TOKENS);
  } catch (err) {
    if (!(err instanceof LlmAnswerError) || err.data.problem !== "truncated") throw err;
    try {
      return await summarizeWithin(llm, input, SUMMARY_MAX_TOKENS_RETRY);
    } catch (again) {
      throw again instanceof LlmCallError && again.status === 400 ? err : again;
    }
  }
}

async function summarizeWithin(llm: LlmClient, input: ChunkInput, maxTokens: number): Promise<ChunkResult> {
  const { candidates, reply } = await llm.completeJson(
    {
      model: input.model,
      system: summarySystemPrompt(input.previous, input.legacy, input.replyLang),
      messages: [{ role: "user", content: summaryUserPrompt(input.chunk, input.index, input.total) }],
      maxTokens,
      purpose: "summary",
      session: input.session,
      signal: input.signal,
    },
    "summary",
  );
  // Decisions or past topics: memory a merge keeps. A lone current topic (small talk) may rightly end empty.
  const p = input.previous;
  const hadEntries = p.key_decisions.length + p.past_discussions.length > 0 || Object.keys(input.legacy).length > 0;
  let emptied = false;
  let problem: string | undefined;
  for (const candidate of candidates) {
    const loose = parseLooseSummary(candidate);
    if (!loose) {
      problem ??= looseSummaryProblem(candidate);
      continue;
    }
    const ruled = applySummaryRules(loose, input.previous);
    // New messages never leave a conversation with nothing to remember: an empty answer would erase the memory.
    if (hadEntries && summaryIsEmpty(ruled.summary)) {
      emptied = true;
      continue;
    }
    const conversation = input.chunk.parts.map((p) => p.text).join("\n");
    const converted =
      !wantsTraditional(input.replyLang) || isJapaneseOutput(input.replyLang, conversation)
        ? { summary: ruled.summary, changed: 0 }
        : await toTraditional(ruled.summary);
    return {
      summary: assertValidSummary(converted.summary),
      notes: { ...ruled.notes, traditionalFields: converted.changed },
      inputTokens: reply.inputTokens,
      outputTokens: reply.outputTokens,
    };
  }
  if (reply.stopReason === "max_tokens") throw truncatedAnswer({ purpose: "summary", maxTokens }, reply);
  if (emptied) throw new LlmAnswerError({ purpose: "summary", model: reply.model, problem: "emptied" });
  throw new LlmAnswerError({
    purpose: "summary",
    model: reply.model,
    problem: "no-summary",
    ...(problem ? { detail: problem } : {}),
  });
}
