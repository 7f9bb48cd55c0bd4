// The TUI controller: routes keys (confirmation, then the open overlay, then the main view), runs actions
// behind a guard so errors land on the status row, and renders every box from state.
import type blessed from "blessed";
import type { SessionInfo, TuiMemory } from "../api-types.ts";
import { StatusState } from "../state/status-state.ts";
import type { Theme } from "../theme.ts";
import { Layout } from "../views/layout.ts";
import { renderLine } from "../views/segments.ts";
import { wrapLines } from "../text/wrap.ts";
import { renderStatusRows } from "../views/status-view.ts";
import type { AppContext, Confirmation, Key, OverlayName } from "./app-context.ts";
import { join } from "node:path";
import { HomeWatcher, homeWatchPaths } from "../live/home-watcher.ts";
import { ArchivePoller } from "../live/archive-poller.ts";
import { HomeIdentity } from "../live/home-identity.ts";
import type { Maybe } from "./maybe.ts";
import { osc52, OSC52_MAX_BYTES } from "../terminal/clipboard.ts";
import { openInPager, type RunningPager } from "../terminal/pager.ts";
import { JobControl } from "../terminal/job-control.ts";
import { ErrorMemoryScreen } from "./error-memory-screen.ts";
import { renderFirstRun } from "./first-run.ts";
import { HelpScreen } from "./help-screen.ts";
import { handleMouse, type MouseEvent } from "./mouse.ts";
import { MainScreen } from "./main-screen.ts";
import { SearchScreen } from "./search-screen.ts";
import { SummaryScreen } from "./summary-screen.ts";
import { InputQuiet } from "./input-quiet.ts";
import { describeError } from "../../shared/describe-error.ts";
import { lineText, terminalText } from "../../shared/terminal-text.ts";

/** The pause in keys and clicks each step of the search warm-up waits for (a step holds the keyboard up). */
export const WARM_QUIET_MS = 120;

/**
 * The screen is drawn again this often with nothing else happening, so that the ages it shows (the list's now, 12m,
 * 5h; an error record's expiry) move on in a quiet home: no key, no write, no other redraw. A daemon killed outright
 * (kill -9, the OOM killer) is seen gone then too: it wrote no state file, but its lock was released.
 */
export const CLOCK_TICK_MS = 60_000;

/** How long a confirmed deletion waits for another process's writer lock before the status row says so. */
const LOCK_WAIT_NOTICE_MS = 250;

export class TuiApp implements AppContext {
  readonly layout: Layout;
  readonly status = new StatusState();
  readonly main: MainScreen;
  readonly search: SearchScreen;
  readonly help: HelpScreen;
  readonly errorMemory: ErrorMemoryScreen;
  readonly summary: SummaryScreen;
  private overlays: OverlayName[] = [];
  private confirmation: Confirmation | undefined;
  /** Reads of the terminal's input so far, and the read during which the open confirmation was asked. */
  private inputReads = 0;
  private askedDuring = -1;
  private watcher: HomeWatcher | ArchivePoller | undefined;
  /** The session in the history pane (its folder is watched too). */
  private shownSession: string | undefined;
  /** A home's folder and archive as opened (a shared memory's data is on its server: undefined). */
  private identity: HomeIdentity | undefined;
  /** Reads of the sessions list started so far: an answer older than the newest is dropped. */
  private homeReads = 0;
  private finished!: () => void;
  private pager: RunningPager | undefined;
  private readonly quiet = new InputQuiet();
  /** Ctrl-Z and SIGTSTP: the shell gets the terminal until fg; where nothing could resume memvoy it goes on, and says so. */
  private readonly jobs: JobControl;
  private readonly confirmed = new Set<Promise<unknown>>();
  /** Confirmed deletions still waiting for another process's writer lock, by what they do: none of it is done yet. */
  private readonly unstarted = new Set<{ what: string }>();
  /** Confirmed deletions under way (a shared memory's take several round trips), settled or not. */
  private readonly started = new Set<Promise<void>>();
  private startsStopped = false;
  private clock: ReturnType<typeof setInterval> | undefined;
  /** q was pressed: the screen is being given back, and nothing is drawn any more. */
  private ended = false;
  readonly done = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(
    readonly api: TuiMemory,
    readonly screen: blessed.Widgets.Screen,
    readonly theme: Theme,
    readonly now: () => bigint,
  ) {
    this.layout = new Layout(screen, theme);
    this.main = new MainScreen(this);
    this.search = new SearchScreen(this);
    this.help = new HelpScreen(this);
    this.errorMemory = new ErrorMemoryScreen(this);
    this.summary = new SummaryScreen(this);
    this.jobs = new JobControl(
      screen,
      () => this.pager !== undefined,
      (stopped) => {
        if (!stopped)
          this.status.show("Ctrl-Z: no job control here (nothing would resume memvoy), so it goes on; q quits");
        this.render();
      },
    );
  }

