// Entry of the terminal UI: open the home (or the shared memory), send logs to <home>/tui.log, run until q, and always give the
// terminal back (alternate screen left, cursor shown, cooked mode) — after a crash too, with one line on stderr.
import { writeSync } from "node:fs";
import { constants as osConstants, devNull, tmpdir } from "node:os";
import { join } from "node:path";
import { holdsHome, openMemory } from "../app/open-memory.ts";
import { homePaths, resolveHome } from "../config/home.ts";
import { loadConfigCached } from "../config/load-cached.ts";
import type { TuiMemory } from "./api-types.ts";
import { describeError } from "../shared/describe-error.ts";
import { nowNs } from "../shared/time.ts";
import { TuiApp } from "./app/tui-app.ts";
import { redirectLogs, type LogRedirect } from "./terminal/log-redirect.ts";
import { homeOnceMade } from "./home-once-made.ts";
import { openScreen, type OpenedScreen } from "./terminal/open-screen.ts";
import { ignoreHangups } from "./terminal/hung-up.ts";
import { jitAsUsual } from "../shared/jit-policy.ts";

export interface TuiOptions {
  home?: string;
}

/**
 * The home's memory: the shared one (PostgreSQL and the shared vectors) when an archive URL is configured; its
 * code loads only then.
 */
async function openTuiMemory(home: string | undefined): Promise<TuiMemory> {
  const paths = homePaths(resolveHome(home, process.env));
  const config = loadConfigCached(paths.config, process.env);
  if (!config.archive.url.trim()) {
    const open = () => openMemory({ home, config, command: "the terminal UI" });
    // A mistyped --home gets the first-run screen, and no second home is made.
    return holdsHome(paths) ? open() : homeOnceMade(paths.db, openMemory({ home, config, readOnly: true }), open);
  }
  const { openSharedHome } = await import("../app/shared/open-shared.ts");
  // On a shared archive too: a home that does not exist gets no caches (summarize makes it when it runs).
  return openSharedHome({ home, config, connections: 2, readOnly: true });
}

/** The log in the home; for a home not made yet, this user's log in the temp folder (or none, if that fails). */
function openLogs(home: string): LogRedirect {
  if (holdsHome(homePaths(home))) return redirectLogs(join(home, "tui.log"));
  try {
    return redirectLogs(join(tmpdir(), `memvoy-tui-${process.getuid?.() ?? "user"}.log`));
  } catch {
    return redirectLogs(devNull);
  }
}

/**
 * After a SIGTERM (a service manager's stop, kill) or a SIGHUP (the terminal closed), how long a deletion the user
 * confirmed has to finish before memvoy ends anyway: within the grace the usual service managers give before they
 * kill (runit 7 s, docker stop and supervisord 10 s, systemd 90 s).
 */
export const SIGNAL_GRACE_MS = 5_000;

/**
 * A deletion confirmed just before q (or its vector purge) would be cut off by the exit, leaving the removed
 * messages' vectors in the vector store's older versions: the terminal is given back at once, then it finishes,
 * said on stderr when it takes a moment.
 */
async function finishConfirmed(app: TuiApp, giveBack: () => void, signal: string | undefined): Promise<void> {
  const work = app.confirmedWork();
  if (!work) return;
  giveBack();
  const notice = setTimeout(
    () =>
      process.stderr.write(
        signal
          ? `memvoy: ${signal}: finishing the deletion you confirmed first (at most ${SIGNAL_GRACE_MS / 1000} s)…\n`
          : "memvoy: finishing the deletion you confirmed… (Ctrl-C stops waiting)\n",
      ),
    250,
  );
  const failures = await work.finally(() => clearTimeout(notice));
  for (const f of failures) process.stderr.write(`memvoy: the deletion did not finish: ${f}\n`);
}

/**
 * The cursor to the start of its line once the normal screen is back, so the shell's prompt starts there: after a
 * stop without warning (SIGSTOP) the shell wrote on the alternate screen, and the cursor can come back mid-line.
 */
