// Job control: Ctrl-Z (read as a key in raw mode) and a SIGTSTP sent from outside give the terminal back and stop
// memvoy as a shell expects; fg (SIGCONT) takes the terminal back and redraws it whole.
import { readFileSync } from "node:fs";
import { constants } from "node:os";
import type blessed from "blessed";
import { lendTerminal } from "./hand-over.ts";
import { isHungUp } from "./hung-up.ts";

/** A stop that lasted longer than this was one (a shell's prompt and a typed fg take far longer). */
const STOPPED_MS = 50;
/** How long after the stop returned a SIGCONT is looked for, when it returned at once. */
const CONT_WAIT_MS = 100;

export class JobControl {
  private readonly onSignal = () => this.onTstp();
  private readonly onContinue = () => this.onCont();
  /** Within suspendAs: the SIGCONT is its own. */
  private suspending = false;

  /**
   * `lent`: the terminal is another program's (the pager, which stops itself on the terminal's Ctrl-Z); `after`: the
   * TUI has the terminal again, with whether memvoy was stopped (false: no job control here, nothing stopped it).
   */
  constructor(
    private readonly screen: blessed.Widgets.Screen,
    private readonly lent: () => boolean,
    private readonly after: (stopped: boolean) => void,
  ) {}

  /** SIGTSTP was ignored when memvoy started (by whoever started it, as there is nothing to resume a stop). */
  private ignored = false;

  start(): void {
    // A listener would replace the ignore, and taking it off again sets the default action (a stop), not the ignore.
    this.ignored = tstpIgnored();
    if (!this.ignored) process.on("SIGTSTP", this.onSignal);
    process.on("SIGCONT", this.onContinue);
  }

  close(): void {
    if (!this.ignored) process.off("SIGTSTP", this.onSignal);
    process.off("SIGCONT", this.onContinue);
  }

  /** Ctrl-Z: the whole job stops (a wrapper script that started memvoy too), as the terminal's Ctrl-Z does in a shell. */
  suspend(): void {
    if (this.ignored) this.after(false);
    else this.suspendAs(0);
  }

  /** A SIGTSTP from outside (kill -TSTP, or the terminal's Ctrl-Z while the pager runs): memvoy stops, itself alone. */
  private onTstp(): void {
    if (this.lent()) this.stopNow(process.pid);
    else this.suspendAs(process.pid);
  }

  private suspendAs(target: number): void {
    let continued = false;
    const onCont = () => (continued = true);
    process.on("SIGCONT", onCont);
    const terminal = lendTerminal(this.screen);
    let late = false;
    this.suspending = true;
    try {
      late = this.stopNow(target) > STOPPED_MS;
    } finally {
      unlessHungUp(() => terminal.reclaim());
    }
    refreshSize(this.screen.program.output as NodeJS.WriteStream);
    setTimeout(() => {
      this.suspending = false;
      process.off("SIGCONT", onCont);
      this.after(continued || late);
    }, CONT_WAIT_MS);
  }

  /**
   * A SIGCONT after a stop memvoy could not prepare for (SIGSTOP: a debugger, kill -STOP) or none at all: the shell
   * may have had the terminal meanwhile (its prompt drawn over the UI, cooked mode), so it is all taken back and redrawn.
   */
  private onCont(): void {
    if (this.suspending || this.lent()) return;
    unlessHungUp(() => lendTerminal(this.screen).reclaim());
    refreshSize(this.screen.program.output as NodeJS.WriteStream);
    this.after(true);
  }

  /**
   * SIGTSTP with its default action, which stops the process: the kill returns once a SIGCONT (fg, bg, kill -CONT)
   * continued it. Without job control (the process group is orphaned: no shell would resume it; or SIGTSTP was
   * ignored when memvoy started) the kernel drops it and the kill returns at once. Returns the ms it took.
   */
  private stopNow(target: number): number {
    const started = performance.now();
    process.off("SIGTSTP", this.onSignal);
    try {
      process.kill(target, "SIGTSTP");
    } catch {
      // a platform without process groups or SIGTSTP: nothing stopped
    } finally {
      if (!this.ignored) process.on("SIGTSTP", this.onSignal);
    }
    return performance.now() - started;
  }
}

/**
 * A resize while memvoy was stopped sent its SIGWINCH to the shell (the foreground job then), never to memvoy: the
 * size is read again once the TUI has the terminal back, and a change emitted as the resize it was.
 */
function refreshSize(output: NodeJS.WriteStream): void {
  const out = output as NodeJS.WriteStream & { _refreshSize?: () => void };
  if (typeof out._refreshSize === "function") return out._refreshSize();
  const size = out.getWindowSize?.();
  if (!size || (size[0] === out.columns && size[1] === out.rows)) return;
  [out.columns, out.rows] = size;
  out.emit("resize");
}

/** Whether SIGTSTP is ignored (Linux: the SigIgn mask of /proc/self/status; elsewhere it is not known: no). */
function tstpIgnored(): boolean {
  try {
    const mask = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return mask !== undefined && ((BigInt(`0x${mask}`) >> BigInt(constants.signals.SIGTSTP - 1)) & 1n) === 1n;
  } catch {
    return false;
  }
}

/**
 * Take the terminal back. A terminal closed meanwhile (a hangup: the shell sends SIGHUP, then SIGCONT) fails with
 * EIO: it is left alone, and the SIGHUP ends memvoy as usual.
 */
function unlessHungUp(take: () => void): void {
  try {
    take();
  } catch (err) {
    if (!isHungUp(err)) throw err;
  }
}
