// The main view: the session list (type-to-filter, sort) and the selected session's history pane.
import type { StoredMessage } from "../../shared/message.ts";
import type { HistoryCatchUp, SeenHistory, SessionInfo } from "../api-types.ts";
import { blockOfMessage, buildBlocks, type HistoryBlock } from "../state/history-blocks.ts";
import { HistoryViewport } from "../state/history-viewport.ts";
import { applyMotion, page } from "../state/motions.ts";
import { SessionListState } from "../state/session-list-state.ts";
import { nsToLocalSeconds } from "../../shared/time.ts";
import { stringWidth } from "../text/char-width.ts";
import { messagePageText } from "../text/plain-text.ts";
import { count, plural } from "../text/format.ts";
import { renderHistory, scrollLabel } from "../views/history-view.ts";
import { LIST_CHROME_ROWS, renderSessionList, sessionListLabel } from "../views/session-list-view.ts";
import { pageOrCopy, type AppContext, type Key } from "./app-context.ts";
import { mapMaybe, type Maybe } from "./maybe.ts";
import { describeError } from "../../shared/describe-error.ts";
import { lineText } from "../../shared/terminal-text.ts";

export type Focus = "list" | "history";

/** The shown session's messages, how many of them are in history.json, and the first of those. */
interface LoadedSession {
  id: string;
  messages: StoredMessage[];
  recent: number;
  firstRecent?: bigint;
  /** Only the newest messages of a large session so far (the rest is being read): how many it has in all. */
  partOf?: number;
}

/**
 * A session with at least this many messages is shown from its newest TAIL_MESSAGES at once, the rest read in
 * pages behind them with the keys answered between pages: reading 150,000 messages whole held every key (a move
 * through the list passing over it included) for a second or two.
 */
export const PAGED_FROM = 10_000;
const TAIL_MESSAGES = 500;

/** `from`: a LoadedSession whose messages begin these (only the ones after them are counted). */
function loadedSession(id: string, messages: StoredMessage[], from?: LoadedSession): LoadedSession {
  let recent = from?.recent ?? 0;
  let firstRecent = from?.firstRecent;
  for (let i = from?.messages.length ?? 0; i < messages.length; i++) {
    if (!messages[i]!.recent) continue;
    recent++;
    firstRecent ??= messages[i]!.seq;
  }
  return { id, messages, recent, firstRecent };
}

/** How many of the last messages a live update checks for text an import grew (a reply streamed across passes). */
const GROWTH_CHECKED = 16;

/** What the TUI holds of a session, for HistoryCatchUp. */
function seenOf(l: LoadedSession): SeenHistory {
  const last = l.messages[l.messages.length - 1];
  const tail = l.messages.slice(-GROWTH_CHECKED).map((m) => ({ id: m.id, bytes: Buffer.byteLength(m.content) }));
  return { seq: last?.seq ?? 0n, count: l.messages.length, recent: l.recent, firstRecent: l.firstRecent, tail };
}

const sameBlock = (a: HistoryBlock, b: HistoryBlock) =>
  a.type === "message"
    ? b.type === "message" && b.message.id === a.message.id
    : b.type === "marker" && b.text === a.text;

export class MainScreen {
  readonly sessions = new SessionListState();
  readonly view = new HistoryViewport();
  focus: Focus = "list";
  /** The filter field has the keys: printable keys (q too) type into it until Esc or a move leaves it. */
  editing = false;
  private loaded: LoadedSession | undefined;
  /** The session whose history was asked for last (a shared memory answers later). */
  private requested: string | undefined;
  /** Sessions removed from this TUI (x): their going away is no news on a refresh. */
  private readonly removed = new Set<string>();
  private loadError: string | undefined;
  /** The message picked by a click in the history pane. */
  private picked: string | undefined;
  /** The selected session's last activity when its history was read (live updates skip unchanged sessions). */
  private loadedActivity: bigint | undefined;
  /** Reads of a large session in pages started so far: only the newest goes on. */
  private largeReads = 0;

  constructor(private readonly app: AppContext) {}

  /** A new sessions list; the selected session's history is read again if the selection moved, or always. */
  setSessions(list: readonly SessionInfo[], reloadHistory = false): void {
    this.sessions.setSessions(list);
    this.syncHistory(reloadHistory);
  }

