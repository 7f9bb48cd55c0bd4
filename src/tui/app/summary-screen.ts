// The summary viewer overlay: the selected session's rolling summary; S summarizes now with progress
// and the outcome on the status row.
import { describeError } from "../../shared/describe-error.ts";
import type { SummaryProgress, SummaryView } from "../api-types.ts";
import { applyMotion } from "../state/motions.ts";
import { TextPager } from "../state/text-pager.ts";
import { summaryLines } from "../state/summary-lines.ts";
import { plural } from "../text/format.ts";
import { renderLine } from "../views/segments.ts";
import type { AppContext, Key } from "./app-context.ts";

export class SummaryScreen {
  session: string | undefined;
  private view: SummaryView | undefined;
  private loadError: string | undefined;
  private readonly pager = new TextPager();
  /** The run under way (one at a time), and the session it summarizes. */
  private running: { abort: AbortController; session: string } | undefined;

  constructor(private readonly app: AppContext) {}

  open(session: string | undefined): void {
    this.session = session;
    this.pager.home();
    this.load();
  }

  /**
   * Live update: re-read the summary, keeping the scroll position. `listed`: whether the session is still in the
   * home's list; one another process removed says so here (the status row names the session shown instead).
   */
  refresh(listed = true): void {
    if (this.running?.session === this.session) return;
    if (listed) return this.load();
    this.view = undefined;
    this.loadError = `session ${this.session} was removed by another process`;
  }

  private load(): void {
    const session = this.session;
    // A re-read of the same session keeps the text shown until the new one arrives.
    if (this.view?.session !== session) this.view = undefined;
    this.loadError = undefined;
    if (session === undefined) return;
    const fail = (err: unknown) => {
      if (this.session !== session) return;
      this.view = undefined;
      this.loadError = describeError(err);
      this.app.status.error(err);
    };
    try {
      void this.app.settle(
        this.app.api.summary(session),
        (view) => {
          if (this.session === session) this.view = view;
        },
        fail,
      );
    } catch (err) {
      fail(err);
    }
  }

  /** Scroll by `lines` (the mouse wheel). */
  scroll(lines: number): void {
    this.pager.move(lines);
  }

  handleKey(_ch: string | undefined, key: Key): boolean {
    if (applyMotion(this.pager, key.full, ["arrows", "edges", "vi", "viPages"])) return true;
    switch (key.full) {
      case "escape":
        this.app.close();
        return true;
      case "S-s":
        this.summarizeNow();
        return true;
    }
    return false;
  }

  /** Run Generate for this session now; progress and the outcome go to the status row. */
  summarizeNow(): void {
    const session = this.session;
    if (session === undefined) return;
    if (this.running) {
      const other = this.running.session === session ? "" : ` (S again for ${session} once it is done)`;
      this.app.status.show(`already summarizing ${this.running.session}…${other}`, "busy");
      return;
    }
    const abort = new AbortController();
    this.running = { abort, session };
    this.app.status.show(`summarizing ${session}…`, "busy");
    const onProgress = (e: SummaryProgress) => {
      this.app.status.show(progressText(session, e), "busy");
      this.app.render();
    };
    this.app.guardAsync(
      this.app.api
        .summarize(session, { signal: abort.signal, onProgress })
        .then(
          (report) => {
            const r = report.sessions.find((x) => x.session === session) ?? report.sessions[0];
            const tokens = r ? r.inputTokens + r.outputTokens : 0;
            const ok = r && !["failed", "partial", "aborted", "busy", "skipped"].includes(r.outcome);
            const what = r
              ? `${r.outcome}${r.chunksTotal ? `, ${r.chunksDone}/${r.chunksTotal} chunks` : ""}, ${plural(tokens, "token")}${r.error ? `: ${r.error}` : ""}`
              : "nothing to do";
            this.app.status.show(`summarize ${session}: ${what}`, ok ? "ok" : "error");
          },
          (err) => this.app.status.show(`summarize ${session} failed: ${describeError(err)}`, "error"),
        )
        .finally(() => {
          this.running = undefined;
          if (this.session === session) this.load();
          void this.app.reload();
          this.app.render();
        }),
    );
  }

  /** Stop a run in progress (on quit). */
  abort(): void {
    this.running?.abort.abort();
  }

  render(): void {
    const { layout, theme } = this.app;
    const inner = layout.openOverlay(` Summary · ${this.session ?? "no session"} `);
    let lines: { text: string; style?: Parameters<typeof theme.paint>[0] }[];
    if (this.session === undefined) lines = [{ text: "Select a session first.", style: "dim" }];
    else if (this.loadError) lines = [{ text: `cannot read the summary: ${this.loadError}`, style: "error" }];
    else lines = this.view ? summaryLines(this.view, inner.width) : [];
    const { shown, more } = this.pager.window(lines, inner.height - 1, inner.width, (l) =>
      renderLine(theme, inner.width, [[l.text, l.style]]),
    );
    const run = this.running;
    const state =
      run === undefined ? "" : run.session === this.session ? " (running)" : ` (summarizing ${run.session})`;
    const hint = `${more ? "↓ more · " : ""}S summarize now${state} · Esc back`;
    shown.push(renderLine(theme, inner.width, [[hint, "dim"]]));
    layout.setLines(layout.overlay, shown);
  }
}

function progressText(session: string, e: SummaryProgress): string {
  switch (e.type) {
    case "session":
      return `summarizing ${session}: ${plural(e.messages, "new message")}${e.waiting ? `, ${e.waiting} waiting for a reply` : ""}…`;
    case "pruned":
      return `summarizing ${session}: dropped ${plural(e.dropped, "exchange")} as noise…`;
    case "chunk":
      return `summarizing ${session}: chunk ${e.chunk}/${e.chunks} (${plural(e.messages, "message")})…`;
    case "chunk-done":
      return `summarizing ${session}: chunk ${e.chunk}/${e.chunks} done, ${plural(e.inputTokens + e.outputTokens, "token")}…`;
    case "chunk-failed":
      return `summarizing ${session}: chunk ${e.chunk}/${e.chunks} failed: ${e.error}`;
    case "done":
      return `summarizing ${session}: ${e.report.outcome}`;
  }
}
