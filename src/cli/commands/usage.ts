// memvoy usage [--days N]: LLM tokens by day, model and session, and the daily budget.
import { CommandUsageError } from "../usage-errors.ts";
import { bool, num } from "../args.ts";
import { withAnyHome, type AnyHome, type CommandSpec } from "../command.ts";
import { bold, printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy usage [--days N] [--json]

LLM token usage recorded by this home (every call: summaries, noise pruning, the relevance filter),
by UTC day, model and session, newest day first; and today's total against [summary] daily_token_budget.
The calls of a session since removed (memvoy rm) stay counted, under session "-".

  --days N   how many days back, today included (default 30, at most 36500)

On a shared archive ([archive] url or MEMVOY_ARCHIVE_URL) the figures are every host's
calls, read from PostgreSQL; --json adds "shared" with the archive it was read from.
`;

/** A hundred years: far past any record, and the first day still a time the archive can hold. */
const MAX_DAYS = 36_500;

const spec: CommandSpec = {
  name: "usage",
  usage,
  createsNoHome: true,
  flags: { days: { type: "number" } },
  positionals: [],
  check: (p) => {
    const days = num(p, "days") ?? 30;
    if (days < 1 || days > MAX_DAYS)
      throw new CommandUsageError({
        problem: "flag-rule",
        command: "usage",
        flag: "--days",
        rule: `a whole number from 1 to ${MAX_DAYS}`,
      });
  },
};

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, (api, p) => report(api, num(p, "days") ?? 30, bool(p, "json")));
}

async function report(api: AnyHome, days: number, json: boolean): Promise<number> {
  const r = await api.usage({ days });
  if (json) {
    printJson(r);
    return 0;
  }
  const b = r.budget;
  println(
    b.budget > 0
      ? `today (${b.day} UTC): ${b.usedToday} of ${b.budget} tokens${b.spent ? " — budget spent, no LLM call until 00:00 UTC" : ""}`
      : `today (${b.day} UTC): ${b.usedToday} tokens (no daily budget set)`,
  );
  if (r.rows.length === 0) {
    println(`no LLM calls in the last ${days} day(s)`);
    return 0;
  }
  const w = Math.max(7, ...r.rows.map((x) => (x.session ?? "-").length));
  const mw = Math.max(5, ...r.rows.map((x) => x.model.length));
  println(
    bold(
      `DAY         ${"MODEL".padEnd(mw)}  ${"SESSION".padEnd(w)}  ${"CALLS".padStart(5)}  ${"INPUT".padStart(9)}  ${"OUTPUT".padStart(9)}`,
    ),
  );
  for (const x of r.rows) {
    const counts = `${String(x.calls).padStart(5)}  ${String(x.inputTokens).padStart(9)}  ${String(x.outputTokens).padStart(9)}`;
    println(`${x.day}  ${x.model.padEnd(mw)}  ${(x.session ?? "-").padEnd(w)}  ${counts}`);
  }
  return 0;
}