  /** Size the pane states to the boxes. */
  resize(): void {
    const { layout } = this.app;
    const list = layout.inner(layout.list);
    this.sessions.cursor.setHeight(list.height - LIST_CHROME_ROWS);
    const hist = layout.inner(layout.history);
    this.view.setSize(hist.width, hist.height);
  }

  /**
   * Load the selected session's history when the selection moved to another session; centred on `messageId`
   * when given. An answer that arrives after the selection moved on is dropped.
   */
  syncHistory(force = false, messageId?: string): void {
    const id = this.sessions.selectedId();
    if (!force && id === this.requested) return;
    this.requested = id;
    this.app.watchSession(id);
    this.loadError = undefined;
    if (id === undefined) {
      this.loaded = undefined;
      this.view.setBlocks([]);
      return;
    }
    const activity = this.sessions.selected()?.lastActivity;
    const size = this.sessions.selected()?.messages ?? 0;
    if (messageId === undefined && this.loaded?.id !== id && size >= PAGED_FROM && this.app.api.historyPages)
      return this.showLarge(id, size, activity);
    const fail = (err: unknown) => this.failed(id, err);
    try {
      void this.app.settle(
        this.app.unblocked(id, () => this.app.api.history(id, { all: true })),
        (messages) => {
          if (this.requested !== id) return;
          // The session shown read again (Ctrl-L, the reload after a summary run or an error record's deletion):
          // the pane stays where the reader is, as on a live update, instead of jumping to the end.
          const again = messageId === undefined && this.loaded?.id === id;
          this.loaded = loadedSession(id, messages);
          this.loadedActivity = activity;
          // The pane's size now: the terminal may have been resized while an overlay (search) covered it.
          this.resize();
          const blocks = buildBlocks(messages);
          if (again) return this.view.replaceBlocks(blocks, sameBlock);
          this.view.setBlocks(blocks);
          this.view.end();
          if (messageId === undefined) return;
          this.view.setBlocks(blocks, messageId);
          const at = blockOfMessage(blocks, messageId);
          if (at >= 0) this.view.centerOn(at);
          else this.view.end();
        },
        fail,
      );
    } catch (err) {
      fail(err);
    }
  }

  /**
   * A large session: its newest messages now, under a line saying the older ones are being read; then every message,
   * read in pages with the keys answered between them, replaces them with the pane where it is. Moving on stops it.
   */
  private showLarge(id: string, size: number, activity: bigint | undefined): void {
    const fail = (err: unknown) => this.failed(id, err);
    const read = ++this.largeReads;
    const tail = (messages: StoredMessage[]) => {
      if (this.requested !== id) return;
      this.loaded = { ...loadedSession(id, messages), partOf: size };
      this.loadedActivity = activity;
      this.resize();
      const older = size - messages.length;
      const note: HistoryBlock[] =
        older > 0 ? [{ type: "marker", text: `${plural(older, "older message")}: reading…` }] : [];
      this.view.setBlocks([...note, ...buildBlocks(messages)]);
      this.view.end();
      this.app.guardAsync(this.readWhole(id, read));
    };
    try {
      void this.app.settle(
        this.app.unblocked(id, () => this.app.api.history(id, { last: TAIL_MESSAGES })),
        tail,
        fail,
      );
    } catch (err) {
      fail(err);
    }
  }

  /** Every message of the session shown from its newest (showLarge), a page at a time. */
  private async readWhole(id: string, read: number): Promise<void> {
    const current = () => read === this.largeReads && this.requested === id && this.loaded?.partOf !== undefined;
    // Keys, clicks and renders first (a Down held through the list moves on before any page is read), and between pages.
    const yieldToKeys = () => new Promise<void>((resolve) => setImmediate(resolve));
    await yieldToKeys();
    if (!current()) return;
    const messages: StoredMessage[] = [];
    try {
      for await (const page of await this.app.api.historyPages!(id, { all: true })) {
        if (!current()) return;
        for (const m of page) messages.push(m);
        await yieldToKeys();
      }
    } catch (err) {
      // A session removed meanwhile, a home closed by quitting: news only while the session is still shown.
      if (current()) throw err;
      return;
    }
    if (!current() || this.loaded?.id !== id) return;
    this.loaded = loadedSession(id, messages);
    this.view.replaceBlocks(buildBlocks(messages), sameBlock);
    // What was written while the pages were read.
    this.refreshHistory();
    this.app.render();
  }

