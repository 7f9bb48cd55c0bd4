// LLM usage rows as both archives read them back: sums per purpose and model, and per UTC day.
import type { UsageSum } from "../sqlite/stats-queries.ts";
import type { UsageByDay } from "../sqlite/usage-report-repo.ts";

type Num = bigint | number | string;

export interface UsageSumRow {
  purpose: string;
  model: string;
  calls: Num;
  i: Num;
  o: Num;
}

export interface UsageDayRow {
  day: string;
  model: string;
  session_id: string | null;
  calls: Num;
  input: Num;
  output: Num;
}

export const usageSumOf = (r: UsageSumRow): UsageSum => ({
  purpose: r.purpose,
  model: r.model,
  calls: Number(r.calls),
  inputTokens: Number(r.i),
  outputTokens: Number(r.o),
});

export const usageDayOf = (r: UsageDayRow): UsageByDay => ({
  day: r.day,
  model: r.model,
  ...(r.session_id !== null && { session: r.session_id }),
  calls: Number(r.calls),
  inputTokens: Number(r.input),
  outputTokens: Number(r.output),
});
