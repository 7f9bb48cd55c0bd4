// Daily use under tmux: another process's writes appear on their own; o opens $PAGER; y copies through
// OSC 52 (tmux set-clipboard on, read back with show-buffer); mouse clicks select and the wheel scrolls.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { cli, tempHome, waitFor } from "../fixture/home.ts";
import { startDaemon } from "../fixture/daemon-process.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { makeHome, ns, startTui, tuiSuite } from "../fixture/tui-home.ts";
import { CLOCK_TICK_MS } from "../../src/tui/app/tui-app.ts";

const suite = tuiSuite();
let tui: TmuxSession | undefined;

/** SGR mouse reports (1-based cells): a left click, or a wheel notch. */
const click = (x: number, y: number) => `\x1b[<0;${x};${y}M\x1b[<0;${x};${y}m`;
const wheel = (dir: "up" | "down", x: number, y: number) => `\x1b[<${dir === "up" ? 64 : 65};${x};${y}M`;
/** A pointer-motion report as xterm sends it in the mode blessed asks for (X10 bytes, UTF-8 coordinates). */
const motion = (x: number, y: number) => `\x1b[MC${String.fromCharCode(32 + x)}${String.fromCharCode(32 + y)}`;

/** A pager script (it gets the text's file as $1) that first notes its pid and that file in `dir`. */
function pagerScript(dir: string, body: string): string {
  const path = join(dir, "pager.sh");
  writeFileSync(path, `#!/bin/sh\necho $$ > ${dir}/pid\necho "$1" > ${dir}/file\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The TUI's pid: the nearest ancestor of the pager that runs src/index.ts. */
function tuiAbove(pid: number): number {
  for (let p = pid; p > 1; ) {
    const stat = readFileSync(`/proc/${p}/stat`, "utf8");
    p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (readFileSync(`/proc/${p}/cmdline`, "utf8").includes("src/index.ts")) return p;
  }
  throw new Error(`no TUI above process ${pid}`);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("live updates", () => {
  test("a message, a session and an error record written by another process appear; selection and scroll hold", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 100, height: 30 });
    await tui.waitFor("old-notes");
    // Select beta-billing (second row) and scroll its history to the top: neither may move.
    tui.keys("Down");
    await tui.waitFor("beta-billing · 4 msgs");
    tui.keys("Enter", "Home");
    await tui.waitFor(/beta-billing · 4 msgs.*· (top|all)/);
    expect(
      (
        await cli(["add", "beta-billing", "--role", "assistant", "--content", "LIVE: the refund job is fixed"], {
          home: h,
        })
      ).code,
    ).toBe(0);
    let s = await tui.waitFor("beta-billing · 5 msgs", 20_000);
    expect(s).toContain("Stripe webhooks arrive twice");
    expect(
      (await cli(["add", "brand-new", "--role", "user", "--content", "a session made elsewhere"], { home: h })).code,
    ).toBe(0);
    s = await tui.waitFor("│brand-new", 20_000);
    expect(s).toContain("5 sessions");
    expect(s).toMatch(/beta-billing · 5 msgs/); // still the selected session
    tui.keys("End");
    s = await tui.waitFor("LIVE: the refund job is fixed");
    // At the end, the view follows new messages.
    expect(
      (await cli(["add", "beta-billing", "--role", "user", "--content", "LIVE: second follow-up"], { home: h })).code,
    ).toBe(0);
    await tui.waitFor("LIVE: second follow-up", 20_000);
    // An error record shows up in the count and, with the browser open, in its list.
    tui.keys("C-e");
    await tui.waitFor("Error memory · 3 records");
    expect(
      (
        await cli(["errors", "record", "--tool", "make", "--error", "LIVE: missing separator", "--fix", "use tabs"], {
          home: h,
        })
      ).code,
    ).toBe(0);
    s = await tui.waitFor("Error memory · 4 records", 20_000);
    expect(s).toContain("LIVE: missing separator");
    // A summary saved by another process shows in the open summary viewer.
    tui.keys("Escape");
    await tui.waitForGone("Error memory");
    tui.keys("C-s");
    await tui.waitFor("No summary yet.");
    const api = openMemory({ home: h, env: {} });
    api.importSummary("beta-billing", {
      key_decisions: ["Do: LIVE retry the refund job nightly"],
      past_discussions: [],
      current_discussion: {
        topic: "Refunds",
        description: "The job is fixed.",
        perspectives: "",
        direction: "Watch it",
      },
    });
    api.close();
    s = await tui.waitFor("Do: LIVE retry the refund job nightly", 20_000);
    expect(s).toContain("beta-billing");
  }, 120_000);

  test("a history pane opened on a search hit at the end follows new messages", async () => {
    const h = await makeHome();
    const add = async (content: string) =>
      expect((await cli(["add", "alpha-deploy", "--role", "user", "--content", content], { home: h })).code).toBe(0);
    await add("LIVE: the zebracrossing checklist is done");
    tui = startTui(h, { width: 100, height: 30 });
    await tui.waitFor("old-notes");
    tui.type("/");
    await tui.waitFor("Search:");
    tui.type("zebracrossing");
    await tui.waitFor(/hits? for "zebracrossing"(?!.*(searching|ranking))[\s\S]*▶[^\n]*\n[^\n]*zebracrossing/);
    tui.keys("Enter");
    // Centred on the last message, the view is at the end.
    await tui.waitFor(/alpha-deploy · 41 msgs[^│]*· end/);
    await add("LIVE: written after the hit was opened");
    const s = await tui.waitFor("LIVE: written after the hit was opened", 20_000);
    expect(s).toMatch(/alpha-deploy · 42 msgs[^│]*· end/);
  }, 60_000);

  test("a record another program (Agenvoy) appends to the shown session's history.json appears, and the list counts it", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 120, height: 30 });
    await tui.waitFor("old-notes");
    tui.keys("Down");
    await tui.waitFor("beta-billing · 4 msgs");
    // Agenvoy's record: no id, sendAt in integer nanoseconds; written to the file alone, the archive untouched.
    const file = join(h, "sessions", "beta-billing", "history.json");
    const records = JSON.parse(readFileSync(file, "utf8")) as unknown[];
    const sendAt = `${BigInt(Date.now()) * 1_000_000n}`;
    records.push({ role: "assistant", content: "AGENVOY: the refund job is fixed", sendAt });
    writeFileSync(`${file}.tmp`, JSON.stringify(records).replace(`"${sendAt}"`, sendAt));
    renameSync(`${file}.tmp`, file);
    const s = await tui.waitFor((x) => x.includes("AGENVOY: the refund job") && /beta-billing +5 /.test(x), 20_000);
    expect(s).toContain("beta-billing · 5 msgs");
    // The folder removed and made again (a restore): what is written in the new folder shows too.
    const folder = join(h, "sessions", "beta-billing");
    const kept = readFileSync(file, "utf8");
    rmSync(folder, { recursive: true });
    mkdirSync(folder, { mode: 0o700 });
    const append = (content: string, text: string) => {
      const list = JSON.parse(text) as unknown[];
      list.push({ role: "user", content, sendAt: `${BigInt(Date.now()) * 1_000_000n}` });
      writeFileSync(`${file}.tmp`, JSON.stringify(list));
      renameSync(`${file}.tmp`, file);
    };
    append("AGENVOY: restored with one more", kept);
    await tui.waitFor("AGENVOY: restored with one more", 20_000);
    append("AGENVOY: written after the restore", readFileSync(file, "utf8"));
    await tui.waitFor("AGENVOY: written after the restore", 20_000);
  }, 60_000);

  test("a session another program (Agenvoy) starts, its folder first and then its history.json, is listed with its messages", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 120, height: 30 });
    await tui.waitFor("old-notes");
    const folder = join(h, "sessions", "agenvoy-new");
    mkdirSync(folder, { mode: 0o700 });
    await tui.waitFor(/│agenvoy-new +0 /, 20_000);
    const file = join(folder, "history.json");
    const sendAt = `${BigInt(Date.now()) * 1_000_000n}`;
    const records = [
      { role: "user", content: "AGENVOY: a new session", sendAt: 0 },
      { role: "assistant", content: "AGENVOY: its reply", sendAt: 0 },
    ];
    writeFileSync(`${file}.tmp`, JSON.stringify(records).replaceAll('"sendAt":0', `"sendAt":${sendAt}`));
    renameSync(`${file}.tmp`, file);
    // Nothing else writes to the home: the file alone must bring the session's messages to the list.
    const s = await tui.waitFor(/│agenvoy-new +2 +now /, 20_000);
    expect(s).toContain("5 sessions · 50 msgs");
  }, 60_000);

  test("on a home with no data yet, what another process adds shows on its own, also after Ctrl-L opened a home made meanwhile", async () => {
    const empty = tempHome("memvoy-tui-");
    tui = startTui(empty, { width: 100, height: 30 });
    await tui.waitFor("Welcome to memvoy");
    expect((await cli(["add", "first", "--role", "user", "--content", "hello"], { home: empty })).code).toBe(0);
    await tui.waitFor(/│first +1 /, 20_000);
    expect((await cli(["add", "second", "--role", "user", "--content", "LIVE: second"], { home: empty })).code).toBe(0);
    await tui.waitFor(/│second +1 /, 20_000);
    tui.keys("q");
    await tui.exited();

    const missing = join(tempHome("memvoy-tui-"), "made-later");
    tui = startTui(missing, { width: 100, height: 30 });
    await tui.waitFor("Welcome to memvoy");
    expect((await cli(["add", "first", "--role", "user", "--content", "hello"], { home: missing })).code).toBe(0);
    tui.keys("C-l");
    await tui.waitFor(/│first +1 /, 20_000);
    expect((await cli(["add", "second", "--role", "user", "--content", "LIVE: second"], { home: missing })).code).toBe(
      0,
    );
    await tui.waitFor(/│second +1 /, 20_000);
  }, 60_000);

  test(
    "in a quiet home the list's ages move on without a key or a write",
    async () => {
      const h = tempHome("memvoy-tui-");
      const api = openMemory({ home: h, env: {} });
      try {
        api.add("quiet", { role: "user", content: "the last word for a while", sendAt: ns(Date.now() - 30_000) });
      } finally {
        api.close();
      }
      tui = startTui(h, { width: 100, height: 30 });
      await tui.waitFor(/│quiet +1 +now /);
      // Nothing happens from here on: the minute's redraw alone turns "now" into "1m".
      await tui.waitFor(/│quiet +1 +1m /, CLOCK_TICK_MS + 40_000);
    },
    CLOCK_TICK_MS + 60_000,
  );

  test("a summary another program (Agenvoy) writes to the shown session's summary.json shows in the open viewer", async () => {
    const h = await makeHome();
    const api = openMemory({ home: h, env: {} });
    try {
      api.importSummary("beta-billing", {
        key_decisions: ["Do: retry the refund job nightly"],
        past_discussions: [],
        current_discussion: { topic: "Refunds", description: "The job is fixed.", perspectives: "", direction: "" },
      });
    } finally {
      api.close();
    }
    tui = startTui(h, { width: 120, height: 30 });
    await tui.waitFor("old-notes");
    tui.keys("Down");
    await tui.waitFor("beta-billing · 4 msgs");
    tui.keys("C-s");
    await tui.waitFor("Do: retry the refund job nightly");
    // Agenvoy's own summarizer: the whole file written anew by rename; the archive untouched.
    const file = join(h, "sessions", "beta-billing", "summary.json");
    const summary = JSON.parse(readFileSync(file, "utf8")) as { key_decisions: string[] };
    summary.key_decisions.unshift("Do: AGENVOY keep the webhook secret in the vault");
    writeFileSync(`${file}.tmp`, JSON.stringify(summary, null, 2));
    renameSync(`${file}.tmp`, file);
    await tui.waitFor("Do: AGENVOY keep the webhook secret in the vault", 20_000);
  }, 60_000);

  test("the session shown being removed by another process is said on the status row", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 120, height: 30 });
    await tui.waitFor("old-notes");
    tui.keys("Down");
    await tui.waitFor("beta-billing · 4 msgs");
    expect((await cli(["rm", "beta-billing"], { home: h })).code).toBe(0);
    const s = await tui.waitFor(/session beta-billing was removed by another process; showing [\w-]+/, 20_000);
    expect(s).not.toContain("│beta-billing");
  }, 60_000);

  test("the session whose summary is open being removed by another process is said so, in the viewer and on the status row", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 120, height: 30 });
    await tui.waitFor("old-notes");
    tui.keys("Down");
    await tui.waitFor("beta-billing · 4 msgs");
    tui.keys("C-s");
    await tui.waitFor("Summary · beta-billing");
    expect((await cli(["rm", "beta-billing"], { home: h })).code).toBe(0);
    const s = await tui.waitFor(/session beta-billing was removed by another process; showing [\w-]+/, 20_000);
    expect(s).toContain("session beta-billing was removed by another process");
    expect(s).not.toContain('no such session "beta-billing"');
  }, 60_000);

  test("a home deleted while the TUI shows it is said to be gone, Ctrl-L included", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 120, height: 30 });
    await tui.waitFor("old-notes");
    rmSync(h, { recursive: true, force: true });
    // On a loaded machine the refresh can run while the deletion is still under way: the archive gone, the folder
    // not yet (its own removal is not notified while the TUI's log in it is open).
    const gone = (p: string) => `the home is gone (${p} was deleted or moved away)`;
    await tui.waitFor((x) => x.includes(gone(h)) || x.includes(gone(join(h, ".store", "history.db"))), 20_000);
    expect(existsSync(h)).toBe(false);
    // Ctrl-L finds it gone too. A home moved away sends no change notification (its folders are still there,
    // elsewhere), so what the status row says below comes from Ctrl-L alone.
    const moved = await makeHome();
    tui = startTui(moved, { width: 120, height: 30 });
    await tui.waitFor("old-notes");
    renameSync(moved, join(tempHome("memvoy-moved-"), "home"));
    tui.keys("Down");
    await tui.waitFor("beta-billing · 4 msgs");
    tui.keys("C-l");
    const s = await tui.waitFor(`the home is gone (${moved} was deleted or moved away)`);
    expect(s).toContain("q quits");
    expect(s).toContain("beta-billing · 4 msgs"); // what the home held stays on screen
  }, 60_000);

  test("a home made after the TUI opened on it, then deleted, is said to be gone", async () => {
    const home = join(tempHome("memvoy-tui-"), "made-later");
    tui = startTui(home, { width: 120, height: 30 });
    await tui.waitFor("Welcome to memvoy");
    expect((await cli(["add", "first", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
    tui.keys("C-l");
    await tui.waitFor(/│first +1 /, 20_000);
    rmSync(home, { recursive: true, force: true });
    tui.keys("C-l");
    const gone = (p: string) => `the home is gone (${p} was deleted or moved away)`;
    await tui.waitFor((x) => x.includes(gone(home)) || x.includes(gone(join(home, ".store", "history.db"))), 20_000);
  }, 60_000);

  test("the status row follows a daemon started and stopped for the home", async () => {
    const h = await makeHome();
    tui = startTui(h);
    await tui.waitFor("daemon stopped");
    const daemon = startDaemon(h);
    try {
      await tui.waitFor("daemon running", 30_000);
      expect((await cli(["daemon", "stop"], { home: h })).code).toBe(0);
      await daemon.exited;
      // Stopping writes nothing to the archive or the sessions: only the daemon's state file changes.
      await tui.waitFor("daemon stopped");
    } finally {
      daemon.proc.kill(9);
    }
  }, 60_000);

  test(
    "a daemon killed outright (kill -9: no state file written) is shown stopped within the minute",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("daemon stopped");
      const daemon = startDaemon(h);
      try {
        await tui.waitFor("daemon running", 30_000);
        daemon.proc.kill(9);
        await daemon.exited;
        await tui.waitFor("daemon stopped", CLOCK_TICK_MS + 40_000);
      } finally {
        daemon.proc.kill(9);
      }
    },
    CLOCK_TICK_MS + 90_000,
  );
});

describe("pager and clipboard", () => {
  test("o opens the message, the search hit and the error record in $PAGER", async () => {
    const dir = tempHome("memvoy-pager-");
    const out = join(dir, "paged.txt");
    const pager = join(dir, "pager.sh");
    // The pager copies what it was given and waits for a key, like less.
    writeFileSync(pager, `#!/bin/sh\ncat "$1" >> ${out}\necho PAGER-SHOWING\nread line\n`);
    chmodSync(pager, 0o755);
    tui = suite.start({ env: { PAGER: pager } });
    await tui.waitFor("old-notes");
    tui.keys("Down", "Down", "Down"); // old-notes
    await tui.waitFor("old-notes · 2 msgs");
    tui.keys("Enter", "Home", "o");
    await tui.waitFor("PAGER-SHOWING");
    tui.keys("Enter");
    let s = await tui.waitFor("closed the pager");
    expect(s).toContain("old-notes · 2 msgs");
    expect(readFileSync(out, "utf8")).toContain("Draft the quarterly report outline.");
    expect(readFileSync(out, "utf8")).toMatch(/^old-notes · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · user/);
    // A search hit: Ctrl-O (letters are typed into the query).
    tui.type("/");
    await tui.waitFor("Search:");
    tui.type("idempotent");
    await tui.waitFor(/\d+ hits? for "idempotent"(?!.*searching)/);
    tui.keys("C-o");
    await tui.waitFor("PAGER-SHOWING");
    tui.keys("Enter");
    await tui.waitFor("closed the pager");
    expect(readFileSync(out, "utf8")).toContain("Stripe webhooks arrive twice");
    // An error record.
    tui.keys("Escape");
    await tui.waitForGone("Search:");
    tui.keys("C-e");
    await tui.waitFor("Error memory");
    tui.type("o");
    await tui.waitFor("PAGER-SHOWING");
    tui.keys("Enter");
    s = await tui.waitFor("closed the pager");
    expect(readFileSync(out, "utf8")).toMatch(/Fix: /);
    tui.type("q");
    expect((await tui.exited()).code).toBe(0);
  }, 120_000);

  test("what the pager writes to stderr (a bad option, a question) is on the screen, not in tui.log", async () => {
    const dir = tempHome("memvoy-pager-");
    const pager = join(dir, "pager.sh");
    writeFileSync(
      pager,
      `#!/bin/sh\necho "PAGER-ERROR: there is no such option" >&2\necho "Press RETURN to continue" >&2\nread line\n`,
    );
    chmodSync(pager, 0o755);
    tui = suite.start({ env: { PAGER: pager } });
    await tui.waitFor("old-notes");
    tui.keys("Enter", "o");
    await tui.waitFor("PAGER-ERROR: there is no such option");
    tui.keys("Enter");
    await tui.waitFor("closed the pager");
    // A pager that fails at once: its message is covered by the redraw, so the status row says it failed.
    writeFileSync(pager, `#!/bin/sh\necho "error: unexpected argument" >&2\nexit 2\n`);
    tui.keys("o");
    const s = await tui.waitFor(/the pager ".*pager\.sh" failed \(exit status 2\)/);
    expect(s).not.toContain("closed the pager");
  }, 60_000);

  test("o in less with LESS=-FRX (quit when the text fits one screen) still shows the message until q", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 100, height: 30, env: { LESS: "-FRX", PAGER: "less" } });
    await tui.waitFor("old-notes");
    tui.keys("Down", "Down", "Down");
    await tui.waitFor("old-notes · 2 msgs");
    tui.keys("Enter", "Home", "o");
    const s = await tui.waitFor((x) => x.includes("(END)") || x.includes("closed the pager"));
    expect(s).toContain("Draft the quarterly report outline.");
    expect(s).not.toContain("closed the pager");
    tui.type("q");
    await tui.waitFor("closed the pager");
  }, 60_000);

  test("o with PAGER='less -FRX' still shows the message until q", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 100, height: 30, env: { PAGER: "less -FRX" } });
    await tui.waitFor("old-notes");
    tui.keys("Down", "Down", "Down");
    await tui.waitFor("old-notes · 2 msgs");
    tui.keys("Enter", "Home", "o");
    const s = await tui.waitFor((x) => x.includes("(END)") || x.includes("closed the pager"));
    expect(s).not.toContain("closed the pager");
    tui.type("q");
    await tui.waitFor("closed the pager");
  }, 60_000);

  test("o in less under a POSIX locale (LANG unset) shows the text as the TUI does, not as a binary file's bytes", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 100, height: 30, env: { LANG: undefined, PAGER: "less" } });
    await tui.waitFor("old-notes");
    tui.keys("Down", "Down");
    await tui.waitFor("zh-trip · 2 msgs");
    tui.keys("Enter", "o");
    const s = await tui.waitFor((x) => x.includes("(END)") || x.includes("binary file"));
    expect(s).not.toContain("binary file");
    expect(s).toContain("我們下個月去京都，請幫我排三天的行程。");
    expect(s).toMatch(/zh-trip · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · user/);
    tui.type("q");
    await tui.waitFor("closed the pager");
  }, 60_000);

  test("o gives the pager the text without its escape sequences (more would pass them to the terminal); y copies it exact", async () => {
    const h = await makeHome();
    const stored = "tool output \x1b]0;PWNED\x07then \x1b[31mred\x1b[0m text\tend";
    const api = openMemory({ home: h, env: {} });
    api.add("escapes", { role: "user", content: stored });
    api.close();
    const dir = tempHome("memvoy-pager-");
    const out = join(dir, "paged.txt");
    const pager = join(dir, "pager.sh");
    writeFileSync(pager, `#!/bin/sh\ncat "$1" >> ${out}\necho PAGER-SHOWING\nread line\n`);
    chmodSync(pager, 0o755);
    tui = startTui(h, { env: { PAGER: pager } });
    tui.command("set-option", "-g", "set-clipboard", "on");
    await tui.waitFor("alpha-deploy");
    tui.type("escapes");
    tui.keys("Enter");
    await tui.waitFor("escapes · 1 msg");
    tui.keys("o");
    await tui.waitFor("PAGER-SHOWING");
    tui.keys("Enter");
    await tui.waitFor("closed the pager");
    const paged = readFileSync(out, "utf8");
    expect(paged).toContain("tool output then red text\tend");
    expect(paged).not.toContain("\x1b");
    expect(paged).not.toContain("PWNED");
    tui.keys("y");
    await tui.waitFor("copied the user message");
    expect(tui.command("show-buffer")).toBe(stored);
  }, 60_000);

  test("o hands the terminal to the pager (normal screen, no mouse, cursor, cooked mode) and takes it back", async () => {
    const dir = tempHome("memvoy-pager-");
    const modes = join(dir, "stty.txt");
    const pager = join(dir, "pager.sh");
    writeFileSync(pager, `#!/bin/sh\nstty -a > ${modes}\necho PAGER-SHOWING\nread line\n`);
    chmodSync(pager, 0o755);
    tui = suite.start({ env: { PAGER: pager } });
    await tui.waitFor("old-notes");
    expect(tui.format("alternate_on")).toBe("1");
    expect(tui.format("mouse_any_flag")).toBe("1");
    tui.keys("Enter", "o");
    const s = await tui.waitFor("PAGER-SHOWING");
    // The pager starts on the terminal as it was before the TUI: nothing of the TUI is left on it.
    expect(s).not.toContain("old-notes");
    expect(s).not.toContain("│");
    expect(tui.format("alternate_on")).toBe("0");
    expect(tui.format("mouse_any_flag")).toBe("0");
    expect(tui.format("mouse_standard_flag")).toBe("0");
    expect(tui.format("cursor_flag")).toBe("1");
    expect(readFileSync(modes, "utf8")).toMatch(/(^|[\s;])icanon[\s;][\s\S]*(^|[\s;])echo[\s;]/);
    tui.keys("Enter");
    const back = await tui.waitFor("closed the pager");
    expect(back).toContain("old-notes");
    expect(back).toContain("alpha-deploy · 40 msgs");
    expect(tui.format("alternate_on")).toBe("1");
    expect(tui.format("mouse_any_flag")).toBe("1");
    expect(tui.format("cursor_flag")).toBe("0");
    // Keys reach the TUI again.
    tui.type("q");
    expect((await tui.exited()).code).toBe(0);
  }, 60_000);

  test("Ctrl-C while the pager runs goes to the pager; the TUI stays and takes the terminal back", async () => {
    const dir = tempHome("memvoy-pager-");
    const pager = pagerScript(
      dir,
      "trap 'echo PAGER-GOT-INT' INT\necho PAGER-SHOWING\nwhile :; do read line && break; done",
    );
    tui = suite.start({ env: { PAGER: pager } });
    await tui.waitFor("old-notes");
    tui.keys("Enter", "o");
    await tui.waitFor("PAGER-SHOWING");
    const memvoy = tuiAbove(Number(readFileSync(join(dir, "pid"), "utf8")));
    tui.keys("C-c");
    await tui.waitFor("PAGER-GOT-INT");
    expect(alive(memvoy)).toBe(true);
    tui.keys("Enter");
    await tui.waitFor("closed the pager");
    expect(existsSync(readFileSync(join(dir, "file"), "utf8").trim())).toBe(false);
    // Ctrl-C in the TUI itself still quits.
    tui.keys("C-c");
    expect((await tui.exited()).code).toBe(0);
  }, 60_000);

  test("SIGTERM while the pager runs ends the pager, gives the terminal back and removes the temp file", async () => {
    const dir = tempHome("memvoy-pager-");
    // A pager that ignores SIGTERM and leaves the terminal raw, on the alternate screen, cursor hidden.
    const pager = pagerScript(
      dir,
      "trap '' TERM\nstty raw -echo\nprintf '\\033[?1049h\\033[?25l'\necho PAGER-SHOWING\nwhile :; do sleep 0.05; done",
    );
    tui = suite.start({ env: { PAGER: pager } });
    await tui.waitFor("old-notes");
    tui.keys("Enter", "o");
    await tui.waitFor("PAGER-SHOWING");
    const pagerPid = Number(readFileSync(join(dir, "pid"), "utf8"));
    const file = readFileSync(join(dir, "file"), "utf8").trim();
    expect(existsSync(file)).toBe(true);
    process.kill(tuiAbove(pagerPid), "SIGTERM");
    const { code, modes } = await tui.exited();
    expect(code).toBe(143);
    expect(modes).toEqual(expect.arrayContaining(["icanon", "echo"]));
    expect(tui.format("alternate_on")).toBe("0");
    expect(tui.format("mouse_any_flag")).toBe("0");
    expect(tui.format("cursor_flag")).toBe("1");
    await waitFor(() => !alive(pagerPid), 5_000, "the pager to end");
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  test("y copies through OSC 52 (tmux set-clipboard on) and says so on the status row", async () => {
    tui = suite.start({ width: 100 });
    tui.command("set-option", "-g", "set-clipboard", "on");
    await tui.waitFor("old-notes");
    tui.keys("Down", "Down", "Down", "Enter", "Home");
    await tui.waitFor(/old-notes · 2 msgs.*· (top|all)/);
    tui.type("y");
    const s = await tui.waitFor("copied the user message");
    expect(s).toContain("via OSC 52");
    expect(tui.command("show-buffer")).toBe("Draft the quarterly report outline.");
    // A search hit (Ctrl-Y) and an error record (y).
    tui.type("/");
    await tui.waitFor("Search:");
    tui.type("idempotent");
    await tui.waitFor(/\d+ hits? for "idempotent"(?!.*searching)/);
    tui.keys("C-y");
    await tui.waitFor("copied the hit from beta-billing");
    expect(tui.command("show-buffer")).toBe("Stripe webhooks arrive twice; how do we make them idempotent?");
    tui.keys("Escape");
    await tui.waitForGone("Search:");
    tui.keys("C-e");
    await tui.waitFor("Error memory");
    tui.type("y");
    await tui.waitFor(/copied error record [0-9a-f]+/);
    expect(tui.command("show-buffer")).toMatch(/^\w+ · \w+ · error record [0-9a-f]+\n\nError: /);
  }, 120_000);
});