  private failed(id: string, err: unknown): void {
    if (this.requested !== id) return;
    this.loaded = loadedSession(id, []);
    this.view.setBlocks([]);
    this.loadError = describeError(err);
    this.app.status.error(err);
  }

  /** Whether this TUI removed the session (a refresh then says nothing of it). */
  removedHere(id: string): boolean {
    return this.removed.has(id);
  }

  /**
   * Live update: read what is new in the shown session (all of it again when a message it shows is gone, or from a
   * memory that cannot tell); the scroll position holds (or follows the end when it was there).
   */
  refreshHistory(): void {
    const id = this.sessions.selectedId();
    // A large session still being read: what was written meanwhile is read once it is whole.
    if (id !== undefined && id === this.loaded?.id && this.loaded.partOf !== undefined) return;
    if (id === undefined || id !== this.loaded?.id || this.loadError) return this.syncHistory(true);
    // Summaries, error records and other sessions' writes leave this session's count and activity alone. A home's
    // read of what is new is cheap, and adopts what another program wrote to the session's history.json.
    const info = this.sessions.selected();
    const unchanged = info?.messages === this.loaded.messages.length && info.lastActivity === this.loadedActivity;
    if (unchanged && !this.app.api.historyAfter) return;
    let basis: LoadedSession | undefined;
    const read = (): Maybe<HistoryCatchUp> => {
      basis = this.loaded;
      const { api } = this.app;
      if (!api.historyAfter || !basis) return mapMaybe(api.history(id, { all: true }), (whole) => ({ whole }));
      return api.historyAfter(id, seenOf(basis));
    };
    void this.app.settle(this.app.unblocked(id, read), (c) => {
      if (this.requested !== id || this.loaded?.id !== id) return;
      // Another read replaced what this one was based on: read again from there.
      if (this.loaded !== basis) return this.refreshHistory();
      this.loadedActivity = info?.lastActivity;
      if (c.whole === undefined) return this.catchUp(id, c.added, c.recentSeqs, c.grown);
      const old = this.loaded.messages;
      const messages = c.whole;
      const same =
        messages.length === old.length &&
        messages.every((m, i) => m.id === old[i]!.id && m.recent === old[i]!.recent && m.content === old[i]!.content);
      if (same) return;
      this.loaded = loadedSession(id, messages);
      this.view.replaceBlocks(buildBlocks(messages), sameBlock);
    });
  }

  /**
   * New messages after those shown; first, when the tiers' boundary moved among those, their recent flags, and the
   * text of those an import grew.
   */
  private catchUp(
    id: string,
    added: StoredMessage[],
    recentSeqs: readonly bigint[] | undefined,
    grown: readonly StoredMessage[] = [],
  ): void {
    let old = this.loaded!.messages;
    if (recentSeqs || grown.length) {
      const recent = recentSeqs && new Set(recentSeqs);
      const text = new Map(grown.map((m) => [m.id, m.content] as const));
      old = old.map((m) => {
        const flag = recent ? recent.has(m.seq) : m.recent;
        const content = text.get(m.id) ?? m.content;
        return flag === m.recent && content === m.content ? m : { ...m, recent: flag, content };
      });
      this.loaded = loadedSession(id, old.concat(added));
      this.view.replaceBlocks(buildBlocks(this.loaded.messages), sameBlock);
      return;
    }
    if (added.length === 0) return;
    this.loaded = loadedSession(id, old.concat(added), this.loaded);
    this.view.appendBlocks(buildBlocks(added, old[old.length - 1]));
  }

  /** A click on a message in the history pane picks it for o and y. Returns it. */
  pickRow(row: number): StoredMessage | undefined {
    const at = this.view.blockOnRow(row);
    const b = at === undefined ? undefined : this.view.blockAt(at);
    this.picked = b?.type === "message" ? b.message.id : undefined;
    return b?.type === "message" ? b.message : undefined;
  }

