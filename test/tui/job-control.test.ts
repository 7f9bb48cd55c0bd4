// Job control under tmux with a real shell: Ctrl-Z (and kill -TSTP) give the terminal back to bash, jobs lists the
// stopped TUI, fg brings it back redrawn and taking keys; without job control Ctrl-Z leaves the TUI running.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { cli, repoRoot } from "../fixture/home.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { makeHome, startTui, T, tuiSuite } from "../fixture/tui-home.ts";

const suite = tuiSuite();
/** PS1; a captured screen drops the space after it. */
const PS1 = "PROMPT$ ";
const PROMPT = PS1.trim();

/** An interactive bash (job control on) in a tmux pane, at its prompt. */
async function shell(width = 200, height = 24): Promise<TmuxSession> {
  const sh = startTui("", { argv: ["bash", "--norc", "--noprofile", "-i"], env: { PS1 }, width, height });
  await sh.waitFor(PROMPT);
  return sh;
}

const tuiCommand = () => `${process.execPath} ${join(repoRoot, "src/index.ts")} --home ${suite.home}`;

/** The TUI's process, started from the shell. */
function tuiPid(): number {
  const pgrep = Bun.spawnSync(["pgrep", "-f", `src/index.ts --home ${suite.home}$`], { stdout: "pipe" });
  const pid = Number(pgrep.stdout.toString().trim().split("\n")[0]);
  expect(pid).toBeGreaterThan(0);
  return pid;
}

/** Lines at the end of the screen, blank ones left out. */
const tail = (screen: string, n: number) =>
  screen
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-n)
    .join("\n");

/** The shell's prompt on the normal screen, with the TUI listed as a stopped job; the terminal as the shell had it. */
async function expectStopped(sh: TmuxSession): Promise<void> {
  await sh.waitFor((s) => /\[1\]\+\s+Stopped\s/.test(s) && tail(s, 1) === PROMPT);
  expect(sh.format("alternate_on")).toBe("0");
  expect(sh.format("mouse_any_flag")).toBe("0");
  expect(sh.format("cursor_flag")).toBe("1");
  sh.type("jobs; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' '; echo =MODES");
  sh.keys("Enter");
  const s = await sh.waitFor(/^icanon echo =MODES$/m);
  // (jobs' line may wrap at a narrow terminal)
  expect(s.replace(/\n/g, "")).toMatch(/\[1\]\+\s+Stopped\s+\S+ \S*src\/index\.ts --home/);
}

/** fg: the TUI on the alternate screen again. */
async function resume(sh: TmuxSession, expected: string): Promise<string> {
  sh.type("fg");
  sh.keys("Enter");
  const s = await sh.waitFor((x) => x.includes(expected) && !x.includes(PROMPT));
  expect(sh.format("alternate_on")).toBe("1");
  return s;
}

