// [summary] daily_token_budget: input plus output tokens per UTC day over every LLM call (summary cron,
// summarize, relevance filter, noise pruning). Once spent, no further call is made until 00:00 UTC.
import { namedError } from "../../shared/errors.ts";
import { NS_PER_DAY } from "../../shared/time.ts";
import { tokensSince } from "../../storage/sqlite/usage-report-repo.ts";
import type { MemoryContext } from "../memory-context.ts";

/** Today's [summary] daily_token_budget is used up: no `purpose` call is made until 00:00 UTC. */
export const TokenBudgetSpentError = namedError<{ used: number; budget: number; day: string; purpose: string }>(
  "TokenBudgetSpentError",
  "runtime",
  (d) =>
    `the daily token budget is spent: ${d.used} of ${d.budget} tokens used on ${d.day} (UTC) ([summary] daily_token_budget); no ${d.purpose} call is made until 00:00 UTC`,
);
export type TokenBudgetSpentError = InstanceType<typeof TokenBudgetSpentError>;

export interface BudgetState {
  /** 0: no limit. */
  budget: number;
  usedToday: number;
  spent: boolean;
  /** The UTC day counted, YYYY-MM-DD. */
  day: string;
}

export function budgetState(ctx: MemoryContext): BudgetState {
  const dayStart = dayStartOf(ctx.now());
  return budgetOf(ctx.config.summary.daily_token_budget, tokensSince(ctx.db, dayStart), dayStart);
}

/** The UTC day's start of `now`, in ns. */
export function dayStartOf(now: bigint): bigint {
  return now - (now % NS_PER_DAY);
}

/** The budget state of a UTC day (starting at `dayStart`, ns) on which `usedToday` tokens were spent. */
export function budgetOf(budget: number, usedToday: number, dayStart: bigint): BudgetState {
  return {
    budget,
    usedToday,
    spent: budget > 0 && usedToday >= budget,
    day: new Date(Number(dayStart / 1_000_000n)).toISOString().slice(0, 10),
  };
}

/** Throws TokenBudgetSpentError when today's budget is spent; nothing is sent then. */
export function checkBudget(ctx: MemoryContext, purpose: string): void {
  spentCheck(budgetState(ctx), purpose);
}

/** Throws TokenBudgetSpentError when `b` is spent. */
export function spentCheck(b: BudgetState, purpose: string): void {
  if (!b.spent) return;
  throw new TokenBudgetSpentError({ used: b.usedToday, budget: b.budget, day: b.day, purpose });
}
