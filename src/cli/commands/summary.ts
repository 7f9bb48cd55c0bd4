// memvoy summary SESSION: the rolling summary, the cursor and exact position, the last run and token usage.
import type { SummaryView } from "../../app/memory-api.ts";
import { nsToLocalSeconds } from "../../shared/time.ts";
import { bool } from "../args.ts";
import { sessionSpec, withAnyHome } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";
import { terminalText } from "../../shared/terminal-text.ts";
import { summaryJson } from "../../app/api/json-shapes.ts";

export const usage = `
Usage: memvoy summary SESSION [--json]

Show the session's rolling summary (summary.json): key decisions, past discussions and
the current discussion. Then the cursor (.summary_cursor: the local time of the last
summarized message, YYYY-MM-DD HH:MM:SS) and the exact position reached, the last
summary run (when, outcome, chunks, calls and tokens), the token usage of every LLM
call made for the session, and whether the session is due for a run.

  --json   print it as one JSON document (times RFC 3339 UTC)
`;

const n = (x: number) => x.toLocaleString("en-US");

export const viewJson = summaryJson;

function printView(v: SummaryView): void {
  // An id that looks like a flag (-x) is named after -- in a command to copy.
  const arg = v.session.startsWith("-") ? `-- ${v.session}` : v.session;
  if (v.state === "missing") println(dim(`${v.session} has no summary yet (memvoy summarize ${arg})`));
  if (v.state === "corrupt")
    println(`summary.json is unreadable (${v.problem}); the next run moves it aside and starts over`);
  const s = v.summary;
  if (s) {
    println(bold("Key decisions"));
    println(s.key_decisions.length ? s.key_decisions.map((d) => `  ${terminalText(d)}`).join("\n") : dim("  (none)"));
    println(bold("Past discussions"));
    if (s.past_discussions.length === 0) println(dim("  (none)"));
    for (const p of s.past_discussions) {
      println(`  • ${terminalText(p.topic)}${p.last_discussed ? dim(` (${p.last_discussed} UTC)`) : ""}`);
      if (p.description) println(`      ${terminalText(p.description)}`);
      if (p.direction) println(`      direction: ${terminalText(p.direction)}`);
    }
    const c = s.current_discussion;
    println(bold("Current discussion"));
    if (!c.topic && !c.description) println(dim("  (none)"));
    else {
      println(`  ${terminalText(c.topic)}`);
      if (c.description) println(`      ${terminalText(c.description)}`);
      if (c.perspectives) println(`      perspectives: ${terminalText(c.perspectives)}`);
      if (c.direction) println(`      direction: ${terminalText(c.direction)}`);
    }
    if (v.legacy)
      println(dim(`  (also old-format keys ${Object.keys(v.legacy).join(", ")}: folded in at the next run)`));
    println();
  }
  const pos = v.position ? dim(` (exact position: message ${v.position.id})`) : "";
  println(`${bold("Cursor")}: ${v.cursor ? `${v.cursor} local${pos}` : (v.cursorProblem ?? dim("none"))}`);
  const r = v.lastRun;
  if (r) {
    const when = nsToLocalSeconds(r.finishedAt ?? r.startedAt);
    const parts = [
      r.outcome,
      `${r.chunksDone}/${r.chunksTotal} chunk(s)`,
      `${r.calls} call(s)`,
      `${n(r.inputTokens)} in / ${n(r.outputTokens)} out tokens`,
    ];
    println(`${bold("Last run")}: ${when} · ${parts.join(" · ")}`);
    if (r.error) println(`  error: ${r.error}`);
  } else println(`${bold("Last run")}: ${dim("never")}`);
  if (v.usage.length > 0) {
    println(bold("Token usage (all calls)"));
    for (const u of v.usage)
      println(
        `  ${u.purpose.padEnd(10)} ${u.model}: ${u.calls} call(s), ${n(u.inputTokens)} in / ${n(u.outputTokens)} out`,
      );
  }
  const waits = v.waitsForImport
    ? dim(
        ` (an imported session: the cron and memvoy summarize wait for [import] summarize = true; memvoy summarize ${arg} runs it now)`,
      )
    : "";
  println(`${bold("Due")}: ${v.due ? "yes" : "no"}${waits}`);
}

const spec = sessionSpec("summary", usage, {}, { createsNoHome: true });

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [session]) => {
    const view = await api.summary(session!);
    if (bool(p, "json")) printJson(viewJson(view));
    else printView(view);
    return 0;
  });
}
