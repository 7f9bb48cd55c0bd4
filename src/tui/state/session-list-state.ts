// The session list: type-to-filter (id, and title/source/project when a session has them), sort by recent
// activity, name or size, selection kept by id.
import type { SessionInfo } from "../api-types.ts";
import { ListCursor } from "./list-cursor.ts";

export type SessionSort = "recent" | "name" | "size";
export const SORTS: readonly SessionSort[] = ["recent", "name", "size"];

/** Characters a session id can hold; typing one of them extends the filter. */
export const FILTER_CHAR = /^[A-Za-z0-9._-]$/;
/** Filter characters beyond id characters (titles and projects): printable, not / or ? (search, help). */
const TEXT_CHAR = /^[^\s/?\p{Cc}]$/u;

/** Text compared by the filter: composed (NFC), so an accent stored decomposed (as macOS names folders) matches one typed. */
const comparable = (text: string) => text.normalize("NFC").toLowerCase();

function haystack(s: SessionInfo): string {
  return comparable([s.id, s.title, s.source, s.project].filter((x) => typeof x === "string" && x !== "").join("\n"));
}

export class SessionListState {
  private all: SessionInfo[] = [];
  // Kept for the list until it or the sort changes: each key typed into the filter only filters (which keeps the
  // order) instead of sorting and lower-casing every session again.
  private sorted: SessionInfo[] | undefined;
  /** What the filter looks in, for each of `sorted` (set at the first filtering of that order). */
  private haystacks: string[] | undefined;
  visible: SessionInfo[] = [];
  filter = "";
  sort: SessionSort = "recent";
  readonly cursor = new ListCursor();

  setSessions(list: readonly SessionInfo[]): void {
    const keep = this.selectedId();
    this.all = [...list];
    this.sorted = this.haystacks = undefined;
    this.apply(keep, true);
  }

  /** Whether any session carries a title, source or project (the filter then matches those too). */
  hasLabels(): boolean {
    return this.all.some((s) => !!(s.title || s.source || s.project));
  }

  get total(): number {
    return this.all.length;
  }

  get totalMessages(): number {
    return this.all.reduce((n, s) => n + s.messages, 0);
  }

  selected(): SessionInfo | undefined {
    return this.visible[this.cursor.selected];
  }

  selectedId(): string | undefined {
    return this.selected()?.id;
  }

  typeChar(ch: string): boolean {
    // A space only inside a filter (titles have spaces); a lone one stays free for other keys.
    if (!FILTER_CHAR.test(ch) && !TEXT_CHAR.test(ch) && !(ch === " " && this.filter !== "")) return false;
    this.filter += ch;
    this.apply(this.selectedId());
    return true;
  }

  /** Pasted text (one line, no control characters) extends the filter whole: / and ? too (a project's path). */
  typeText(text: string): boolean {
    const added = this.filter === "" ? text.trimStart() : text;
    if (added === "") return false;
    this.filter += added;
    this.apply(this.selectedId());
    return true;
  }

  backspace(): boolean {
    if (this.filter === "") return false;
    this.filter = Array.from(this.filter).slice(0, -1).join("");
    this.apply(this.selectedId());
    return true;
  }

  clearFilter(): boolean {
    if (this.filter === "") return false;
    this.filter = "";
    this.apply(this.selectedId());
    return true;
  }

  /** recent → name → size → recent. */
  toggleSort(): void {
    this.sort = SORTS[(SORTS.indexOf(this.sort) + 1) % SORTS.length]!;
    this.sorted = this.haystacks = undefined;
    this.apply(this.selectedId());
  }

  /** Select a session by id, clearing the filter when it hides it. Returns false when there is no such session. */
  selectId(id: string): boolean {
    if (!this.visible.some((s) => s.id === id)) {
      if (!this.all.some((s) => s.id === id)) return false;
      this.filter = "";
    }
    this.apply(id);
    return true;
  }

  /**
   * `keepPlace`: a selected session that is gone (removed by another process) gives its row to its neighbour, filter or
   * not; otherwise a filter that hides it selects the first match (the likeliest target of what was typed).
   */
  private apply(keepId: string | undefined, keepPlace = false): void {
    const needle = comparable(this.filter);
    const sorted = (this.sorted ??= sortedBy(this.all, this.sort));
    let list = [...sorted];
    if (needle) {
      const hay = (this.haystacks ??= sorted.map(haystack));
      // Ids starting with the filter first (the likeliest target), keeping the sort within each group (a
      // haystack begins with the session's id).
      const first: SessionInfo[] = [];
      const rest: SessionInfo[] = [];
      for (let i = 0; i < sorted.length; i++)
        if (hay[i]!.includes(needle)) (hay[i]!.startsWith(needle) ? first : rest).push(sorted[i]!);
      list = first.length === 0 ? rest : rest.length === 0 ? first : [...first, ...rest];
    }
    this.visible = list;
    this.cursor.setCount(list.length);
    const at = keepId === undefined ? -1 : list.findIndex((s) => s.id === keepId);
    this.cursor.select(at >= 0 ? at : needle && !keepPlace ? 0 : this.cursor.selected);
  }
}

/** A copy of the list in a sort's order, ties by id. */
function sortedBy(list: readonly SessionInfo[], sort: SessionSort): SessionInfo[] {
  const out = [...list];
  if (sort === "name") out.sort((a, b) => a.id.localeCompare(b.id));
  else if (sort === "size") out.sort((a, b) => b.messages - a.messages || a.id.localeCompare(b.id));
  else
    out.sort((a, b) =>
      a.lastActivity === b.lastActivity ? a.id.localeCompare(b.id) : a.lastActivity > b.lastActivity ? -1 : 1,
    );
  return out;
}