function toLineStart(output: NodeJS.WriteStream | undefined): void {
  const fd = (output as { fd?: number } | undefined)?.fd;
  if (!output?.isTTY || fd === undefined) return;
  try {
    writeSync(fd, "\r");
  } catch {
    // the terminal is gone (a hangup): nothing to place
  }
}

/** A process ended by a signal exits 128 + its number, as shells report it (143 for SIGTERM, 129 for SIGHUP). */
function signalExit(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 0);
}

export async function runTui(options: TuiOptions = {}): Promise<number> {
  // Compiled up front as before: what the first paint runs, the first keys run again at once.
  jitAsUsual();
  const api = await openTuiMemory(options.home);
  const logs = openLogs(api.home);
  let opened: OpenedScreen | undefined;
  let cleaned = false;
  let givenBack = false;
  let closing: unknown;
  const giveBack = () => {
    if (givenBack) return;
    givenBack = true;
    try {
      const output = opened?.screen.program.output as NodeJS.WriteStream | undefined;
      opened?.screen.destroy();
      toLineStart(output);
    } finally {
      logs.restore();
    }
  };
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    try {
      giveBack();
    } finally {
      closing = api.close();
    }
  };
  const fatal = (err: unknown) => {
    console.error(err instanceof Error && err.stack ? err.stack : String(err)); // into tui.log
    cleanup();
    process.stderr.write(`memvoy: ${describeError(err)} (details in ${logs.file})\n`);
    process.exit(1);
  };
  let app: TuiApp | undefined;
  let signalled: NodeJS.Signals | undefined;
  /**
   * SIGTERM or SIGHUP: the pager ends, the UI quits as on q and a deletion the user confirmed finishes, for at most
   * SIGNAL_GRACE_MS. Then memvoy ends anyway: a deletion still waiting for another process's writer lock is left
   * whole (never started), and said so; one under way (a shared memory's round trips) is never cut in half.
   */
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = signal;
    const running = app;
    if (!running) {
      cleanup();
      process.exit(signalExit(signal));
    }
    setTimeout(() => {
      const dropped = running.stopStarting();
      void running.deletionsUnderWay().then(() => {
        cleanup();
        for (const what of dropped)
          process.stderr.write(
            `memvoy: ${what} was not done: another memvoy process still held this home's writer lock ${SIGNAL_GRACE_MS / 1000} s after the ${signal}; nothing of it was changed\n`,
          );
        process.exit(dropped.length > 0 ? 1 : signalExit(signal));
      });
    }, SIGNAL_GRACE_MS);
    void running.stopPager().finally(() => running.quit());
  };
  // A SIGINT or SIGQUIT sent to memvoy (kill -INT; the keys are read as keys) quits as Ctrl-C does, a confirmed
  // deletion finishing first; while the pager runs they are the pager's, as the terminal sends them to both.
  let interrupted: NodeJS.Signals | undefined;
  const onInterrupt = (signal: NodeJS.Signals) => {
    if (!app || app.paging) return;
    interrupted ??= signal;
    app.quit();
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
  ignoreHangups();
  for (const s of ["SIGTERM", "SIGHUP"] as const) process.on(s, onSignal);
  for (const s of ["SIGINT", "SIGQUIT"] as const) process.on(s, onInterrupt);
  try {
    opened = openScreen();
    app = new TuiApp(api, opened.screen, opened.theme, nowNs);
    app.start();
    await app.done;
    // Ctrl-C while a confirmed deletion finishes stops waiting for it (the terminal is the shell's again).
    for (const s of ["SIGINT", "SIGQUIT"] as const) process.off(s, onInterrupt);
    await finishConfirmed(app, giveBack, signalled);
    const ended = signalled ?? interrupted;
    return ended ? signalExit(ended) : 0;
  } catch (err) {
    console.error(err instanceof Error && err.stack ? err.stack : String(err));
    throw err;
  } finally {
    cleanup();
    await Promise.resolve(closing).catch(() => {});
    process.off("uncaughtException", fatal);
    process.off("unhandledRejection", fatal);
    for (const s of ["SIGTERM", "SIGHUP"] as const) process.off(s, onSignal);
    for (const s of ["SIGINT", "SIGQUIT"] as const) process.off(s, onInterrupt);
    process.stdin.pause();
  }
}
