// `memvoy usage`: LLM tokens by UTC day, model and session, and where today stands against the daily budget.
import { NS_PER_DAY } from "../shared/time.ts";
import { usageByDay, type UsageByDay } from "../storage/sqlite/usage-report-repo.ts";
import type { MemoryContext } from "./memory-context.ts";
import { budgetState, type BudgetState } from "./summary/token-budget.ts";

export interface UsageReport {
  days: number;
  rows: UsageByDay[];
  budget: BudgetState;
}

export function usageReport(ctx: MemoryContext, days: number): UsageReport {
  const now = ctx.now();
  const since = now - (now % NS_PER_DAY) - BigInt(Math.max(0, days - 1)) * NS_PER_DAY;
  return { days, rows: usageByDay(ctx.db, since), budget: budgetState(ctx) };
}
