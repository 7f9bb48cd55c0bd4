// Summaries in shared mode: Generate (the embedded mode's own code) over the archive's summary store, one
// summarizer per session across hosts (the archive's "summary" lease, renewed while the run goes on), LLM
// usage in the archive, and the daily token budget shared by every host (one call at a time across hosts,
// by the "llm-budget" lease, while a budget is set).
import { isTempSession, assertSessionId } from "../../shared/session-id.ts";
import { describeError } from "../../shared/describe-error.ts";
import { UnknownSessionError } from "../../memory/session-admin.ts";
import { busyReport, generateRun } from "../../memory/summary/generate.ts";
import { openLedgerLlm, type LlmLedger } from "../../memory/summary/llm-access.ts";
import type { SessionReport, SummarizeOptions, SummarizeReport } from "../../memory/summary/summary-report.ts";
import { summarizeEach } from "../../memory/summary/summarize.ts";
import { summaryOfText } from "../../memory/summary/summary-store.ts";
import { budgetOf, dayStartOf, type BudgetState } from "../../memory/summary/token-budget.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import type { SessionRow } from "../../storage/ports/archive-port.ts";
import type { SessionListing, SummaryStatus } from "../../storage/ports/shared-archive-port.ts";
import { leaseTurn } from "../../storage/ports/lease-turn.ts";
import { sleep } from "../../llm/retry.ts";
import { makeLocalHome, turnHolder, type SharedContext } from "./shared-context.ts";
import { SharedSummaryStore } from "./shared-summary-store.ts";

/** The lease one summarizer of a session holds, across hosts. */
export const SUMMARY_JOB = "summary";
/** The lease a budgeted LLM call holds, across hosts. */
export const BUDGET_JOB = "llm-budget";

const UNFINISHED = new Set(["running", "failed", "partial", "aborted"]);

/**
 * Whether the summary cron should run the session: not temp-, with messages, and a last run that did not
 * finish, or messages written since the last finished run started (the embedded mtime gate, kept in the
 * archive), or (no run recorded) no summary yet or one older than the session's last write, or an
 * unreadable summary (`corrupt`) that no finished run has met yet (a run starts over without it; one that
 * saved nothing, its messages all waiting for a reply, is not run again until a write).
 */
export function sharedDue(
  session: string,
  row: SessionRow | undefined,
  status: SummaryStatus,
  corrupt = false,
): boolean {
  if (isTempSession(session) || !row || row.messageCount === 0) return false;
  const { run, summaryUpdatedAt } = status;
  if (run && UNFINISHED.has(run.outcome)) return true;
  if (corrupt && !(run?.finishedAt !== undefined && run.startedAt > (summaryUpdatedAt ?? 0n))) return true;
  if (run?.finishedAt !== undefined) return row.updatedAt >= run.startedAt;
  return summaryUpdatedAt === undefined || summaryUpdatedAt < row.updatedAt;
}

/** The shared memory's LLM ledger: usage rows and today's tokens in the archive, turns by the archive's lease. */
export function sharedLedger(ctx: SharedContext): LlmLedger {
  return {
    config: ctx.config,
    env: ctx.env,
    now: ctx.now,
    key: ctx.archive,
    recordUsage: (u) => ctx.archive.insertUsage(u),
    budget: () => sharedBudget(ctx),
    budgetTurn: (signal) => budgetTurn(ctx, signal),
  };
}

export async function sharedBudget(ctx: SharedContext): Promise<BudgetState> {
  const dayStart = dayStartOf(ctx.now());
  return budgetOf(ctx.config.summary.daily_token_budget, await ctx.archive.tokensSince(dayStart), dayStart);
}

/**
 * Wait for the budget lease (polled: a call may hold it for minutes; a dead holder's lease runs out); undefined
 * once `signal` aborts.
 */
async function budgetTurn(ctx: SharedContext, signal?: AbortSignal): Promise<(() => Promise<void>) | undefined> {
  const take = leaseTurn(ctx.archive, {
    job: BUDGET_JOB,
    session: "*",
    holder: turnHolder(ctx),
    ttlMs: ctx.config.archive.lease_ms,
  });
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    if (signal?.aborted) return undefined;
    const release = await take();
    if (release) return release;
    if (!(await sleep(wait, signal))) return undefined;
  }
}

