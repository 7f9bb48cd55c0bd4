// The summary viewer's content as styled lines: the state line (cursor, last run, tokens), then
// key_decisions, past_discussions and current_discussion, then token usage per purpose and model.
import { nsToLocalSeconds } from "../../shared/time.ts";
import type { SummaryView } from "../api-types.ts";
import { count, plural } from "../text/format.ts";
import { displayText } from "../../shared/terminal-text.ts";
import { packParts, wrapLines } from "../text/wrap.ts";

export type SummaryStyle = "title" | "dim" | "ok" | "error" | "key";
export interface SummaryLine {
  text: string;
  style?: SummaryStyle;
}

export function summaryLines(view: SummaryView, width: number): SummaryLine[] {
  const out: SummaryLine[] = [];
  const wrap = (text: string, indent: string, style?: SummaryStyle, first = indent) => {
    const lines = wrapLines(displayText(text), Math.max(1, width - indent.length), Math.max(1, width - first.length));
    lines.forEach((l, i) => out.push({ text: (i === 0 ? first : indent) + l, ...(style ? { style } : {}) }));
  };
  const run = view.lastRun;
  const tokens = view.usage.reduce((a, u) => ({ in: a.in + u.inputTokens, out: a.out + u.outputTokens }), {
    in: 0,
    out: 0,
  });
  const cursor = view.cursor ? `${view.cursor} local` : view.cursorProblem ? `invalid (${view.cursorProblem})` : "none";
  wrap(`cursor ${cursor}`, "  ", "dim", "");
  // Wrapped between its parts: a failed run's reason is the part that matters, and it is long.
  const runParts = run
    ? [
        `last run ${nsToLocalSeconds(run.finishedAt ?? run.startedAt)}`,
        run.outcome,
        ...(run.chunksTotal ? [`${run.chunksDone}/${run.chunksTotal} chunks`] : []),
        ...(run.error ? [displayText(run.error)] : []),
      ]
    : ["last run: never"];
  for (const text of packParts(runParts, width)) out.push({ text, style: run?.error ? "error" : "dim" });
  const used = [`tokens used ${count(tokens.in)} in`, `${count(tokens.out)} out`];
  if (view.due) used.push("new messages wait to be summarized");
  for (const text of packParts(used, width)) out.push({ text, style: "dim" });
  out.push({ text: "" });
  if (view.state === "missing") {
    out.push({ text: "No summary yet.", style: "title" });
    wrap("Press S to summarize this session now (the model needs ANTHROPIC_API_KEY), or run the daemon.", "", "dim");
    return out;
  }
  if (view.state === "corrupt") {
    wrap(`summary.json cannot be read: ${view.problem ?? "unknown problem"}`, "  ", "error", "");
    wrap("The next summary run moves it aside and starts again.", "", "dim");
    return out;
  }
  const s = view.summary!;
  out.push({ text: `Key decisions (${s.key_decisions.length})`, style: "title" });
  if (s.key_decisions.length === 0) out.push({ text: "  none", style: "dim" });
  for (const d of s.key_decisions) wrap(d, "    ", d.startsWith("Don't") ? "error" : "ok", "  • ");
  out.push({ text: "" });
  out.push({ text: `Past discussions (${s.past_discussions.length})`, style: "title" });
  if (s.past_discussions.length === 0) out.push({ text: "  none", style: "dim" });
  for (const p of s.past_discussions) {
    wrap(`${p.topic}${p.last_discussed ? `  (${p.last_discussed} UTC)` : ""}`, "    ", "key", "  • ");
    if (p.description) wrap(p.description, "    ");
    if (p.direction) wrap(p.direction, "      ", "dim", "    → ");
  }
  out.push({ text: "" });
  out.push({ text: "Current discussion", style: "title" });
  const c = s.current_discussion;
  if (!c.topic && !c.description && !c.perspectives && !c.direction) out.push({ text: "  none", style: "dim" });
  if (c.topic) wrap(c.topic, "  ", "key");
  if (c.description) wrap(c.description, "  ");
  if (c.perspectives) wrap(c.perspectives, "    ", undefined, "  perspectives: ");
  if (c.direction) wrap(c.direction, "    ", "dim", "  → ");
  if (view.usage.length) {
    out.push({ text: "" });
    out.push({ text: "Token usage", style: "title" });
    for (const u of view.usage)
      out.push({
        text: `  ${u.purpose} · ${u.model}: ${plural(u.calls, "call")}, ${count(u.inputTokens)} in / ${count(u.outputTokens)} out`,
      });
  }
  return out;
}
