// The search overlay: results as you type (debounced), mode/scope/range keys, Enter opens the hit.
import { describeError, errorCode } from "../../shared/describe-error.ts";
import { Debouncer } from "../state/debouncer.ts";
import { applyMotion } from "../state/motions.ts";
import { cannotAnswer, SearchState, type SearchRequest } from "../state/search-state.ts";
import type { SearchOptions, SearchResult } from "../api-types.ts";
import { HIT_ROWS, renderSearch, searchChromeRows } from "../views/search-view.ts";
import { messagePageText } from "../text/plain-text.ts";
import { pageOrCopy, typedText, type AppContext, type Key } from "./app-context.ts";

/** Quiet time after a keystroke before searching: short, so results still follow typing closely. */
export const SEARCH_DEBOUNCE_MS = 20;
/**
 * While typing, each pause shows keyword matches newest first (no ranking pass, fast on any home); once
 * typing rests this long, the chosen mode (hybrid by default) replaces them with ranked results.
 */
export const SEARCH_RANK_MS = 250;
/**
 * The ranked search starts this long after the quick one, while the rest goes on, so that its answer is ready
 * (or nearly) when the rest ends and shows then; a key pressed meanwhile aborts it.
 */
export const SEARCH_PREFETCH_MS = 80;

/** A ranked search under way: for which options, its answer, and how to stop it. */
interface RankedSearch {
  key: string;
  result: Promise<SearchResult>;
  abort: AbortController;
  /** Its answer was (or is being) taken for display. */
  taken: boolean;
}

/** Keys that change the request (mode, scope, range, query) and search again at once. */
const REQUERY = new Map<string, (s: SearchState) => void>([
  ["tab", (s) => s.cycleMode()],
  ["C-s", (s) => s.toggleScope()],
  ["C-t", (s) => s.cycleRange()],
  ["C-u", (s) => s.clearQuery()],
]);

export class SearchScreen {
  readonly state = new SearchState();
  private readonly debounce = new Debouncer(SEARCH_DEBOUNCE_MS);
  private readonly ranking = new Debouncer(SEARCH_RANK_MS);
  private readonly prefetching = new Debouncer(SEARCH_PREFETCH_MS);
  private ranked: RankedSearch | undefined;

  constructor(private readonly app: AppContext) {}

  /** Open for the session currently selected ("this session" scope). */
  open(session: string | undefined): void {
    this.state.open(session);
    if (this.state.query) this.run();
  }

  close(): void {
    this.debounce.cancel();
    this.ranking.cancel();
    this.prefetching.cancel();
    this.abortRanked();
  }

  handleKey(ch: string | undefined, key: Key): boolean {
    const s = this.state;
    if (applyMotion(s.cursor, key.full, ["arrows", "emacs"])) {
      s.userMoved();
      return true;
    }
    const change = REQUERY.get(key.full ?? "");
    if (change) {
      change(s);
      this.run();
      return true;
    }
    switch (key.full) {
      case "escape":
        this.app.close();
        return true;
      case "enter":
        this.openHit();
        return true;
      case "C-o":
      case "C-y": {
        const m = s.selectedHit()?.message;
        if (m) pageOrCopy(this.app, key.full === "C-o", `the hit from ${m.session}`, messagePageText(m), m.content);
        return true;
      }
      case "backspace":
        if (s.backspace()) this.schedule();
        return true;
    }
    const text = typedText(ch, key);
    if (text === undefined) return false;
    s.insert(text);
    this.schedule();
    return true;
  }

  /** Pasted text goes into the query (Tab, Ctrl-S and the other keys in it never run). */
  paste(text: string): boolean {
    this.state.insert(text);
    this.schedule();
    return true;
  }

  private schedule(): void {
    this.ranking.cancel();
    this.prefetching.cancel();
    this.abortRanked();
    this.debounce.schedule(() => this.run(true));
  }

  /** Search now with the current inputs; a slower, older answer never replaces a newer one. */
  run(quick = false): void {
    this.debounce.cancel();
    this.ranking.cancel();
    this.prefetching.cancel();
    const req = this.state.request(quick);
    this.app.render();
    if (!req) return this.abortRanked();
    this.app.guardAsync(this.execute(req, quick));
    if (quick) {
      this.ranking.schedule(() => this.run());
      this.prefetching.schedule(() => this.startRanked(this.state.options()));
    }
  }

  /** Start the ranked search for `options` (aborting the one under way), untaken. */
  private startRanked(options: SearchOptions): RankedSearch {
    this.abortRanked();
    const abort = new AbortController();
    const result = this.app.api.search({ ...options, signal: abort.signal });
    // A dropped search's failure concerns no one; a taken one's is handled where its answer is awaited.
    result.catch(() => {});
    this.ranked = { key: JSON.stringify(options), result, abort, taken: false };
    return this.ranked;
  }

  private abortRanked(): void {
    this.ranked?.abort.abort();
    this.ranked = undefined;
  }

  /** The ranked search for `options`: the one started during the rest when it asked the same, else a new one. */
  private rankedSearch(options: SearchOptions): RankedSearch {
    const r = this.ranked;
    const search = r !== undefined && !r.taken && r.key === JSON.stringify(options) ? r : this.startRanked(options);
    search.taken = true;
    return search;
  }

  private async execute(req: SearchRequest, quick: boolean): Promise<void> {
    const ranked = quick ? undefined : this.rankedSearch(req.options);
    let result: SearchResult;
    try {
      result = await (ranked ? ranked.result : this.app.api.search(req.options));
    } catch (err) {
      if (ranked?.abort.signal.aborted) return; // a newer query took its place
      if (this.scopeGone(req, err)) return;
      if (!this.fallBack(req, describeError(err)) && this.state.fail(req, describeError(err))) this.app.render();
      return;
    }
    const why = cannotAnswer(result);
    if (why !== undefined && this.fallBack(req, why)) return;
    if (this.state.accept(req, result)) this.app.render();
  }

  /**
   * The search was scoped to a session another process has removed since: the scope is dropped (every session is
   * searched) and the answer says why, rather than the search failing for good.
   */
  private scopeGone(req: SearchRequest, err: unknown): boolean {
    const session = req.options.session;
    if (session === undefined || errorCode(err) !== "UnknownSessionError") return false;
    if (this.state.session === session) {
      this.state.dropScope();
      this.run(req.options.order === "newest");
    }
    return true;
  }

  /** The mode cannot answer right now: say why and show keyword matches meanwhile (false: keyword itself failed). */
  private fallBack(req: SearchRequest, reason: string): boolean {
    if (req.options.match === "keyword" || !this.state.isCurrent(req.seq)) return false;
    this.state.markUnavailable(req.options.match ?? "keyword", reason);
    this.run();
    return true;
  }

  private openHit(): void {
    const hit = this.state.selectedHit();
    if (!hit) return;
    this.app.close();
    this.app.openSession(hit.message.session, hit.message.id);
  }

  render(): void {
    const { layout, theme } = this.app;
    const inner = layout.inner(layout.overlay);
    this.state.cursor.setHeight(
      Math.max(1, Math.floor((inner.height - searchChromeRows(this.state, inner.width)) / HIT_ROWS)),
    );
    layout.setFocus(layout.overlay, true, " Search ");
    layout.setLines(layout.overlay, renderSearch(this.state, theme, inner.width, inner.height));
  }
}