  start(): void {
    const stamp = this.api.changeStamp?.bind(this.api);
    if (!stamp) this.identity = new HomeIdentity([this.api.home, homeWatchPaths(this.api.home).db]);
    this.guard(() => void this.reload());
    const onChange = () => {
      this.guard(() => void this.refresh());
      this.render();
    };
    // A shared memory changes in the archive, on any host: its change stamp is polled. A home's files are watched.
    this.watcher = stamp
      ? new ArchivePoller(stamp, onChange, (err) => {
          this.status.error(err);
          this.render();
        })
      : new HomeWatcher(homeWatchPaths(this.api.home), onChange);
    this.watcher.start();
    this.jobs.start();
    this.clock = setInterval(() => this.tick(), CLOCK_TICK_MS);
    this.watchSession(this.shownSession);
    // Counted before blessed reads the keys. One read can arrive here in parts (a paste, a mouse report and the
    // keys around it are emitted apart, at once): the parts of one read count once.
    let counted = false;
    this.screen.program.input.prependListener("data", () => {
      if (counted) return;
      counted = true;
      this.inputReads++;
      queueMicrotask(() => (counted = false));
    });
    this.screen.on("keypress", (ch: string | undefined, key: Key) => {
      this.quiet.touch();
      this.onKey(ch, key);
    });
    this.screen.on("paste", (text: string) => {
      this.quiet.touch();
      this.guard(() => this.onPaste(text));
      this.render();
    });
    this.screen.on("resize", () => this.render());
    // A dumb terminal gets no mouse-reporting sequences.
    if (process.env.TERM !== "dumb") this.screen.enableMouse();
    this.screen.on("mouse", (e: MouseEvent) => {
      this.quiet.touch();
      if (this.confirmation) return;
      const top = this.overlays[this.overlays.length - 1];
      let changed = false;
      this.guard(
        () =>
          (changed = handleMouse(
            {
              layout: this.layout,
              main: this.main,
              search: this.search,
              errorMemory: this.errorMemory,
              help: this.help,
              summary: this.summary,
              top,
              status: this.status,
            },
            e,
          )),
      );
      if (changed) this.render();
    });
    this.render();
    // After the first paint: load what a first ranked search needs while the user reads, each step in a pause
    // of their keys counted from that paint (a first move through the sessions is not held up by it).
    this.quiet.touch();
    void this.api.warmSearch({ idle: () => this.quiet.after(WARM_QUIET_MS) });
  }

  /** The minute's redraw; a daemon shown running is looked at again (one killed outright writes no state file). */
  private tick(): void {
    if (this.status.info.daemon === "running" && !this.api.daemonRunning())
      this.status.info = { ...this.status.info, daemon: "stopped" };
    this.render();
  }

  private onKey(ch: string | undefined, key: Key | undefined): void {
    const k = key ?? {};
    if (k.name === "return") return; // blessed reports Enter twice: as "return" and as "enter"
    if (k.full === "C-c") return this.quit();
    if (k.full === "C-z") return this.jobs.suspend();
    this.status.clearMessage();
    // Esc quickly followed by a key arrives as one Meta chord; nothing here uses Meta, so split it.
    const seq = k.sequence ?? "";
    if (k.meta && k.name === "escape") {
      // Esc pressed twice before the first was read
      this.guard(() => this.dispatch(undefined, { name: "escape", full: "escape" }));
      this.guard(() => this.dispatch(undefined, { name: "escape", full: "escape" }));
      return this.render();
    }
    if (k.meta && !k.ctrl && seq.length === 2 && seq[0] === "\x1b" && seq[1]! >= " " && seq[1] !== "\x7f") {
      const next = seq[1]!;
      const name = next === " " ? "space" : next.toLowerCase();
      const upper = next !== next.toLowerCase();
      this.guard(() => this.dispatch(undefined, { name: "escape", full: "escape" }));
      this.guard(() => this.dispatch(next, { name, full: upper ? `S-${name}` : name, shift: upper }));
    } else this.guard(() => this.dispatch(ch, k));
    this.render();
  }

