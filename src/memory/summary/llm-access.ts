// The LLM client for memory work: settings from the home's environment and config, every answered
// call's token usage written to the archive's llm_usage and added to the caller's meter, the daily token
// budget checked before each call. Where usage goes and how calls take turns is the ledger's: the home's
// SQLite and a flock here, the shared archive and its lease in shared mode.
import { LlmClient, llmSettings } from "../../llm/anthropic-client.ts";
import type { LlmUsage } from "../../llm/llm-types.ts";
import type { Config } from "../../config/schema.ts";
import { insertUsage, type UsageRow } from "../../storage/sqlite/usage-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { join } from "node:path";
import { ensureDirIn } from "../../shared/atomic-write.ts";
import { tryLockFile } from "../../shared/file-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { budgetState, spentCheck, type BudgetState } from "./token-budget.ts";

export interface UsageMeter {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export function newMeter(): UsageMeter {
  return { calls: 0, inputTokens: 0, outputTokens: 0 };
}

export function envOf(ctx: {
  env?: Readonly<Record<string, string | undefined>>;
}): Readonly<Record<string, string | undefined>> {
  return ctx.env ?? process.env;
}

/** Where a memory's LLM calls are accounted: usage rows, today's budget, and one call at a time when budgeted. */
export interface LlmLedger {
  readonly config: Config;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly now: () => bigint;
  /** Calls of one ledger (the same store) chain in this process under this key. */
  readonly key: object;
  recordUsage(u: UsageRow): void | Promise<void>;
  budget(): BudgetState | Promise<BudgetState>;
  /** Wait for the budget's turn across processes (and hosts); resolves with its release. */
  budgetTurn(): Promise<() => void | Promise<void>>;
}

/** The embedded home's ledger: SQLite's llm_usage and a flock on .store/llm-budget.lock. */
export function homeLedger(ctx: MemoryContext): LlmLedger {
  return {
    config: ctx.config,
    env: ctx.env,
    now: ctx.now,
    key: ctx.db,
    recordUsage: (u) => withWriteLock(ctx.db, () => insertUsage(ctx.db, u)),
    budget: () => budgetState(ctx),
    budgetTurn: () => budgetFlock(ctx),
  };
}

/** Throws MissingApiKeyError (nothing touched) when ANTHROPIC_API_KEY is not set. */
export function openLlm(ctx: MemoryContext, meter?: UsageMeter, onWarning?: (line: string) => void): LlmClient {
  return openLedgerLlm(homeLedger(ctx), meter, onWarning);
}

/** openLlm over any ledger. */
export function openLedgerLlm(ledger: LlmLedger, meter?: UsageMeter, onWarning?: (line: string) => void): LlmClient {
  const onUsage = (u: LlmUsage) => {
    if (meter) {
      meter.calls++;
      meter.inputTokens += u.inputTokens;
      meter.outputTokens += u.outputTokens;
    }
    return ledger.recordUsage({ ...u, at: ledger.now() });
  };
  const beforeCall = async (req: { purpose: string }) => spentCheck(await ledger.budget(), req.purpose);
  return oneAtATime(
    ledger,
    new LlmClient(
      llmSettings(
        envOf(ledger),
        ledger.config.summary,
        onWarning ? { onUsage, onWarning, beforeCall } : { onUsage, beforeCall },
      ),
    ),
  );
}

const lastCall = new WeakMap<object, Promise<unknown>>();

/**
 * With a daily token budget, a memory's calls run one at a time, in this process and across processes (the
 * ledger's turn), so each is checked against the budget after the tokens of the one before it are
 * counted: concurrent summaries, a daemon and a `summarize` included, cannot overshoot it together.
 */
function oneAtATime(ledger: LlmLedger, client: LlmClient): LlmClient {
  if (ledger.config.summary.daily_token_budget <= 0) return client;
  const complete = client.complete.bind(client);
  client.complete = (req) => {
    const run = (lastCall.get(ledger.key) ?? Promise.resolve()).then(async () => {
      const release = await ledger.budgetTurn();
      try {
        return await complete(req);
      } finally {
        await release();
      }
    });
    lastCall.set(
      ledger.key,
      run.catch(() => {}),
    );
    return run;
  };
  return client;
}

/** The home's budget lock, waited for without blocking the event loop (an LLM call may hold it for minutes). */
async function budgetFlock(ctx: MemoryContext): Promise<() => void> {
  ensureDirIn(ctx.paths.store);
  const path = join(ctx.paths.store, "llm-budget.lock");
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    const release = tryLockFile(path);
    if (release) return release;
    await Bun.sleep(wait);
  }
}
