// The error-memory browser overlay: list, search (debounced), detail, delete with confirmation.
import { describeError } from "../../shared/describe-error.ts";
import { lineText } from "../../shared/terminal-text.ts";
import { truncate } from "../text/char-width.ts";
import { Debouncer } from "../state/debouncer.ts";
import { applyMotion } from "../state/motions.ts";
import { ErrorMemoryState } from "../state/error-memory-state.ts";
import { renderErrorMemory } from "../views/error-memory-view.ts";
import { errorRecordText } from "../text/plain-text.ts";
import { pageOrCopy, typedText, type AppContext, type Key } from "./app-context.ts";

const LIST_LIMIT = 500;
const SEARCH_LIMIT = 50;

export class ErrorMemoryScreen {
  readonly state = new ErrorMemoryState();
  private readonly debounce = new Debouncer(80);

  constructor(private readonly app: AppContext) {}

  open(): void {
    this.reload();
  }

  close(): void {
    this.debounce.cancel();
  }

  /** The plain list, or the current search again. */
  reload(): void {
    if (this.state.query.trim()) this.search();
    else this.readList();
  }

  /** The records' count and newest change when the search shown was last run again for a live update. */
  private searchedAt: string | undefined;

  /**
   * Live update: the plain list is read again; the search shown runs again once the records changed (one added,
   * updated or removed: a browsing search is no hit, so it restarts no TTL), and not for other writes to the home (a
   * message, the daemon's embeddings), since each run embeds the query, with a remote embedder a call to its service.
   */
  refresh(): void {
    if (!this.state.query.trim()) return this.readList();
    void this.app.settle(this.app.api.listErrors({ limit: 1 }), (list) => {
      this.state.total = list.total;
      const newest = list.records[0];
      const stamp = `${list.total}:${newest?.id}:${newest?.updatedAt}`;
      if (stamp === this.searchedAt) return;
      this.searchedAt = stamp;
      if (this.state.query.trim()) this.search();
    });
  }

  /** The plain list (kept only while no search was typed meanwhile). */
  private readList(): void {
    this.state.dropSearch();
    void this.app.settle(this.app.api.listErrors({ limit: LIST_LIMIT }), (list) => {
      if (!this.state.query.trim()) this.state.setList(list);
    });
  }

  /** Whether the search field has the keys. */
  typing(): boolean {
    return this.state.typing;
  }

  handleKey(ch: string | undefined, key: Key): boolean {
    const s = this.state;
    if (s.typing) {
      switch (key.full) {
        case "enter":
        case "escape":
          s.typing = false;
          return true;
        case "backspace":
          if (s.backspace()) this.schedule();
          return true;
        case "C-u":
          s.query = "";
          this.schedule();
          return true;
        case "up":
        case "down":
          s.typing = false;
          break;
        default: {
          const text = typedText(ch, key);
          if (text === undefined) return false;
          s.insert(text);
          this.schedule();
          return true;
        }
      }
    }
    if (applyMotion(s.cursor, key.full, ["arrows", "edges", "vi"])) return true;
    switch (key.full) {
      case "enter":
        if (s.selected()) s.detail = !s.detail;
        return true;
      case "d":
      case "delete":
        this.askDelete();
        return true;
      case "o":
      case "y": {
        const r = s.selected();
        if (r) pageOrCopy(this.app, key.full === "o", `error record ${r.id}`, errorRecordText(r));
        return true;
      }
      case "escape":
        if (s.detail) s.detail = false;
        else if (s.query) {
          s.query = "";
          this.reload();
        } else this.app.close();
        return true;
    }
    if (ch === "/") {
      s.typing = true;
      s.detail = false;
      return true;
    }
    return false;
  }

  /** Pasted text goes into the search field while it has the keys; the list takes none (false): d would delete. */
  paste(text: string): boolean {
    if (!this.state.typing) return false;
    this.state.insert(text);
    this.schedule();
    return true;
  }

  private schedule(): void {
    this.debounce.schedule(() => {
      this.guardSearch();
      this.app.render();
    });
  }

  private guardSearch(): void {
    try {
      this.search();
    } catch (err) {
      this.app.status.error(err);
    }
  }

  private search(): void {
    const query = this.state.query.trim();
    if (!query) return this.readList();
    const ticket = this.state.nextSearch(query);
    this.app.guardAsync(
      // A person browsing is no hit, as in `errors list` and `show`: searching as one types would restart the
      // TTL of every record each partial query matches.
      this.app.api.searchErrors({ query, limit: SEARCH_LIMIT, hit: false }).then(
        (r) => {
          if (this.state.setSearch(ticket, query, r)) this.app.render();
        },
        (err) => {
          this.state.searchFailed(ticket);
          this.app.status.show(`error search failed: ${describeError(err)}`, "error");
          this.app.render();
        },
      ),
    );
  }

  private askDelete(): void {
    const r = this.state.selected();
    if (!r) return;
    // Shown as the detail shows it: a tool's output often holds colour codes, and no escape reaches the terminal.
    const preview = lineText(r.error).replace(/\s+/g, " ").trim();
    this.app.confirm({
      title: `Delete error record ${r.id}?`,
      lines: [
        `${lineText(r.tool)}: ${truncate(preview, 80)}`,
        "Its fix will no longer be found. This cannot be undone.",
      ],
      onYes: async () => {
        this.app.status.show(`deleting ${r.id}…`, "busy");
        this.app.render();
        const res = await this.app.deleting(`deleting error record ${r.id}`, () => this.app.api.removeError(r.id));
        this.state.forget(r.id);
        this.app.reload();
        this.app.status.show(
          `deleted error record ${res.removed.id}${res.notes.length ? ` (${res.notes.join("; ")})` : ""}`,
          "ok",
        );
        this.app.render();
      },
    });
  }

  render(): void {
    const { layout, theme } = this.app;
    const inner = layout.openOverlay(` Error memory · ${this.state.total} record${this.state.total === 1 ? "" : "s"} `);
    layout.setLines(layout.overlay, renderErrorMemory(this.state, theme, inner.width, inner.height, this.app.now()));
  }
}