  /**
   * Pasted text (bracketed by the terminal) is text: it goes into the field that has the keys (the session filter,
   * the search query, the error-memory search), and is never read as keys elsewhere (a pasted q quit, a d deleted).
   */
  private onPaste(pasted: string): void {
    this.status.clearMessage();
    const text = lineText(pasted.replace(/^[\r\n]+|[\r\n]+$/g, ""));
    if (this.confirmation) return this.status.show("a paste is no answer: press y or n");
    if (!this.pasteInto(text)) this.status.show("the paste was ignored: no text field has the keys here");
  }

  private pasteInto(text: string): boolean {
    const top = this.overlays[this.overlays.length - 1];
    if (top === "search") return this.search.paste(text);
    if (top === "error-memory") return this.errorMemory.paste(text);
    return top === undefined && this.main.paste(text);
  }

  private dispatch(ch: string | undefined, key: Key): void {
    if (this.confirmation) return this.confirmKey(ch, key);
    const top = this.overlays[this.overlays.length - 1];
    if (top === "search" && this.search.handleKey(ch, key)) return;
    if (top === "help" && this.help.handleKey(ch, key)) return;
    if (top === "error-memory" && this.errorMemory.handleKey(ch, key)) return;
    if (top === "summary" && this.summary.handleKey(ch, key)) return;
    if (top === undefined && this.main.handleKey(ch, key)) return;
    if (top === "first-run" && key.full === "escape") return;
    switch (key.full) {
      case "C-l":
        void this.reload();
        this.screen.realloc();
        return;
      case "C-e":
        return this.open("error-memory");
      case "C-s":
        if (top !== "first-run") this.open("summary");
        return;
      case "escape":
        if (top !== "first-run") this.close();
        return;
    }
    if (ch === "q") return this.quit();
    if (ch === "?") return this.open("help");
    if (ch === "/" && top !== "first-run") return this.open("search");
  }

  private confirmKey(ch: string | undefined, key: Key): void {
    const c = this.confirmation!;
    // A y read together with the key that asked (pasted text, keys typed ahead while busy) was never an answer:
    // pasting "proxy" into the history pane reset the session (r asks, y said yes) before the dialog was seen.
    if ((ch === "y" || ch === "Y") && this.inputReads === this.askedDuring) return;
    if (ch === "y" || ch === "Y") {
      this.confirmation = undefined;
      const r = c.onYes();
      if (r instanceof Promise) {
        this.guardAsync(r);
        this.underway(r);
      }
    } else if (ch === "n" || ch === "N" || key.full === "escape" || ch === "q") {
      this.confirmation = undefined;
      this.status.show("cancelled; nothing was changed");
    }
  }

  open(overlay: OverlayName): void {
    if (this.overlays.includes(overlay)) this.overlays = this.overlays.filter((o) => o !== overlay);
    if (overlay === "search") this.search.open(this.main.sessions.selectedId());
    if (overlay === "help") this.help.open();
    if (overlay === "error-memory") this.errorMemory.open();
    if (overlay === "summary") this.summary.open(this.main.sessions.selectedId());
    this.overlays.push(overlay);
  }

  close(): void {
    const top = this.overlays.pop();
    if (top === "search") this.search.close();
    if (top === "error-memory") this.errorMemory.close();
    if (top === "first-run" && this.isEmptyHome()) this.overlays.push("first-run");
  }

  confirm(c: Confirmation): void {
    this.confirmation = c;
    this.askedDuring = this.inputReads;
  }

  guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.status.error(err);
    }
  }

  /** Confirmed work (a deletion, its vector purge): quitting gives the terminal back, then lets it finish. */
  underway(p: Promise<unknown>): void {
    const entry: Promise<unknown> = p.finally(() => this.confirmed.delete(entry));
    entry.catch(() => {}); // the status row reports it (guardAsync); after a quit, confirmedWork() does
    this.confirmed.add(entry);
  }

  /**
   * Resolves once no confirmed work is under way (work started by work that ends is waited for too), with a
   * description of each failure; undefined when nothing is under way.
   */
  confirmedWork(): Promise<string[]> | undefined {
    if (this.confirmed.size === 0) return undefined;
    return (async () => {
      const failures: string[] = [];
      while (this.confirmed.size > 0) {
        for (const r of await Promise.allSettled([...this.confirmed]))
          if (r.status === "rejected") failures.push(describeError(r.reason));
      }
      return failures;
    })();
  }

  /**
   * Run the confirmed deletion `what` (as the status row names it: "removing zh-trip") once no other process holds
   * the home's writer lock (an import, the daemon, a reset in a shell), however long that takes: the wait holds no key
   * up and is said on the status row when it lasts. Until it starts, notStarted() names it; once started, deletionsUnderWay() waits for it.
   */
  async deleting<T>(what: string, run: () => Maybe<T>): Promise<T> {
    const entry = { what };
    this.unstarted.add(entry);
    const slow = setTimeout(() => {
      this.status.show(`${what}: waiting for another memvoy process writing to this home…`, "busy");
      this.render();
    }, LOCK_WAIT_NOTICE_MS);
    try {
      // writerLockFree gives up after 30 s; the deletion would then wait for the lock again holding every key.
      do await this.api.writerLockFree?.();
      while (this.api.writerLockHeld?.());
      // The status row reaches the terminal before a long deletion holds the event loop.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      clearTimeout(slow);
      this.unstarted.delete(entry);
    }
    if (this.startsStopped) throw new Error(`${what} was not started: memvoy is ending`);
    // A home's deletion is done when run returns; a shared memory's takes several round trips.
    const result = run();
    if (!(result instanceof Promise)) return result;
    const started = result.then(
      () => {},
      () => {},
    );
    this.started.add(started);
    void started.then(() => this.started.delete(started));
    return result;
  }

  /**
   * memvoy is ending (the grace after a SIGTERM or SIGHUP is over): no confirmed deletion starts any more. Returns
   * those that had not, still waiting for the writer lock.
   */
  stopStarting(): string[] {
    this.startsStopped = true;
    return [...this.unstarted].map((e) => e.what);
  }

  /** Resolves once no confirmed deletion that started is under way (it is never cut in half). */
  async deletionsUnderWay(): Promise<void> {
    while (this.started.size > 0) await Promise.all([...this.started]);
  }

  guardAsync(p: Promise<unknown>): void {
    p.catch((err) => {
      this.status.error(err);
      this.render();
    });
  }

  /**
   * Show a session in the history pane (a search hit's): every overlay is closed, or one opened before the search
   * (the summary viewer) would cover the pane.
   */
  openSession(id: string, messageId?: string): void {
    if (this.overlays.includes("search")) this.search.close();
    if (this.overlays.includes("error-memory")) this.errorMemory.close();
    this.overlays = [];
    this.main.openSession(id, messageId);
  }

  /**
   * The pager draws what it is given on the terminal (more, most, less -r pass escapes through): the text goes
   * without its escape sequences and controls, as everywhere else text reaches the terminal (y copies it exact).
   */
  page(text: string, what: string): void {
    this.pager = openInPager(this.screen, terminalText(text), (error) => {
      this.pager = undefined;
      if (error) this.status.show(error, "error");
      else this.status.show(`closed the pager (${what})`);
      this.render();
    });
  }

  /** The pager has the terminal (and its keys: Ctrl-C, Ctrl-\\ are the pager's). */
  get paging(): boolean {
    return this.pager !== undefined;
  }

  /** The TUI is ending while the pager runs: end the pager and leave the terminal as the user had it. */
  stopPager(): Promise<void> {
    return this.pager?.stop() ?? Promise.resolve();
  }

  copy(text: string, what: string): void {
    const seq = osc52(text);
    if (seq === undefined) {
      this.status.show(
        `${what} is too long to copy through the terminal (over ${Math.floor(OSC52_MAX_BYTES / 1000)} kB): press o and copy from the pager`,
        "error",
      );
      return;
    }
    this.screen.program.write(seq);
    this.status.show(`copied ${what} to the clipboard (${[...text].length} characters, via OSC 52)`, "ok");
  }

  /**
   * Reading a session whose history.json the archive lacks (another program wrote it, or a reset emptied it) reads
   * it under the home's writer lock: while another memvoy process holds that lock (an import, a reset in a shell),
   * the read waits for it here without blocking, said on the status row, so that keys (q too) keep working.
   */
  unblocked<T>(session: string | undefined, read: () => Maybe<T>): Maybe<T> {
    const waits = () => this.api.adoptionWaits?.(session) === true;
    const lockFree = this.api.writerLockFree?.bind(this.api);
    if (!lockFree || !waits()) return read();
    const what = session === undefined ? "the sessions" : session;
    const note = `reading ${what}: waiting for another memvoy process writing to this home…`;
    this.status.show(note, "busy");
    return (async () => {
      try {
        do await lockFree();
        while (waits());
      } finally {
        if (this.status.message?.text === note) this.status.message = undefined;
      }
      return read();
    })();
  }

  watchSession(id: string | undefined): void {
    this.shownSession = id;
    if (this.watcher instanceof HomeWatcher)
      this.watcher.watchSession(id === undefined ? undefined : join(homeWatchPaths(this.api.home).sessions, id));
  }

  selectedSession(): string | undefined {
    return this.main.sessions.selectedId();
  }

  reload(): void | Promise<void> {
    // A home made since the start (Ctrl-L after memvoy demo or a first add): its folders are watched from now on.
    if (this.watcher instanceof HomeWatcher) this.watcher.rewatch();
    return this.readHome((list) => {
      this.main.setSessions(list, true);
      // The open overlays are read again too: where no change is notified (a home on a network file system, no
      // inotify watch left), Ctrl-L is how the error records or the summary on screen catch up.
      if (this.overlays.includes("error-memory")) this.errorMemory.reload();
      if (this.overlays.includes("summary")) this.refreshSummary(list);
    });
  }

  /**
   * Live update after another process wrote to the home: sessions, the shown history, counts, the error
   * list and the summary are re-read; selections are kept by id and scroll positions hold.
   */
  refresh(): void | Promise<void> {
    const shown = this.main.sessions.selectedId();
    return this.readHome((list) => {
      this.main.setSessions(list);
      if (shown !== undefined && !list.some((s) => s.id === shown) && !this.main.removedHere(shown)) {
        const now = this.main.sessions.selectedId();
        this.status.show(`session ${shown} was removed by another process${now ? `; showing ${now}` : ""}`);
      }
      this.main.refreshHistory();
      const top = this.overlays[this.overlays.length - 1];
      if (this.overlays.includes("error-memory")) this.errorMemory.refresh();
      if (top === "summary") this.refreshSummary(list);
    });
  }

  /** The summary viewer read again; its session gone from `list`, it says so. */
  private refreshSummary(list: readonly { id: string }[]): void {
    const shown = this.summary.session;
    this.summary.refresh(shown === undefined || list.some((s) => s.id === shown));
  }

  settle<T>(value: Maybe<T>, then: (v: T) => void, fail?: (err: unknown) => void): void | Promise<void> {
    if (!(value instanceof Promise)) return then(value);
    return value.then(then).then(
      () => this.render(),
      (err) => {
        (fail ?? ((e) => this.status.error(e)))(err);
        this.render();
      },
    );
  }

  /** Sessions and the status counts, then `then` with the sessions (the newest read only). */
  private readHome(then: (list: SessionInfo[]) => void): void | Promise<void> {
    // A deleted home's archive still reads (its file is open) and would show the old data as current.
    const lost = this.identity?.lost();
    if (lost !== undefined) {
      this.status.show(`the home is gone (${lost}): what is shown is what it held; q quits`, "error");
      return;
    }
    const list = this.unblocked(undefined, () => this.api.sessions());
    const errors = this.api.listErrors({ limit: 1 });
    const read = ++this.homeReads;
    const both = list instanceof Promise || errors instanceof Promise ? Promise.all([list, errors]) : [list, errors];
    return this.settle(both as Maybe<[SessionInfo[], { total: number }]>, ([sessions, errs]) => {
      if (read !== this.homeReads) return;
      this.status.info = {
        ...this.status.info,
        home: this.api.home,
        embedder: this.api.info().embedder,
        sessions: sessions.length,
        messages: sessions.reduce((n, s) => n + s.messages, 0),
        errors: errs.total,
        daemon: this.api.daemonRunning() ? "running" : "stopped",
      };
      if (this.watcher instanceof HomeWatcher) {
        // A listed session the archive lacks (no messages, no activity): its history.json is still to come.
        const dir = homeWatchPaths(this.api.home).sessions;
        const unadopted = sessions.filter((s) => s.messages === 0 && s.lastActivity === 0n);
        this.watcher.watchUnadopted(unadopted.map((s) => join(dir, s.id)));
      }
      if (!this.isEmptyHome()) this.overlays = this.overlays.filter((o) => o !== "first-run");
      else if (!this.overlays.includes("first-run")) this.overlays.unshift("first-run");
      then(sessions);
    });
  }

  /** No sessions and no error records: the first-run screen says how to add data. */
  private isEmptyHome(): boolean {
    return this.status.info.sessions === 0 && !this.status.info.errors;
  }

  render(): void {
    if (this.ended) return;
    const g = this.layout.place();
    const top = this.overlays[this.overlays.length - 1];
    if (top === undefined) {
      this.layout.overlay.hide();
      this.main.render();
    } else {
      this.layout.overlay.show();
      if (top === "search") this.search.render();
      else if (top === "help") this.help.render();
      else if (top === "error-memory") this.errorMemory.render();
      else if (top === "summary") this.summary.render();
      else if (top === "first-run") renderFirstRun(this);
    }
    const [info, message] = renderStatusRows(this.status, this.theme, g.width, this.hints());
    // A long message or error wraps onto more rows (up to a few) instead of being cut.
    if (message.length !== this.layout.messageRows) {
      this.layout.messageRows = message.length;
      this.layout.place();
      return this.render();
    }
    this.layout.setLines(this.layout.status, [info]);
    this.layout.setLines(this.layout.message, message);
    this.renderConfirm();
    this.screen.render();
  }

  /** The keys of what has the focus now: the confirmation, the top overlay, or the main view's pane. */
  hints(): string {
    if (this.confirmation) return "y yes · n / Esc no";
    switch (this.overlays[this.overlays.length - 1]) {
      case "search":
        return "type the query (q types too) · Tab mode · Ctrl-S scope · Ctrl-T range · ↑↓ select · Enter open · Ctrl-O pager · Ctrl-Y copy · Esc close";
      case "help":
        return "↑↓ scroll · Esc or ? close · q quit";
      case "summary":
        return "↑↓ PgUp PgDn scroll · S summarize now · Esc back · ? help · q quit";
      case "error-memory":
        return this.errorMemory.typing()
          ? "typing searches the records (q types too) · Enter or Esc ends typing"
          : "↑↓ select · o open · y copy · Enter detail · / search · d delete · Esc back · ? help · q quit";
      case "first-run":
        return "Ctrl-L reload · ? help · q quit";
      default:
        return this.main.hints();
    }
  }

  private renderConfirm(): void {
    const box = this.layout.confirm;
    const c = this.confirmation;
    if (!c) return void box.hide();
    // The dialog's text wraps, and the box grows to hold it.
    const width = this.layout.inner(box).width;
    const wrapped = (text: string) => wrapLines(text, width);
    const lines = [
      ...wrapped(c.title).map((t) => renderLine(this.theme, width, [[t, "title"]])),
      ...c.lines.flatMap((l) => wrapped(l).map((t) => renderLine(this.theme, width, [[t]]))),
      renderLine(this.theme, width, [[""]]),
      renderLine(this.theme, width, [["y", "key"], [" yes   "], ["n", "key"], [" / Esc no"]]),
    ];
    this.layout.sizeConfirm(lines.length);
    this.layout.setFocus(box, true, " Confirm ");
    this.layout.setLines(box, lines);
    box.show();
    box.setFront();
  }

  quit(): void {
    if (this.ended) return;
    this.ended = true;
    this.jobs.close();
    this.quiet.stop();
    clearInterval(this.clock);
    this.watcher?.close();
    this.summary.abort();
    this.finished();
  }
}
