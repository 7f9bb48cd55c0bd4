// The search pane: query, match mode, scope and time range, the results of the latest request only,
// and fallback to keyword matching while another mode is unavailable.
import { QueryInput } from "./query-input.ts";
import type { TimeRange } from "../../shared/time.ts";
import type { MatchMode, SearchHit, SearchOptions, SearchResult } from "../api-types.ts";
import { ListCursor } from "./list-cursor.ts";

export const MODES: readonly MatchMode[] = ["hybrid", "keyword", "semantic"];
export const RANGES: readonly TimeRange[] = ["all", "1d", "7d", "30d", "1y"];
export type Scope = "all" | "session";

export interface SearchRequest {
  seq: number;
  options: SearchOptions;
  /** The mode the user chose; options.match may differ when that mode is known to be unavailable. */
  mode: MatchMode;
}

/**
 * Why a ranked answer could not search at all, or undefined: no hits because the stored vectors come from
 * another embedder than the configured one (its notes say which, and that a reindex fixes it).
 */
export function cannotAnswer(result: SearchResult): string | undefined {
  if (result.hits.length > 0 || !result.reindexNeeded) return undefined;
  return result.notes.length ? result.notes.join("; ") : (result.emptyReason ?? "the vectors need a reindex");
}

export class SearchState extends QueryInput {
  mode: MatchMode = "hybrid";
  scope: Scope = "all";
  range: TimeRange = "all";
  /** The session "this session" refers to. */
  session: string | undefined;
  /** The session the scope named until another process removed it (said beside the answers). */
  removedScope: string | undefined;
  hits: SearchHit[] = [];
  /** What the hit list answers (query and mode actually used), or undefined before the first answer. */
  answered: { query: string; match: MatchMode; newest: boolean } | undefined;
  notes: string[] = [];
  /** Why the answer holds no hit (the scope, the time range, a term no message holds...), when the search says. */
  emptyReason: string | undefined;
  error: string | undefined;
  busy = false;
  readonly cursor = new ListCursor();
  /** Modes found unavailable, with the reason (searches fall back to keyword meanwhile). */
  readonly unavailable = new Map<MatchMode, string>();
  private seq = 0;

  constructor(readonly limit = 50) {
    super();
  }

  open(session: string | undefined): void {
    this.session = session;
    this.removedScope = undefined;
    if (session === undefined) this.scope = "all";
  }

  /** The user moved the cursor since the query last changed: answers keep the selected hit instead of starting on the best one. */
  private moved = false;

  userMoved(): void {
    this.moved = true;
  }

  override insert(text: string): void {
    super.insert(text);
    this.moved = false;
  }

  override backspace(): boolean {
    this.moved = false;
    return super.backspace();
  }

  clearQuery(): void {
    this.query = "";
    this.moved = false;
  }

  /** Next mode; choosing a mode again retries it even if it failed before. */
  cycleMode(): void {
    this.mode = MODES[(MODES.indexOf(this.mode) + 1) % MODES.length]!;
    this.unavailable.delete(this.mode);
  }

  /** The scope's session is gone (removed by another process): search every session from now on. */
  dropScope(): void {
    if (this.session !== undefined) this.removedScope = this.session;
    this.session = undefined;
    this.scope = "all";
  }

  toggleScope(): void {
    this.scope = this.scope === "all" && this.session !== undefined ? "session" : "all";
  }

  cycleRange(): void {
    this.range = RANGES[(RANGES.indexOf(this.range) + 1) % RANGES.length]!;
  }

  /** The mode a request will actually use. */
  effectiveMode(mode: MatchMode = this.mode): MatchMode {
    return this.unavailable.has(mode) ? "keyword" : mode;
  }

  /**
   * A request for the current inputs, or undefined (and the list cleared) when the query is blank.
   * `quick`: keyword matches newest first, cheap enough for every keystroke; the chosen mode follows.
   */
  request(quick = false): SearchRequest | undefined {
    const seq = ++this.seq;
    if (this.query.trim() === "") {
      this.hits = [];
      this.answered = undefined;
      this.notes = [];
      this.emptyReason = undefined;
      this.error = undefined;
      this.busy = false;
      this.cursor.setCount(0);
      return undefined;
    }
    this.busy = true;
    return { seq, options: this.options(quick), mode: this.mode };
  }

  /** The search options for the current inputs (quick: keyword matches newest first). */
  options(quick = false): SearchOptions {
    const options: SearchOptions = {
      query: this.query,
      match: quick ? "keyword" : this.effectiveMode(),
      range: this.range,
      limit: this.limit,
      typing: true,
    };
    if (quick) options.order = "newest";
    if (this.scope === "session" && this.session !== undefined) options.session = this.session;
    return options;
  }

  /** Whether an answer still matches the latest request (older answers are dropped). */
  isCurrent(seq: number): boolean {
    return seq === this.seq;
  }

  accept(req: SearchRequest, result: SearchResult): boolean {
    if (!this.isCurrent(req.seq)) return false;
    const keepId = this.selectedHit()?.message.id;
    this.busy = false;
    this.error = undefined;
    this.hits = result.hits;
    this.notes = [...result.notes];
    this.emptyReason = result.hits.length === 0 ? result.emptyReason : undefined;
    this.answered = {
      query: req.options.query,
      match: req.options.match ?? "keyword",
      newest: req.options.order === "newest",
    };
    this.cursor.setCount(this.hits.length);
    const at = keepId && this.moved ? this.hits.findIndex((h) => h.message.id === keepId) : -1;
    this.cursor.select(at >= 0 ? at : 0);
    return true;
  }

  /** A mode turned out to be unavailable: remember why; the caller retries (the mode falls back to keyword). */
  markUnavailable(mode: MatchMode, reason: string): void {
    if (mode !== "keyword") this.unavailable.set(mode, reason);
  }

  fail(req: SearchRequest, message: string): boolean {
    if (!this.isCurrent(req.seq)) return false;
    // Keyword matching failed too (the archive is down): the chosen mode's failure was not its own, so it is
    // tried again by the next search instead of staying "unavailable" once the archive answers.
    if (req.options.match === "keyword") this.unavailable.delete(req.mode);
    this.busy = false;
    this.error = message;
    return true;
  }

  selectedHit(): SearchHit | undefined {
    return this.hits[this.cursor.selected];
  }

  /** One line describing the mode in use, including a fallback. */
  modeLabel(): string {
    const eff = this.effectiveMode();
    return eff === this.mode ? this.mode : `${this.mode} unavailable → ${eff}`;
  }
}
