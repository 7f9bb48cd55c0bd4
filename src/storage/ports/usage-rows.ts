// LLM usage rows as both archives read them back: sums per purpose and model, and per UTC day.

type Num = bigint | number | string;

export interface UsageSum {
  purpose: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export interface UsageByDay {
  /** UTC date, YYYY-MM-DD. */
  day: string;
  model: string;
  session?: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

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
