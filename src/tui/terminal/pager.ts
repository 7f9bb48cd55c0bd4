// Show a text in the user's $PAGER (default less): the TUI hands the terminal over and takes it back after.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type blessed from "blessed";
import { lendTerminal } from "./hand-over.ts";

/**
 * Run `$PAGER FILE` on the terminal (through sh, so PAGER may hold options like `less -R`). The text goes
 * into a private temp file (0600 in a 0700 folder), removed when the pager exits.
 */
export function openInPager(
  screen: blessed.Widgets.Screen,
  text: string,
  done: (error?: string) => void,
  env = process.env,
): void {
  const dir = mkdtempSync(join(tmpdir(), "memvoy-pager-"));
  const file = join(dir, "message.txt");
  writeFileSync(file, text.endsWith("\n") ? text : text + "\n", { mode: 0o600 });
  const pager = env.PAGER?.trim() || "less";
  const terminal = lendTerminal(screen);
  const finish = (error?: string) => {
    rmSync(dir, { recursive: true, force: true });
    terminal.reclaim();
    done(error);
  };
  let child: Bun.Subprocess;
  try {
    child = Bun.spawn(["sh", "-c", `${pager} "$1"`, "sh", file], {
      stdio: ["inherit", "inherit", "inherit"],
      env: { ...env, LESS: env.LESS ?? "-R" },
    });
  } catch (err) {
    return finish(`cannot run the pager ${JSON.stringify(pager)}: ${(err as Error).message}`);
  }
  void child.exited.then((code) =>
    finish(code === 127 ? `the pager ${JSON.stringify(pager)} was not found (set PAGER)` : undefined),
  );
}