describe("mouse", () => {
  test("a click selects a session, the wheel scrolls the history pane and the lists, clicks pick hits", async () => {
    tui = suite.start({ width: 100, height: 30 });
    await tui.waitFor("old-notes");
    // Row 1 is the border, 2 the filter line, 3 the header: the 3rd session (zh-trip) is on row 6.
    tui.bytes(click(5, 6));
    let s = await tui.waitFor("zh-trip · 2 msgs");
    tui.bytes(click(5, 4));
    s = await tui.waitFor(/alpha-deploy · 40 msgs.*· end/);
    // A click on a message picks it for y (and o).
    tui.command("set-option", "-g", "set-clipboard", "on");
    const at = s.split("\n").findIndex((l) => l.includes("Step 37:"));
    expect(at).toBeGreaterThan(0);
    tui.bytes(click(60, at + 1));
    await tui.waitFor("picked the assistant message");
    tui.type("y");
    await tui.waitFor("copied the assistant message");
    expect(tui.command("show-buffer")).toStartWith("Step 37: deploy pipeline note number 37");
    // The wheel over the history pane scrolls it up, then back to the end.
    tui.bytes(wheel("up", 60, 10));
    s = await tui.waitFor((x) => /alpha-deploy · 40 msgs.*· \d+%/.test(x));
    for (let i = 0; i < 20; i++) tui.bytes(wheel("down", 60, 10));
    await tui.waitFor(/alpha-deploy · 40 msgs.*· end/);
    // The wheel over the session list moves the selection.
    tui.bytes(wheel("down", 5, 10));
    await tui.waitFor("beta-billing · 4 msgs");
    // In search, a click picks a hit (two rows per hit, below the query, option and status rows).
    tui.type("/");
    await tui.waitFor("Search:");
    tui.type("deploy pipeline");
    // The ranked answer (it replaces the newest-first one, keeping a clicked hit selected but not its row).
    s = await tui.waitFor(/\d+\+? hits? for "deploy pipeline"(?!.*(searching|ranking))/);
    const rows = s.split("\n");
    const firstHit = rows.findIndex((l, i) => i > rows.findIndex((r) => r.includes("────")) && l.includes("▶"));
    tui.bytes(click(10, firstHit + 1 + 2)); // the second hit's first row (1-based)
    s = await tui.waitFor((x) => x.split("\n")[firstHit + 2]!.includes("▶"));
    expect(s.split("\n")[firstHit]).not.toContain("▶");
    tui.bytes(wheel("down", 10, firstHit + 3));
    await tui.waitFor((x) => x.split("\n")[firstHit + 4]!.includes("▶"));
  }, 120_000);
});

