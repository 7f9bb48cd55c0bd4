// The LLM client for memory work: settings from the home's environment and config, every answered
// call's token usage written to the archive's llm_usage and added to the caller's meter, the daily token
// budget checked before each call. Where usage goes and how calls take turns is the ledger's: the home's
// SQLite and a flock here, the shared archive and its lease in shared mode.
import { LlmClient, llmSettings } from "../../llm/anthropic-client.ts";
import { LlmAbortedError } from "../../llm/llm-errors.ts";
import type { LlmRequest, LlmUsage } from "../../llm/llm-types.ts";
import { sleep } from "../../llm/retry.ts";
import type { Config } from "../../config/schema.ts";
import { insertUsage, type UsageRow } from "../../storage/sqlite/usage-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { join } from "node:path";
import { ensureDirIn } from "../../shared/atomic-write.ts";
import { tryLockFile } from "../../shared/file-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { homeLockFree } from "../home-lock.ts";
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
  /**
   * Wait for the budget's turn across processes (and hosts); resolves with its release, or with undefined once
   * `signal` aborts (the caller gave up: the turn is never taken).
   */
  budgetTurn(signal?: AbortSignal): Promise<(() => void | Promise<void>) | undefined>;
}

/** The embedded home's ledger: SQLite's llm_usage and a flock on .store/llm-budget.lock. */
export function homeLedger(ctx: MemoryContext): LlmLedger {
  return {
    config: ctx.config,
    env: ctx.env,
    now: ctx.now,
    key: ctx.db,
    // Waited for without blocking while another process writes: a daemon or an MCP server keeps answering, and a
    // relevance check keeps to its timeout.
    recordUsage: async (u) => {
      await homeLockFree(ctx);
      withWriteLock(ctx.db, () => insertUsage(ctx.db, u));
    },
    budget: () => budgetState(ctx),
    budgetTurn: (signal) => budgetFlock(ctx, signal),
  };
}

/** Throws MissingApiKeyError (nothing touched) when ANTHROPIC_API_KEY is not set. */
export function openLlm(ctx: MemoryContext, meter?: UsageMeter, onWarning?: (line: string) => void): LlmClient {
  return openLedgerLlm(homeLedger(ctx), meter, onWarning);
}

/** openLlm over any ledger. */
export function openLedgerLlm(ledger: LlmLedger, meter?: UsageMeter, onWarning?: (line: string) => void): LlmClient {
  const sent = new WeakMap<LlmRequest, bigint>();
  const onUsage = (u: LlmUsage, req: LlmRequest) => {
    if (meter) {
      meter.calls++;
      meter.inputTokens += u.inputTokens;
      meter.outputTokens += u.outputTokens;
    }
    return ledger.recordUsage({ ...u, at: ledger.now(), sentAt: sent.get(req) });
  };
  const beforeCall = async (req: LlmRequest) => {
    sent.set(req, ledger.now());
    spentCheck(await ledger.budget(), req.purpose);
  };
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
 * counted: concurrent summaries, a daemon and a `summarize` included, cannot overshoot it together. A call
 * whose signal aborts while it waits for its turn gives up at once (a relevance check past its timeout, a
 * stop), instead of waiting for another process's call to end.
 */
function oneAtATime(ledger: LlmLedger, client: LlmClient): LlmClient {
  if (ledger.config.summary.daily_token_budget <= 0) return client;
  const complete = client.complete.bind(client);
  client.complete = (req) => {
    const before = lastCall.get(ledger.key) ?? Promise.resolve();
    const run = (async () => {
      await untilSettled(before, req.signal);
      const release = req.signal?.aborted ? undefined : await ledger.budgetTurn(req.signal);
      if (!release) throw abortedWhileWaiting(req);
      try {
        return await complete(req);
      } finally {
        await release();
      }
    })();
    // The next call waits for this one and for any this one stopped waiting for.
    lastCall.set(
      ledger.key,
      Promise.allSettled([before, run]).then(() => {}),
    );
    return run;
  };
  return client;
}

function abortedWhileWaiting(req: LlmRequest): LlmAbortedError {
  return new LlmAbortedError({ purpose: req.purpose, model: req.model }, { cause: req.signal?.reason });
}

/** Resolves when `p` settles or `signal` aborts, whichever comes first. */
function untilSettled(p: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal)
    return p.then(
      () => {},
      () => {},
    );
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    p.then(done, done);
  });
}

/**
 * The home's budget lock, waited for without blocking the event loop (an LLM call may hold it for minutes);
 * undefined once `signal` aborts.
 */
async function budgetFlock(ctx: MemoryContext, signal?: AbortSignal): Promise<(() => void) | undefined> {
  ensureDirIn(ctx.paths.store);
  const path = join(ctx.paths.store, "llm-budget.lock");
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    if (signal?.aborted) return undefined;
    const release = tryLockFile(path);
    if (release) return release;
    if (!(await sleep(wait, signal))) return undefined;
  }
}
