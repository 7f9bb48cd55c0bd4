// memvoy summarize [SESSION]: run Generate now (every due session when none is given), with progress per
// chunk on stderr, ending with what changed.
import type { SessionReport, SummaryProgress } from "../../app/memory-api.ts";
import { bool } from "../args.ts";
import { withAnyHome, withInterrupt, type CommandSpec } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";
import { lineText } from "../../shared/terminal-text.ts";

export const usage = `
Usage: memvoy summarize [SESSION] [--progress] [--json] [--verbose]

Run Generate now: fold the messages newer than the session's cursor into its rolling
summary (summary.json). Without SESSION, every due session is summarized: not temp-,
with messages, and no summary yet, a history.json newer than summary.json, a
summary.json that cannot be read (moved aside, then rebuilt), or a last run that did
not finish. An imported session waits for [import] summarize = true (so importing
history never starts LLM spend); naming it summarizes it now.

Messages come from the archive, so those already compacted out of history.json are
summarized too. They are sent in chunks of at most summary.chunk_chars characters (a
chunk never ends on a user message; a question with no reply yet waits for it), one
call per chunk to summary.model. summary.json and .summary_cursor are saved after
every chunk; the first failed chunk stops the run, and the next run resumes there.
With decision_model set, exchanges it judges noise (confidence >= 0.7) are left out
first, and summary entries the new exchanges supersede are removed.

.summary_cursor holds the local time (YYYY-MM-DD HH:MM:SS, rounded down) of the last summarized
message, as Agenvoy writes it; the exact position is kept in the archive.

In shared mode ([archive] url), messages, summary, cursor, runs and token usage are the
archive's: the run holds the session's lease there (another process summarizing it makes
this one report "busy"), and this host's summary.json and .summary_cursor are rewritten
from the archive after every save. [summary] daily_token_budget is one for every host.

Needs ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy); without it nothing changes.
Ctrl-C stops after the chunk in flight is abandoned: summary.json keeps the last save.

  --progress   progress per chunk on stderr even when it is not a terminal
  --json       print {"sessions": [...]} with each session's outcome, tokens and changes
  --verbose    also print notices from the Anthropic SDK (a deprecated model id) on stderr

Exit codes: 0 every session done (or nothing due, or being summarized by another process),
1 a session failed or was aborted, or SESSION was busy (another process was summarizing it),
2 usage or input error (unknown session, missing ANTHROPIC_API_KEY).
`;

const n = (x: number) => x.toLocaleString("en-US");

function progressLine(p: SummaryProgress): string | undefined {
  switch (p.type) {
    case "session":
      return `${p.session}: ${p.messages} new message(s)${p.waiting ? `, ${p.waiting} waiting for a reply` : ""}`;
    case "pruned":
      return `${p.session}: decision model kept ${p.kept} message(s), dropped ${p.dropped} as noise; removed ${p.removedDecisions} decision(s), ${p.removedTopics} topic(s)`;
    case "chunk":
      return `${p.session}: chunk ${p.chunk}/${p.chunks} (${n(p.chars)} characters, ${p.messages} messages)…`;
    case "chunk-done":
      return `${p.session}: chunk ${p.chunk}/${p.chunks} saved (${n(p.inputTokens)} in / ${n(p.outputTokens)} out tokens)`;
    case "chunk-failed":
      return `${p.session}: ${lineText(p.error)}`;
    default:
      return undefined;
  }
}

function printReport(r: SessionReport): void {
  const bad = r.outcome === "failed" || r.outcome === "partial" || r.outcome === "aborted";
  const parts: string[] = [r.outcome];
  if (r.chunksTotal) parts.push(`${r.chunksDone}/${r.chunksTotal} chunk(s)`);
  if (r.calls) parts.push(`${r.calls} call(s), ${n(r.inputTokens)} in / ${n(r.outputTokens)} out tokens`);
  if (r.droppedAsNoise) parts.push(`${r.droppedAsNoise} message(s) dropped as noise`);
  if (r.cursor) parts.push(`cursor ${r.cursor} local`);
  println(`${bold(r.session)}: ${parts.join(" · ")}`);
  // The model wrote these: shown as text, never as the escape sequences a conversation may have put in them.
  const c = r.changes;
  if (c) {
    for (const d of c.decisionsAdded) println(`  + ${lineText(d)}`);
    for (const d of c.decisionsRemoved) println(`  - ${lineText(d)}`);
    for (const t of c.topicsAdded) println(`  + topic: ${lineText(t)}`);
    for (const t of c.topicsUpdated) println(`  ~ topic: ${lineText(t)}`);
    for (const t of c.topicsRemoved) println(`  - topic: ${lineText(t)}`);
    if (c.currentTopic)
      println(
        `  current topic: ${lineText(c.currentTopic.from) || "(none)"} → ${lineText(c.currentTopic.to) || "(none)"}`,
      );
  }
  if (r.error) println(`  ${bad ? "error" : "note"}: ${lineText(r.error)}`);
  for (const note of r.notes) println(dim(`  note: ${lineText(note)}`));
}

const spec: CommandSpec = {
  name: "summarize",
  usage,
  flags: { progress: { type: "boolean" } },
  optional: ["SESSION"],
  session: true,
  createsNoHome: true,
};

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [session]) => {
    const showProgress = bool(p, "progress") || process.stderr.isTTY === true;
    const report = await withInterrupt(
      (signal) =>
        api.summarize(session, {
          signal,
          onProgress: (e) => {
            const line = showProgress ? progressLine(e) : undefined;
            if (line) process.stderr.write(`${line}\n`);
          },
          onWarning: bool(p, "verbose") ? (line) => process.stderr.write(`memvoy: warning: ${line}\n`) : undefined,
        }),
      "memvoy: stopping (Ctrl-C again to quit at once)\n",
    );
    // A session named and found busy was not summarized by this run (exit 1, as a reindex that could not run); in
    // a batch, the other process is summarizing it, as the batch would have.
    const notDone = ["failed", "partial", "aborted", "skipped", ...(session === undefined ? [] : ["busy"])];
    const failed = report.sessions.some((s) => notDone.includes(s.outcome));
    if (bool(p, "json")) printJson(report);
    else if (report.sessions.length === 0)
      println(session ? `${session}: nothing to summarize` : "nothing to summarize: no session is due");
    else report.sessions.forEach(printReport);
    return failed ? 1 : 0;
  });
}
