// Change notification for a home: the sessions folder (sessions made or removed), the shown session's history.json
// and those of sessions not adopted yet, the archive's WAL (every message, summary run and error record another
// process writes) and the daemon's state file (a daemon started or stopped). No polling: the kernel tells us, and
// bursts are coalesced into one refresh.
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface HomeWatchPaths {
  sessions: string;
  /** The archive database file; its -wal beside it is what changes on every write. */
  db: string;
  /** The daemon's state file, written (replaced) when a daemon starts, after its jobs and when it stops. */
  daemonState: string;
}

/** Where a home keeps its session folders and its archive (the layout of DESIGN.md's "On disk"). */
export function homeWatchPaths(home: string): HomeWatchPaths {
  return {
    sessions: join(home, "sessions"),
    db: join(home, ".store", "history.db"),
    daemonState: join(home, "daemon.state.json"),
  };
}

/**
 * What another program (Agenvoy) writes in the shown session's folder, temp files of a write by rename included: its
 * history.json, and the summary it keeps itself (summary.json, .summary_cursor).
 */
const SHOWN_SESSION_FILES = /^(history\.json|summary\.json|\.summary_cursor)/;

/** Folders of sessions not adopted yet that are watched at most (each is one inotify watch). */
const MAX_UNADOPTED = 64;

export class HomeWatcher {
  private readonly watchers: FSWatcher[] = [];
  private sessionWatch: FSWatcher | undefined;
  private sessionDir: string | undefined;
  private readonly unadopted = new Map<string, FSWatcher>();
  /** Folders of start() that did not exist then (a home made after the TUI opened on it): watched once they do. */
  private readonly missing: { dir: string; relevant: (name: string | null) => boolean }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private lastRun = 0;

  /**
   * @param onChange called once per burst of changes, `delayMs` after the first (so a write of many
   * messages is one refresh, and a change is shown within delayMs plus the refresh itself), and at most
   * once per `minGapMs` (a daemon draining embeddings writes all the time: the screen follows it calmly).
   */
  constructor(
    private readonly paths: HomeWatchPaths,
    private readonly onChange: () => void,
    private readonly delayMs = 60,
    private readonly minGapMs = 250,
  ) {}

  start(): void {
    const dbName = basename(this.paths.db);
    this.add(dirname(this.paths.db), (name) => name === null || name.startsWith(dbName));
    // The shown session's folder made again (removed, then restored or written anew): its watch starts over.
    this.add(this.paths.sessions, (name) => {
      if (this.sessionDir && (name === null || name === basename(this.sessionDir))) this.openSessionWatch();
      return true;
    });
    // The home's own folder: the state file (the TUI writes its log there, the daemon its log), and sessions/ or
    // .store/ made after the start (the first add to a home that had neither).
    const home = dirname(this.paths.daemonState);
    const stateName = basename(this.paths.daemonState);
    this.add(
      home,
      (name) =>
        name === stateName || (name !== null && this.missing.some((m) => m.dir === join(home, name)) && this.rewatch()),
    );
  }

  /**
   * Watch the folders that did not exist at start() and do now; true when one was opened (what was written there
   * before is read by the refresh that follows). The home's own watch calls it as they appear; a reload (Ctrl-L on a
   * home made since the start) too.
   */
  rewatch(): boolean {
    if (this.closed) return false;
    let opened = false;
    for (const m of [...this.missing]) {
      const w = this.open(m.dir, m.relevant);
      if (!w) continue;
      this.watchers.push(w);
      this.missing.splice(this.missing.indexOf(m), 1);
      opened = true;
    }
    return opened;
  }

  /**
   * Also watch one session's folder (the one shown), or none: another program (Agenvoy) writes its history.json and
   * summary.json without touching the archive, and the sessions/ watch sees only folders made or removed.
   */
  watchSession(dir: string | undefined): void {
    if (dir === this.sessionDir) return;
    this.sessionDir = dir;
    this.openSessionWatch();
  }

  /**
   * Also watch the folders of sessions the archive has not adopted yet: another program (Agenvoy) makes a session's
   * folder, then writes its history.json there, which the sessions/ watch does not see (the list would show the
   * session with no messages until some other write). At most MAX_UNADOPTED of them.
   */
  watchUnadopted(dirs: readonly string[]): void {
    const want = new Set(dirs.slice(0, MAX_UNADOPTED));
    for (const [dir, w] of this.unadopted)
      if (!want.has(dir)) {
        w.close();
        this.unadopted.delete(dir);
      }
    if (this.closed) return;
    for (const dir of want) {
      if (this.unadopted.has(dir)) continue;
      const w = this.open(dir, (name) => name === null || name.startsWith("history.json"));
      if (w) this.unadopted.set(dir, w);
    }
  }

  private openSessionWatch(): void {
    this.sessionWatch?.close();
    this.sessionWatch = undefined;
    if (this.sessionDir === undefined || this.closed) return;
    this.sessionWatch = this.open(this.sessionDir, (name) => name === null || SHOWN_SESSION_FILES.test(name));
  }

  private add(dir: string, relevant: (name: string | null) => boolean): void {
    const w = this.open(dir, relevant);
    if (w) this.watchers.push(w);
    else this.missing.push({ dir, relevant });
  }

  private open(dir: string, relevant: (name: string | null) => boolean): FSWatcher | undefined {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (relevant(typeof name === "string" ? name : null)) this.schedule();
      });
      w.on("error", () => w.close());
      return w;
    } catch {
      return undefined; // a folder that does not exist yet
    }
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    const wait = Math.max(this.delayMs, this.lastRun + this.minGapMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastRun = Date.now();
      if (!this.closed) this.onChange();
    }, wait);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers.length = 0;
    this.sessionWatch?.close();
    this.sessionWatch = undefined;
    for (const w of this.unadopted.values()) w.close();
    this.unadopted.clear();
  }
}
