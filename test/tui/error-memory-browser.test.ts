// The error-memory browser under tmux: list, detail, search, delete with confirmation.
import { describe, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { cli, tempHome } from "../fixture/home.ts";
import { stringWidth } from "../../src/tui/text/char-width.ts";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { makeHome, startTui, T, tuiSuite } from "../fixture/tui-home.ts";

const suite = tuiSuite();
let tui: TmuxSession | undefined;

describe("error memory browser", () => {
  test(
    "Ctrl-E lists the records; Enter shows the detail; Esc goes back",
    async () => {
      tui = suite.start();
      await tui.waitFor("alpha-deploy");
      tui.keys("C-e");
      let s = await tui.waitFor("Error memory · 3 records");
      expect(s).toContain("3 records, most recent first");
      expect(s).toMatch(/sql\s+failed\s+0\s+duplicate key value/);
      expect(s).toMatch(/bash\s+resolved\s+0\s+jq: command not found/);
      // The selected (newest) record's detail is under the table.
      expect(s).toContain("Upsert with ON CONFLICT (id) DO NOTHING");
      tui.keys("Down", "Down");
      s = await tui.waitFor("jq is not installed in the CI image");
      const tableRows = (x: string) => /^│[0-9a-f]{8} /m.test(x);
      tui.keys("Enter"); // the detail takes the whole pane
      s = await tui.waitFor((x) => !tableRows(x) && x.includes("apt-get install -y jq"));
      expect(s).toContain("keywords: ci, jq");
      // At 80 columns the dates line wraps between its parts: its end (when the record expires) is not cut off.
      expect(s).toMatch(/expires in \d+ days/);
      expect(s).not.toContain("expire…");
      tui.keys("Escape"); // detail off: the table is back
      await tui.waitFor((x) => tableRows(x) && /bash\s+resolved/.test(x));
      tui.keys("Escape"); // back to the main view
      await tui.waitFor("type to filter");
    },
    T,
  );

  test(
    "/ searches the records as you type",
    async () => {
      tui = suite.start();
      await tui.waitFor("alpha-deploy");
      tui.keys("C-e");
      await tui.waitFor("Error memory");
      tui.keys("/");
      await tui.waitFor("Enter or Esc ends typing");
      tui.type("timed out connecting");
      const s = await tui.waitFor(/1 record matches "timed out connecting"/);
      expect(s).toContain("http_get");
      expect(s).toContain("api.corp.example");
      tui.keys("Enter"); // stop typing; q now quits
      await tui.waitForGone("Enter or Esc ends typing");
      tui.keys("q");
      expect((await tui.exited()).code).toBe(0);
      // Browsing is no hit: no record's TTL restarted, no hit counted.
      const api = openMemory({ home: suite.home, env: {} });
      try {
        const { records } = await api.listErrors();
        expect(records.map((r) => r.hits)).toEqual([0, 0, 0]);
      } finally {
        api.close();
      }
    },
    T,
  );

  test(
    "a search while another process holds the archive's write lock answers at once: browsing writes nothing",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.keys("C-e");
      await tui.waitFor("Error memory · 3 records");
      tui.keys("/");
      await tui.waitFor("Enter or Esc ends typing");
      // An import's or a deletion's write transaction: a search that is no hit does not wait for it.
      const holder = await holdWriterLock(h);
      try {
        tui.type("jq");
        const s = await tui.waitFor('1 record matches "jq"');
        expect(s).toMatch(/bash\s+\S+\s+0\s+jq: command not found/);
      } finally {
        await holder.release();
      }
    },
    T,
  );

  test(
    "search results follow another process's writes: a record it removes leaves them, one it records joins them",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.keys("C-e");
      await tui.waitFor("Error memory · 3 records");
      tui.keys("/");
      await tui.waitFor("Enter or Esc ends typing");
      tui.type("jq");
      let s = await tui.waitFor(`1 record matches "jq"`);
      const id = /│([0-9a-f]{8}) bash /.exec(s)![1]!;
      tui.keys("Enter");
      await tui.waitForGone("Enter or Esc ends typing");
      expect((await cli(["errors", "rm", id], { home: h })).code).toBe(0);
      s = await tui.waitFor(/no records match "jq"/, 20_000);
      expect(s).toContain("Error memory · 2 records");
      expect(s).not.toContain(id);
      const add = ["errors", "record", "--tool", "bash", "--error", "jq: not found again", "--fix", "use the jq image"];
      expect((await cli(add, { home: h })).code).toBe(0);
      s = await tui.waitFor("jq: not found again", 20_000);
      expect(s).toContain("Error memory · 3 records");
    },
    T,
  );

  test(
    "a tool name too wide for its column is cut to it by cells: a CJK name no longer pushes the row's other columns",
    async () => {
      const h = await makeHome();
      const api = openMemory({ home: h, env: {} });
      try {
        await api.recordError({
          tool: "東京都の非常に長いツール名前です",
          error: "接続失敗 connection refused",
          fix: "再起動",
        });
      } finally {
        api.close();
      }
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.keys("C-e");
      const s = await tui.waitFor("Error memory · 4 records");
      const rows = s.split("\n");
      const cjk = rows.find((l) => l.includes("接続失敗"))!;
      const bash = rows.find((l) => l.includes("jq: command not found"))!;
      // The same cell for the outcome column (a CJK character takes two cells, one UTF-16 unit).
      const cell = (row: string, text: string) => stringWidth(row.slice(0, row.indexOf(text)));
      expect(cell(cjk, "resolved")).toBe(cell(bash, "resolved"));
      expect(cjk).toContain("…");
    },
    T,
  );

  test(
    "d asks first: n keeps the record, y deletes it",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.keys("C-e");
      await tui.waitFor(/sql\s+failed/);
      tui.keys("d");
      let s = await tui.waitFor("Delete error record");
      expect(s).toContain("duplicate key value");
      tui.keys("n");
      s = await tui.waitFor("cancelled; nothing was changed");
      expect(s).toContain("3 records");
      tui.keys("d");
      await tui.waitFor("Delete error record");
      tui.keys("y");
      s = await tui.waitFor("deleted error record");
      expect(s).toContain("Error memory · 2 records");
      expect(s).not.toMatch(/sql\s+failed/);
      tui.keys("q");
      await tui.exited();
      const api = openMemory({ home: h, env: {} });
      try {
        expect(api.listErrors().total).toBe(2);
      } finally {
        api.close();
      }
    },
    T,
  );

  test(
    "a deletion while another process writes to the home waits for it without holding the keys, then deletes",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.keys("C-e");
      await tui.waitFor(/sql\s+failed/);
      // An import's write transaction: the deletion used to hold every key for SQLite's 15 s, then fail "database is locked".
      const holder = await holdWriterLock(h);
      try {
        tui.keys("d");
        await tui.waitFor("Delete error record");
        tui.keys("y");
        await tui.waitFor(/deleting error record [0-9a-f]{8}: waiting for another memvoy process/);
        tui.keys("?");
        await tui.waitFor("Help: every key", 3_000);
        tui.keys("Escape");
        await tui.waitForGone("Help: every key", 3_000);
      } finally {
        await holder.release();
      }
      const s = await tui.waitFor("deleted error record");
      expect(s).toContain("Error memory · 2 records");
      expect(s).not.toContain("database is locked");
    },
    T,
  );

  test(
    "the delete question shows a record's error as its detail does: colour codes and other escapes are not passed on",
    async () => {
      const home = tempHome("memvoy-tui-");
      const api = openMemory({ home, env: {} });
      await api.recordError({
        tool: "npm",
        error: "\x1b]0;PWNED\x07\x1b[31mbuild failed\x1b[0m in module 🚀".padEnd(120, "x"),
        fix: "rebuild",
      });
      api.close();
      tui = startTui(home, { width: 100 });
      await tui.waitFor("0 sessions · 0 msgs · 1 error");
      tui.keys("C-e");
      await tui.waitFor("Error memory · 1 record");
      tui.keys("d");
      const s = await tui.waitFor("Delete error record");
      expect(s).toContain("│npm: build failed in module 🚀");
      expect(s).toMatch(/│x+… +│/); // cut at 80 cells, the dialog wrapping it
      const row = tui
        .capture(true)
        .split("\n")
        .find((l) => l.includes("npm: "))!;
      expect(row).not.toContain("PWNED");
      expect(row).not.toContain("\x1b[31m");
    },
    T,
  );
});
