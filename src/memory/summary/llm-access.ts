// The LLM client for memory work: settings from the home's environment and config, every answered
// call's token usage written to SQLite (llm_usage) and added to the caller's meter.
import { LlmClient, llmSettings } from "../../llm/anthropic-client.ts";
import type { LlmUsage } from "../../llm/llm-types.ts";
import { insertUsage } from "../../storage/sqlite/usage-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { join } from "node:path";
import { ensureDir } from "../../shared/atomic-write.ts";
import { tryLockFile } from "../../shared/file-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { checkBudget } from "./token-budget.ts";

export interface UsageMeter {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export function newMeter(): UsageMeter {
  return { calls: 0, inputTokens: 0, outputTokens: 0 };
}

export function envOf(ctx: MemoryContext): Readonly<Record<string, string | undefined>> {
  return ctx.env ?? process.env;
}

/** Throws MissingApiKeyError (nothing touched) when ANTHROPIC_API_KEY is not set. */
export function openLlm(ctx: MemoryContext, meter?: UsageMeter, onWarning?: (line: string) => void): LlmClient {
  const onUsage = (u: LlmUsage) => {
    if (meter) {
      meter.calls++;
      meter.inputTokens += u.inputTokens;
      meter.outputTokens += u.outputTokens;
    }
    withWriteLock(ctx.db, () => insertUsage(ctx.db, { ...u, at: ctx.now() }));
  };
  const beforeCall = (req: { purpose: string }) => checkBudget(ctx, req.purpose);
  return oneAtATime(
    ctx,
    new LlmClient(
      llmSettings(
        envOf(ctx),
        ctx.config.summary,
        onWarning ? { onUsage, onWarning, beforeCall } : { onUsage, beforeCall },
      ),
    ),
  );
}

const lastCall = new WeakMap<object, Promise<unknown>>();

/**
 * With a daily token budget, a home's calls run one at a time, in this process and across processes (a flock on
 * .store/llm-budget.lock), so each is checked against the budget after the tokens of the one before it are
 * counted: concurrent summaries, a daemon and a `summarize` included, cannot overshoot it together.
 */
function oneAtATime(ctx: MemoryContext, client: LlmClient): LlmClient {
  if (ctx.config.summary.daily_token_budget <= 0) return client;
  const complete = client.complete.bind(client);
  client.complete = (req) => {
    const run = (lastCall.get(ctx.db) ?? Promise.resolve()).then(async () => {
      const release = await budgetTurn(ctx);
      try {
        return await complete(req);
      } finally {
        release();
      }
    });
    lastCall.set(
      ctx.db,
      run.catch(() => {}),
    );
    return run;
  };
  return client;
}

/** The home's budget lock, waited for without blocking the event loop (an LLM call may hold it for minutes). */
async function budgetTurn(ctx: MemoryContext): Promise<() => void> {
  ensureDir(ctx.paths.store);
  const path = join(ctx.paths.store, "llm-budget.lock");
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    const release = tryLockFile(path);
    if (release) return release;
    await Bun.sleep(wait);
  }
}