describe("mouse in the help and the summary viewer", () => {
  test("the wheel scrolls the help and the summary viewer", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 80, height: 16 });
    await tui.waitFor("old-notes");
    tui.type("?");
    let s = await tui.waitFor("↓ more");
    expect(s).toContain("Everywhere");
    for (let i = 0; i < 40; i++) tui.bytes(wheel("down", 20, 8));
    s = await tui.waitFor("end of help");
    expect(s).not.toContain("Everywhere");
    tui.bytes(wheel("up", 20, 8));
    await tui.waitForGone("end of help");
    tui.keys("Escape");
    await tui.waitFor("type to filter");
    const summary = join(h, "sessions", "alpha-deploy", "summary.json");
    const decisions = Array.from({ length: 8 }, (_, i) => `Do: decision number ${i}`);
    writeFileSync(
      summary,
      JSON.stringify({
        key_decisions: decisions,
        past_discussions: [],
        current_discussion: { topic: "", description: "", perspectives: "", direction: "" },
      }),
    );
    tui.keys("C-s");
    s = await tui.waitFor("decision number 0");
    for (let i = 0; i < 5; i++) tui.bytes(wheel("down", 20, 8));
    s = await tui.waitFor((x) => x.includes("Current discussion") && !/decision number 0\b/.test(x));
    tui.bytes(wheel("up", 20, 8));
    await tui.waitFor((x) => !x.includes("Current discussion"));
  }, 60_000);
});