  /**
   * The message the history pane points at: the one picked with the mouse while it is in view, else the
   * one at its top, or the last one when it shows the end.
   */
  currentMessage(): StoredMessage | undefined {
    if (this.picked !== undefined) {
      const shown = new Set(this.view.visible().map((l) => l.block));
      for (const i of shown) {
        const b = this.view.blockAt(i);
        if (b?.type === "message" && b.message.id === this.picked) return b.message;
      }
    }
    const at = this.view.currentBlock();
    if (at === undefined) return undefined;
    for (let i = at; i < this.view.blockCount; i++) {
      const b = this.view.blockAt(i);
      if (b?.type === "message") return b.message;
    }
    return undefined;
  }

  /** Show a session, centred on one message when given. */
  openSession(id: string, messageId?: string): void {
    const show = () => {
      this.syncHistory(true, messageId);
      this.focus = "history";
    };
    if (this.sessions.selectId(id)) return show();
    const reloaded = this.app.reload();
    const after = () => {
      if (this.sessions.selectId(id)) show();
      else this.app.status.show(`session ${id} no longer exists`, "error");
    };
    if (reloaded instanceof Promise) void reloaded.then(after).then(() => this.app.render());
    else after();
  }

  /** Pasted text filters the session list (the list's keys never run); the history pane takes none (false). */
  paste(text: string): boolean {
    if (this.focus !== "list") return false;
    if (this.sessions.typeText(text)) this.editing = true;
    this.syncHistory();
    return true;
  }

  handleKey(ch: string | undefined, key: Key): boolean {
    return this.focus === "list" ? this.listKey(ch, key) : this.historyKey(ch, key);
  }

  /** The key hints for the focused part of the main view. */
  hints(): string {
    if (this.focus === "history")
      return "↑↓ PgUp PgDn scroll · o open · y copy · s summary · e errors · r reset · x remove · Esc list · / search · ? help · q quit";
    if (this.editing)
      return "typing filters the sessions (q types too) · Backspace deletes · Esc clears and leaves the filter · ↑↓ select";
    return `type to filter · ↑↓ select · Enter history · / search · Ctrl-S summary · Ctrl-E errors · ? help · q quit`;
  }

  private listKey(ch: string | undefined, key: Key): boolean {
    const s = this.sessions;
    const c = s.cursor;
    // Any key but a typed character or Backspace leaves the filter field (the filter stays applied).
    const typed =
      key.full === "backspace" ||
      (ch !== undefined &&
        ch.length === 1 &&
        !key.ctrl &&
        !key.meta &&
        !["escape", "enter", "tab"].includes(key.full ?? ""));
    if (!typed) this.editing = false;
    if (applyMotion(c, key.full, ["arrows", "edges", "emacs"])) {
      this.syncHistory();
      return true;
    }
    switch (key.full) {
      case "enter":
      case "right":
      case "tab":
        if (s.selected()) this.focus = "history";
        break;
      case "backspace":
        s.backspace();
        this.editing = s.filter !== "";
        break;
      case "escape":
        s.clearFilter();
        break;
      case "C-o":
        s.toggleSort();
        break;
      case "C-r":
        this.askReset();
        return true;
      case "C-x":
      case "delete":
        this.askRemove();
        return true;
      default:
        if (ch === "q" && !this.editing) return false; // quits
        if (ch && !key.ctrl && !key.meta && ch.length === 1 && s.typeChar(ch)) {
          this.editing = true;
          break;
        }
        return false;
    }
    this.syncHistory();
    return true;
  }

  private historyKey(ch: string | undefined, key: Key): boolean {
    if (applyMotion(this.view, key.full, ["arrows", "edges", "emacs", "vi", "viPages"])) return true;
    switch (key.full) {
      case "left":
      case "tab":
      case "escape":
      case "S-tab":
        this.focus = "list";
        return true;
      case "C-o":
        this.sessions.toggleSort();
        return true;
      case "o":
      case "y": {
        const m = this.currentMessage();
        if (m) {
          const what = `the ${m.role} message of ${nsToLocalSeconds(m.sendAt)}`;
          pageOrCopy(this.app, key.full === "o", what, messagePageText(m), m.content);
        }
        return true;
      }
      case "s":
        this.app.open("summary");
        return true;
      case "e":
        this.app.open("error-memory");
        return true;
      case "r":
      case "C-r":
        this.askReset();
        return true;
      case "x":
      case "C-x":
      case "delete":
        this.askRemove();
        return true;
    }
    if (ch !== " ") return false;
    page(this.view, 1);
    return true;
  }

