// The summary cron: each tick runs Generate on every due session (mtime gate) not already being summarized;
// a session whose run failed is retried at the next tick, unless it no longer exists (removed meanwhile).
import type { SummaryCronApi } from "../../app/maintenance-api.ts";
import type { SessionReport } from "../../app/memory-api.ts";
import { MemvoyError } from "../../shared/errors.ts";
import { describeError, errorCode } from "../../shared/describe-error.ts";
import { isTempSession } from "../../shared/session-id.ts";
import type { DaemonLog } from "../log.ts";
import type { CronJob, JobOutcome } from "../scheduler.ts";

/** Sessions summarized at the same time within one tick. */
const CONCURRENCY = 2;

/** A session's run as the tick counts it: its outcome (ok, waiting, up-to-date, busy…), failed or abandoned. */
type RunResult = string;

interface Tick {
  signal: AbortSignal;
  log: DaemonLog;
  errors: string[];
  /** Set by an error no other session can escape (a missing or refused API key): the tick stops starting runs. */
  fatal?: string;
}

export function summaryJob(api: SummaryCronApi, pattern: string): CronJob {
  /** Sessions an earlier tick took: waiting in its queue, or running (`running`). */
  const inFlight = new Set<string>();
  const running = new Set<string>();
  const retry = new Set<string>();
  /** The skip reason logged for a session still in flight (logged again only when it changes). */
  const skipLogged = new Map<string, string>();
  // A notice from the SDK (a deprecated model id) comes with every run: logged once while the daemon runs.
  const warned = new Set<string>();
  let budgetLogged: string | undefined;

  function abandoned(t: Tick, session: string): RunResult {
    t.log.info("summary.abandoned", { session, note: "summary.json is the last saved state; the session stays due" });
    return "abandoned";
  }

  /** A session removed since it became due (or failed): nothing to retry, and no reason to stop the tick. */
  function gone(t: Tick, session: string): RunResult {
    retry.delete(session);
    t.log.info("summary.gone", { session, note: "the session was removed; it is not retried" });
    return "gone";
  }

  function failed(t: Tick, session: string, message: string, started: number, err?: unknown): RunResult {
    retry.add(session);
    t.errors.push(`${session}: ${message}`);
    t.log.error("summary.fail", {
      session,
      ms: Math.round(performance.now() - started),
      error: message,
      next: "retried at the next tick",
    });
    if (err instanceof MemvoyError && err.exitCode === 2) t.fatal = message;
    return "failed";
  }

  async function runOne(t: Tick, session: string): Promise<RunResult> {
    const { log, signal } = t;
    const started = performance.now();
    log.info("summary.start", { session, retry: retry.has(session) || undefined });
    let report: SessionReport | undefined;
    try {
      const r = await api.summarize(session, {
        signal,
        onProgress: (e) => {
          if (e.type === "chunk")
            log.info("summary.chunk", {
              session,
              chunk: `${e.chunk}/${e.chunks}`,
              chars: e.chars,
              messages: e.messages,
            });
          else if (e.type === "chunk-failed")
            log.warn("summary.chunk_failed", { session, chunk: `${e.chunk}/${e.chunks}`, error: e.error });
        },
        onWarning: (line) => {
          if (warned.has(line)) return;
          warned.add(line);
          log.warn("summary.warning", { session, warning: log.scrub(line) });
        },
      });
      report = r.sessions.find((x) => x.session === session);
    } catch (err) {
      if (signal.aborted) return abandoned(t, session);
      if (errorCode(err) === "UnknownSessionError") return gone(t, session);
      return failed(t, session, log.scrub(describeError(err)), started, err);
    }
    const outcome = report?.outcome ?? "skipped";
    if (outcome === "aborted" || (signal.aborted && outcome === "skipped")) return abandoned(t, session);
    if (outcome === "failed" || outcome === "partial") {
      const why = report?.error ?? (report?.notes.length ? report.notes.join("; ") : outcome);
      if (report?.failure?.fatal) t.fatal = log.scrub(report.failure.message);
      return failed(t, session, `${outcome}: ${log.scrub(why)}`, started);
    }
    retry.delete(session);
    const chunks = report && report.chunksTotal > 0 ? `${report.chunksDone}/${report.chunksTotal}` : undefined;
    log.info("summary.done", {
      session,
      ms: Math.round(performance.now() - started),
      outcome,
      chunks,
      messages: report?.messages,
    });
    return outcome === "ok" ? "summarized" : outcome;
  }

  return {
    name: "summaries",
    pattern,
    overlap: true,
    async run({ signal, log }): Promise<JobOutcome> {
      const due = new Set([...(await api.dueSessions()), ...retry].filter((s) => !isTempSession(s)));
      const todo: string[] = [];
      for (const s of due) {
        if (!inFlight.has(s)) todo.push(s);
        else {
          const reason = running.has(s)
            ? "its previous run is still going"
            : "queued by an earlier tick that is still running: it runs there, after the sessions before it";
          if (skipLogged.get(s) === reason) continue;
          skipLogged.set(s, reason);
          log.info("summary.skip", { session: s, reason });
        }
      }
      if (todo.length === 0)
        return {
          worked: false,
          detail: due.size ? `${due.size} still running or queued by an earlier tick` : "nothing due",
        };
      const budget = await api.dailyBudget();
      if (budget.spent) {
        // No call is made once the day's budget is spent: said once a day in the log, and in daemon status.
        if (budgetLogged !== budget.day)
          log.warn("summary.budget_spent", {
            day: budget.day,
            used: budget.usedToday,
            budget: budget.budget,
            waiting: todo.length,
          });
        budgetLogged = budget.day;
        return {
          worked: false,
          detail: `daily token budget spent (${budget.usedToday} of ${budget.budget} tokens on ${budget.day} UTC): ${todo.length} session(s) wait for 00:00 UTC`,
        };
      }
      for (const s of todo) inFlight.add(s);
      const t: Tick = { signal, log, errors: [] };
      const counts = new Map<RunResult, number>();
      const count = (r: RunResult) => counts.set(r, (counts.get(r) ?? 0) + 1);
      const queue = [...todo];
      const worker = async () => {
        for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
          try {
            if (signal.aborted || t.fatal) count("not started");
            else {
              running.add(s);
              count(await runOne(t, s));
            }
          } finally {
            inFlight.delete(s);
            running.delete(s);
            skipLogged.delete(s);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, todo.length) }, worker));
      const parts = [...counts].map(
        ([r, n]) =>
          `${n} ${r === "failed" ? "failed (retried next tick)" : r === "abandoned" ? "abandoned at stop" : r}`,
      );
      return { detail: parts.join(", "), errors: t.errors };
    },
  };
}