describe("mouse in search", () => {
  test("a hit picked with a click or the wheel stays selected when the scope changes, as one picked with the keys", async () => {
    tui = suite.start({ width: 100, height: 30 });
    await tui.waitFor("old-notes");
    tui.type("/");
    await tui.waitFor("Search:");
    tui.type("deploy pipeline");
    let s = await tui.waitFor(/\d+\+? hits? for "deploy pipeline"(?!.*(searching|ranking))/);
    const rows = s.split("\n");
    const firstHit = rows.findIndex((l, i) => i > rows.findIndex((r) => r.includes("────")) && l.includes("▶"));
    tui.bytes(click(10, firstHit + 1 + 2)); // the second hit
    s = await tui.waitFor((x) => x.split("\n")[firstHit + 2]!.includes("▶"));
    tui.bytes(wheel("down", 10, firstHit + 3)); // the third
    s = await tui.waitFor((x) => x.split("\n")[firstHit + 4]!.includes("▶"));
    const picked = s.split("\n")[firstHit + 4]!.replace(/^│▶ /, "").split(" · ").slice(0, 2).join(" · ");
    tui.keys("C-s"); // this session (alpha-deploy, which holds every hit): the same hits answer again
    s = await tui.waitFor(
      /scope session alpha-deploy[\s\S]*\d+\+? hits? for "deploy pipeline"(?!.*(searching|ranking))/,
    );
    expect(s.split("\n").find((l) => l.includes("▶"))).toContain(picked);
  }, 60_000);
});

