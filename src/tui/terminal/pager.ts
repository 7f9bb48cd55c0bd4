// Show a text in the user's $PAGER (default less): the TUI hands the terminal over and takes it back after.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type blessed from "blessed";
import { makeTempFolder } from "../../shared/folder-made.ts";
import { lendTerminal } from "./hand-over.ts";

/** How long a pager asked to end (SIGTERM) has before it is killed. */
const STOP_GRACE_MS = 1000;
/** Keys the pager answers: like a shell waiting for a foreground job, the TUI ignores them meanwhile. */
const PAGER_SIGNALS = ["SIGINT", "SIGQUIT"] as const;

export interface RunningPager {
  /** End the pager (the TUI is exiting): terminate it, leave the terminal to the shell, remove the file. */
  stop(): Promise<void>;
}

/**
 * The text is UTF-8 whatever the locale says, as the TUI draws it: less under a POSIX locale (LANG unset, as in
 * many containers) would call it a binary file and show each byte as <E6>. A charset the user chose is kept.
 */
function pagerCharset(env: NodeJS.ProcessEnv): { LESSCHARSET?: string } {
  return env.LESSCHARSET || env.LESSCHARDEF ? {} : { LESSCHARSET: "utf-8" };
}

/** PAGER runs less (`less -FRX`, `/usr/bin/less`): its own -F is turned off after the options it gives. */
function isLess(pager: string): boolean {
  return /^(?:\S*\/)?less(?:\s|$)/.test(pager);
}

/**
 * Run `$PAGER FILE` on the terminal (through sh, so PAGER may hold options like `less -R`). The text goes
 * into a private temp file (0600 in a 0700 folder), removed when the pager exits.
 */
export function openInPager(
  screen: blessed.Widgets.Screen,
  text: string,
  done: (error?: string) => void,
  env = process.env,
): RunningPager {
  const dir = makeTempFolder("memvoy-pager-");
  const file = join(dir, "message.txt");
  writeFileSync(file, text.endsWith("\n") ? text : text + "\n", { mode: 0o600 });
  const pager = env.PAGER?.trim() || "less";
  const terminal = lendTerminal(screen);
  let child: Bun.Subprocess | undefined;
  let stopping = false;
  const ignore = () => {};
  // Any other exit (a crash) still ends the pager and removes the file.
  const onExit = () => {
    child?.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  for (const s of PAGER_SIGNALS) process.on(s, ignore);
  process.on("exit", onExit);
  const finish = (error?: string) => {
    for (const s of PAGER_SIGNALS) process.off(s, ignore);
    process.off("exit", onExit);
    rmSync(dir, { recursive: true, force: true });
    if (stopping) return terminal.release();
    terminal.reclaim();
    done(error);
  };
  try {
    // exec: the pager itself is the child, so it gets the signals meant for it and ends when told.
    // Its stderr is the terminal too (fd 1): the TUI's own fd 2 goes to tui.log, where a pager's message or question
    // (less: "There is no … option", "Press RETURN to continue") would be hidden behind a blank screen.
    child = Bun.spawn(["sh", "-c", `exec ${pager}${isLess(pager) ? " -+F" : ""} "$1"`, "sh", file], {
      stdio: ["inherit", "inherit", 1],
      // -+F: a LESS with -F (quit at once when the text fits on one screen, as many set it for git) would end less
      // before it is seen, the TUI redrawn over the text at once.
      env: { ...env, LESS: `${env.LESS ?? "-R"} -+F`, ...pagerCharset(env) },
    });
  } catch (err) {
    finish(`cannot run the pager ${JSON.stringify(pager)}: ${(err as Error).message}`);
    return { stop: async () => {} };
  }
  const proc = child;
  // A pager that failed (a bad option: bat, less -X --nope) says why on the terminal, which the redraw then covers.
  const ended = proc.exited.then((code) =>
    finish(
      code === 127
        ? `the pager ${JSON.stringify(pager)} was not found (set PAGER)`
        : code > 0 && proc.signalCode === null && !stopping
          ? `the pager ${JSON.stringify(pager)} failed (exit status ${code})`
          : undefined,
    ),
  );
  return {
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      stopping = true;
      proc.kill("SIGTERM");
      const kill = setTimeout(() => proc.kill("SIGKILL"), STOP_GRACE_MS);
      await ended;
      clearTimeout(kill);
    },
  };
}