describe("job control", () => {
  test(
    "Ctrl-Z stops the TUI for bash's jobs and fg brings it back, in the search box and in a dialog; q leaves a clean terminal",
    async () => {
      const sh = await shell();
      sh.type(tuiCommand());
      sh.keys("Enter");
      await sh.waitFor("Step 39");
      sh.keys("/");
      sh.type("idempotent");
      await sh.waitFor(/▶ beta-billing · /);
      sh.keys("C-z");
      await expectStopped(sh);
      let s = await resume(sh, "Search: idempotent");
      expect(s).toMatch(/▶ beta-billing · /);
      // keys reach the search box again
      sh.type("x");
      await sh.waitFor("Search: idempotentx");
      sh.keys("Escape");
      await sh.waitFor("type to filter");
      sh.keys("C-r");
      await sh.waitFor(" Confirm ");
      sh.keys("C-z");
      await expectStopped(sh);
      s = await resume(sh, " Confirm ");
      sh.keys("n");
      await sh.waitFor("cancelled; nothing was changed");
      sh.keys("q");
      s = await sh.waitFor((x) => tail(x, 1) === PROMPT && sh.format("alternate_on") === "0");
      expect(sh.format("mouse_any_flag")).toBe("0");
      sh.type("jobs; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' '; echo =MODES");
      sh.keys("Enter");
      // jobs lists nothing: the TUI ended
      s = await sh.waitFor((x) => tail(x, 2) === `icanon echo =MODES\n${PROMPT}`);
      expect(tail(s, 3)).toStartWith(`${PROMPT} jobs;`);
    },
    T,
  );

  test(
    "a SIGTSTP sent from outside gives the terminal back before stopping, and fg redraws the whole screen",
    async () => {
      const sh = await shell();
      sh.type(tuiCommand());
      sh.keys("Enter");
      await sh.waitFor("Step 39");
      process.kill(tuiPid(), "SIGTSTP");
      await expectStopped(sh);
      const s = await resume(sh, "Step 39");
      expect(s).toContain("type to filter");
      sh.keys("Tab");
      await sh.waitFor("o open · y copy");
      sh.keys("q");
      await sh.waitFor((x) => tail(x, 1) === PROMPT && sh.format("alternate_on") === "0");
    },
    T,
  );

  test(
    "after a SIGSTOP (no warning) fg redraws over the shell's prompt and keys work again; a SIGCONT alone changes nothing",
    async () => {
      const sh = await shell();
      sh.type(tuiCommand());
      sh.keys("Enter");
      await sh.waitFor("Step 39");
      const pid = tuiPid();
      process.kill(pid, "SIGCONT");
      sh.keys("Tab");
      await sh.waitFor("o open · y copy");
      sh.keys("Tab");
      await sh.waitFor("type to filter · ↑↓ select");
      process.kill(pid, "SIGSTOP");
      // bash takes the terminal back in cooked mode and prints its prompt over the UI
      await sh.waitFor(/\[1\]\+\s+Stopped/);
      sh.type("fg");
      sh.keys("Enter");
      await sh.waitFor((x) => !x.includes("Stopped") && !x.includes(PROMPT) && x.includes("Step 39"));
      sh.keys("Down");
      await sh.waitFor("beta-billing · 4 msgs");
      sh.keys("q");
      await sh.waitFor((x) => tail(x, 1) === PROMPT && sh.format("alternate_on") === "0");
    },
    T,
  );

  test.each(["running", "stopped"])(
    "closing the terminal while the TUI is %s ends it cleanly (the shell's SIGHUP and SIGCONT), with no crash in tui.log",
    async (state) => {
      const sh = await shell();
      sh.type(tuiCommand());
      sh.keys("Enter");
      await sh.waitFor("Step 39");
      const pid = tuiPid();
      const log = join(suite.home, "tui.log");
      const before = existsSync(log) ? readFileSync(log, "utf8").length : 0;
      if (state === "stopped") {
        sh.keys("C-z");
        await expectStopped(sh);
      }
      sh.kill();
      const deadline = Date.now() + 15_000;
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      while (alive() && Date.now() < deadline) await Bun.sleep(20);
      expect(alive()).toBe(false);
      expect(existsSync(log) ? readFileSync(log, "utf8").slice(before) : "").toBe("");
    },
    T,
  );

  test(
    "a resize while the TUI is stopped (its SIGWINCH goes to the shell) is followed at fg",
    async () => {
      const sh = await shell(80, 24);
      sh.type(tuiCommand());
      sh.keys("Enter");
      await sh.waitFor("Step 39");
      sh.keys("C-z");
      await expectStopped(sh);
      sh.resize(110, 32);
      await resume(sh, "Step 39");
      // the frame spans the new width and the status rows sit on the new last rows
      const s = await sh.waitFor((x) => x.split("\n")[0]!.length === 110);
      const rows = s.split("\n");
      expect(rows[31]).toContain("q quit");
      expect(rows[29]).toMatch(/^└─+┘└─+┘$/);
      sh.keys("q");
      await sh.waitFor((x) => tail(x, 1) === PROMPT && sh.format("alternate_on") === "0");
    },
    T,
  );

  test(
    "started with SIGTSTP ignored, Ctrl-Z leaves the TUI running and says so, even under a shell with job control",
    async () => {
      const sh = await shell();
      sh.type(`(trap '' TSTP; exec ${tuiCommand()})`);
      sh.keys("Enter");
      await sh.waitFor("Step 39");
      sh.keys("C-z");
      await sh.waitFor("no job control here");
      expect(sh.format("alternate_on")).toBe("1");
      sh.keys("Tab");
      await sh.waitFor("o open · y copy");
      sh.keys("q");
      const s = await sh.waitFor((x) => tail(x, 1) === PROMPT && sh.format("alternate_on") === "0");
      expect(s).not.toContain("Stopped");
    },
    T,
  );

  test(
    "without job control Ctrl-Z leaves the TUI running and says so; the terminal stays whole",
    async () => {
      // The tmux fixture runs the TUI under `sh -c`, which has no job control: nothing would resume a stop.
      const tui = suite.start();
      await tui.waitFor("Step 39");
      tui.keys("C-z");
      await tui.waitFor("no job control here");
      expect(tui.format("alternate_on")).toBe("1");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.keys("Escape", "q");
      expect(await tui.exited()).toEqual({ code: 0, modes: ["icanon", "echo"] });
    },
    T,
  );

  test(
    "kill -INT quits as Ctrl-C does: a removal confirmed and waiting for the writer lock still finishes after the terminal is given back, exit 130",
    async () => {
      const h = await makeHome();
      const tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      const release = tryLockFile(join(h, ".store", "write.lock"))!;
      try {
        tui.type("zh");
        await tui.waitFor("filter: zh");
        tui.keys("C-x");
        await tui.waitFor("Remove session zh-trip?");
        tui.keys("y");
        await tui.waitFor("removing zh-trip: waiting for another memvoy process writing to this home");
        const pgrep = Bun.spawnSync(["pgrep", "-f", `src/index.ts --home ${h}$`], { stdout: "pipe" });
        process.kill(Number(pgrep.stdout.toString().trim().split("\n")[0]), "SIGINT");
        await tui.waitFor("finishing the deletion you confirmed");
        expect(tui.format("alternate_on")).toBe("0");
      } finally {
        release();
      }
      expect(await tui.exited()).toEqual({ code: 130, modes: ["icanon", "echo"] });
      const r = await cli(["sessions", "--json"], { home: h });
      expect(r.stdout).toContain("alpha-deploy");
      expect(r.stdout).not.toContain("zh-trip");
    },
    T,
  );
});