describe("mouse reports read together with keys", () => {
  test("keys typed while the pointer moves are all read; a y read with the key that asked is still no answer", async () => {
    const h = await makeHome();
    tui = startTui(h, { width: 100, height: 30 });
    await tui.waitFor("old-notes");
    tui.type("/");
    await tui.waitFor("Search:");
    // One write: the terminal reports the pointer between the keys.
    tui.bytes(`dep${motion(10, 10)}loy${motion(11, 10)}${motion(12, 10)} pipe${motion(13, 11)}line`);
    await tui.waitFor("Search: deploy pipeline▏");
    tui.keys("Escape");
    await tui.waitForGone("Search:");
    tui.keys("Down");
    await tui.waitFor("beta-billing · 4 msgs");
    tui.keys("Enter");
    await tui.waitFor(/↑↓ PgUp PgDn scroll/);
    tui.bytes(`x${motion(40, 12)}y`);
    await tui.waitFor("Remove session beta-billing");
    tui.type("n");
    const s = await tui.waitFor("cancelled; nothing was changed");
    expect(s).toContain("beta-billing · 4 msgs");
  }, 60_000);
});

describe("80 columns", () => {
  test("help lines and the search option line wrap instead of being cut", async () => {
    tui = suite.start({ width: 80, height: 40 });
    await tui.waitFor("old-notes");
    tui.type("?");
    let s = await tui.waitFor("Help: every key");
    const pane = s.split("\n").slice(0, -3).join("\n"); // the status rows below are not help
    expect(pane).not.toContain("…");
    expect(pane).toMatch(/Esc leaves the\s*│\n│\s+field first \(Ctrl-C always quits\)/);
    tui.keys("Escape");
    await tui.waitForGone("Help: every key");
    tui.type("/");
    s = await tui.waitFor("Search:");
    const options = s.split("\n").slice(0, 5).join("\n");
    expect(options).not.toContain("…");
    expect(options).toContain("Ctrl-Y copy");
  }, 60_000);

  test("the key hints on the bottom rows wrap instead of being cut", async () => {
    tui = suite.start({ width: 80, height: 24 });
    await tui.waitFor("old-notes");
    const bottom = (screen: string, rows: number) => screen.trimEnd().split("\n").slice(-rows).join("\n");
    let s = await tui.waitFor("q quit");
    expect(bottom(s, 2)).toContain("? help");
    expect(bottom(s, 2)).not.toContain("…");
    tui.keys("Enter");
    s = await tui.waitFor(/Esc list[\s\S]*q quit/);
    expect(bottom(s, 2)).not.toContain("…");
    tui.type("/");
    s = await tui.waitFor("Esc close");
    expect(bottom(s, 2)).toContain("Ctrl-O pager · Ctrl-Y copy");
    expect(bottom(s, 2)).not.toContain("…");
    tui.resize(120, 40);
    s = await tui.waitFor((x) => x.split("\n")[0]!.length > 100 && x.includes("Esc close"));
    expect(bottom(s, 2)).not.toContain("…");
  }, 60_000);
});