export class SharedSummaries {
  /** Sessions this memory is summarizing (the lease is not asked again for them). */
  readonly #running = new Set<string>();

  constructor(private readonly ctx: SharedContext) {}

  /** Sessions due for a summary, sorted; imported ones only with [import] summarize = true. */
  async due(): Promise<string[]> {
    const { archive, config } = this.ctx;
    const [sessions, statuses] = await Promise.all([archive.listSessionInfo(), archive.summaryStatuses()]);
    const imported = (s: SessionListing) => !config.import.summarize && s.meta.source !== undefined;
    const due: string[] = [];
    for (const s of sessions) {
      const status = statuses.get(s.id) ?? {};
      if (imported(s)) continue;
      if (sharedDue(s.id, s, status) || (sharedDue(s.id, s, status, true) && (await this.#corrupt(s.id, status))))
        due.push(s.id);
    }
    return due.sort();
  }

  /** Which summary versions hold an unreadable summary (each version's text is read once per process). */
  readonly #checked = new Map<string, { version: bigint; corrupt: boolean }>();

  async #corrupt(session: string, status: SummaryStatus): Promise<boolean> {
    if (status.summaryVersion === undefined) return false;
    const known = this.#checked.get(session);
    if (known?.version === status.summaryVersion) return known.corrupt;
    const state = await this.ctx.archive.getSummaryState(session);
    if (!state) return false;
    const corrupt = summaryOfText(state.summary).state === "corrupt";
    this.#checked.set(session, { version: state.version, corrupt });
    return corrupt;
  }

  /** Generate now on one session, or on every due session. MissingApiKeyError before anything changes. */
  async summarize(session: string | undefined, o: SummarizeOptions = {}): Promise<SummarizeReport> {
    let targets: string[];
    if (session !== undefined) {
      assertSessionId(session);
      refuseSessionSymlinks(this.ctx.paths.session(session));
      if (!(await this.ctx.archive.getSession(session)))
        throw new UnknownSessionError({ session, home: `${this.ctx.paths.home} (shared archive)` });
      targets = [session];
    } else targets = await this.due();
    if (targets.length === 0) return { sessions: [] };
    const ledger = sharedLedger(this.ctx);
    openLedgerLlm(ledger);
    makeLocalHome(this.ctx); // the run keeps this host's summary files
    return summarizeEach(
      targets,
      o,
      (id) => this.#one(id, ledger, o),
      session === undefined ? this.ctx.paths.session : undefined,
    );
  }

  /** One session's run, holding its summary lease; "busy" when another process holds it. */
  async #one(session: string, ledger: LlmLedger, o: SummarizeOptions): Promise<SessionReport> {
    if (this.#running.has(session)) return busyReport(session, "this process is summarizing this session already");
    const { archive, config } = this.ctx;
    const lost = new AbortController();
    this.#running.add(session);
    try {
      const turn = await leaseTurn(archive, {
        job: SUMMARY_JOB,
        session,
        holder: turnHolder(this.ctx),
        ttlMs: config.archive.lease_ms,
        onLost: () => lost.abort(),
      })();
      if (!turn) {
        const other = await archive.leaseHolder(SUMMARY_JOB, session).catch(() => undefined);
        return busyReport(session, `another process is summarizing this session${other ? ` (${other.holder})` : ""}`);
      }
      try {
        const signal = o.signal ? AbortSignal.any([o.signal, lost.signal]) : lost.signal;
        const store = new SharedSummaryStore(this.ctx, session, () => !lost.signal.aborted);
        const report = await generateRun(
          { config, env: this.ctx.env },
          store,
          (meter) => openLedgerLlm(ledger, meter, o.onWarning),
          {
            ...o,
            signal,
          },
        );
        if (lost.signal.aborted)
          report.notes.push("the summary lease ran out and another process took the session over: this run stopped");
        return report;
      } finally {
        await turn().catch((err) => o.onWarning?.(`could not give the summary lease back: ${describeError(err)}`));
      }
    } finally {
      this.#running.delete(session);
    }
  }
}