  private askReset(): void {
    this.askAboutSelected(
      "resetting",
      (s) => `Reset session ${s.id}?`,
      (s) => [
        `Clears its history.json, its ${plural(s.messages, "archived message")} and its vectors.`,
        s.hasSummary ? "The rolling summary is kept." : "It has no summary.",
      ],
      (s) =>
        mapMaybe(
          this.app.api.reset(s.id),
          (r) =>
            `reset ${s.id}: removed ${plural(r.messagesRemoved, "message")}${s.hasSummary ? "; the summary was kept" : ""}`,
        ),
    );
  }

  private askRemove(): void {
    this.askAboutSelected(
      "removing",
      (s) => `Remove session ${s.id}?`,
      (s) => [
        `Deletes everything of it: ${plural(s.messages, "message")}${s.hasSummary ? ", its summary" : ""} and its vectors.`,
        "This cannot be undone. Error memory is not touched.",
      ],
      (s) => {
        this.removed.add(s.id);
        return mapMaybe(this.app.api.remove(s.id), (r) => {
          this.focus = "list";
          return `removed ${s.id} (${plural(r.messagesRemoved, "message")})`;
        });
      },
    );
  }

  /**
   * Confirm a deletion of the selected session; on yes run it, purge the vectors' old versions in the background,
   * reload and report. While another process holds the home's writer lock (an import, the daemon, a reset in a
   * shell) the wait is asynchronous and said on the status row: keys, q included, keep working meanwhile.
   */
  private askAboutSelected(
    doing: string,
    title: (s: SessionInfo) => string,
    lines: (s: SessionInfo) => string[],
    act: (s: SessionInfo) => Maybe<string>,
  ): void {
    const s = this.sessions.selected();
    if (!s) return;
    const finish = (done: string) => {
      const purge = this.app.api.purgeDeleted();
      this.app.guardAsync(purge);
      this.app.underway(purge);
      void this.app.reload();
      this.app.status.show(done, "ok");
    };
    this.app.confirm({
      title: title(s),
      lines: lines(s),
      onYes: async () => {
        this.app.status.show(`${doing} ${s.id}…`, "busy");
        this.app.render();
        finish(await this.app.deleting(`${doing} ${s.id}`, () => act(s)));
        this.app.render();
      },
    });
  }

  render(): void {
    const { layout, theme } = this.app;
    this.resize();
    const list = layout.inner(layout.list);
    layout.setFocus(layout.list, this.focus === "list", sessionListLabel(this.sessions));
    layout.setLines(
      layout.list,
      renderSessionList(this.sessions, theme, list.width, list.height, this.focus === "list", this.app.now()),
    );
    const hist = layout.inner(layout.history);
    const id = this.loaded?.id;
    const n = this.loaded?.partOf ?? this.loaded?.messages.length ?? 0;
    // Not known of a large session until it is read whole.
    const recent = this.loaded?.partOf === undefined ? (this.loaded?.recent ?? 0) : n;
    const pos = scrollLabel(this.view);
    const p = pos ? ` · ${pos}` : "";
    const sel = this.sessions.selected();
    const tags = sel
      ? [sel.source, sel.project]
          .filter((x): x is string => !!x)
          .map((x) => ` · ${lineText(x)}`)
          .join("")
      : "";
    const msgs = `${count(n)} ${n === 1 ? "msg" : "msgs"}`;
    const inHistory = recent < n ? `, ${count(recent)} in history.json` : "";
    const labels = id
      ? [
          ` ${id}${tags} · ${msgs}${inHistory}${p} `,
          ` ${id} · ${msgs}${inHistory}${p} `,
          ` ${id} · ${msgs}${p} `,
          ` ${id}${p} `,
        ]
      : [" History "];
    const label = labels.find((l) => stringWidth(l) <= hist.width - 2) ?? labels[labels.length - 1]!;
    layout.setFocus(layout.history, this.focus === "history", label);
    const empty = this.loadError
      ? `cannot show this session: ${this.loadError}`
      : id
        ? "(no messages)"
        : "no session selected";
    layout.setLines(layout.history, renderHistory(this.view, theme, hist.width, hist.height, empty));
  }
}
