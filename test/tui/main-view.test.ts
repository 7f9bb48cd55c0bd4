// The main view under tmux: session list, filter, sort, history pane, scrolling, the archive marker, quit.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TmuxSession } from "../fixture/tmux.ts";
import { openMemory } from "../../src/app/open-memory.ts";
import { cli, tempHome } from "../fixture/home.ts";
import { startTui, T, tuiSuite } from "../fixture/tui-home.ts";

const suite = tuiSuite();
let tui: TmuxSession | undefined;

/** The row of the session list that shows `id`. */
const row = (screen: string, id: string) =>
  screen.split("\n").find((l) => l.startsWith(`│${id}`) || l.includes(`│${id} `)) ?? "";

describe("main view", () => {
  test(
    "lists sessions with message count, last activity and summary; newest first",
    async () => {
      tui = suite.start();
      const s = await tui.waitFor("old-notes");
      const ids = ["alpha-deploy", "beta-billing", "zh-trip", "old-notes"];
      const order = ids.map((id) => s.indexOf(`│${id}`));
      expect(order.every((o, i) => o > 0 && (i === 0 || o > order[i - 1]!))).toBe(true);
      expect(row(s, "alpha-deploy")).toMatch(/alpha-deploy\s+40\s+(now|\dm) no/);
      expect(row(s, "beta-billing")).toMatch(/beta-billing\s+4\s+[23]d no/); // its newest message is 3 days old
      expect(s).toContain("SESSION");
      expect(s).toContain("SUM");
      expect(s).toContain("4 sessions · 48 msgs · 3 errors");
      expect(s).toContain("daemon stopped");
      expect(s).toContain("embedder builtin");
    },
    T,
  );

  test(
    "a filter that matches nothing says so whole, wrapped in the narrow list",
    async () => {
      tui = suite.start();
      await tui.waitFor("old-notes");
      tui.type("no-such-session-anywhere");
      const s = await tui.waitFor("Sessions 0/4");
      const list = s
        .split("\n")
        .slice(3, 6)
        .map((l) => l.slice(1, l.indexOf("│", 1)).trim())
        .join(" ");
      expect(list).toContain('no session id contains "no-such-session-anywhere"');
    },
    T,
  );

  test(
    "Esc then Down typed together (one read) leaves the history pane and selects the next session",
    async () => {
      tui = suite.start();
      await tui.waitFor("old-notes");
      tui.keys("Enter");
      await tui.waitFor("Esc list");
      tui.keys("Escape", "Down"); // one write: the Esc was dropped and Down scrolled the pane
      const s = await tui.waitFor("─ beta-billing · ");
      expect(s).toContain("type to filter");
      expect(s).not.toContain("Esc list");
    },
    T,
  );

  test(
    "typing filters the list; Backspace and Esc undo it; Ctrl-O sorts by name",
    async () => {
      tui = suite.start();
      await tui.waitFor("old-notes");
      tui.type("bil");
      let s = await tui.waitFor("filter: bil");
      expect(s).toContain("│beta-billing");
      expect(s).not.toContain("│alpha-deploy");
      expect(s).toContain("Sessions 1/4");
      tui.keys("BSpace", "BSpace", "BSpace");
      s = await tui.waitFor("type to filter");
      expect(s).toContain("│alpha-deploy");
      tui.type("zh");
      await tui.waitFor("filter: zh");
      tui.keys("Escape");
      await tui.waitFor("type to filter");
      tui.keys("C-o");
      s = await tui.waitFor("· name");
      const order = ["alpha-deploy", "beta-billing", "old-notes", "zh-trip"].map((id) => s.indexOf(`│${id}`));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    },
    T,
  );

  test(
    "the history pane shows time, role, sender and wrapped text, the newest at the bottom",
    async () => {
      tui = suite.start();
      const s = await tui.waitFor("Step 39");
      expect(s).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d · assistant · bot/);
      expect(s).toMatch(/· user · ann/);
      // "Step 39: ... afterwards." is longer than the pane: it wraps, and its end is on screen.
      expect(s).toContain("afterwards.");
      expect(s).toMatch(/alpha-deploy · 40 msgs[^\n]* · end/);
    },
    T,
  );

  test(
    "scrolling: lines, pages, top and bottom; the archive marker sits between the tiers",
    async () => {
      tui = suite.start();
      await tui.waitFor("Step 39");
      tui.keys("Enter"); // into the history pane
      await tui.waitFor(/┌─ Sessions[^\n]*┐┌─▸? ?alpha-deploy/);
      tui.keys("g");
      let s = await tui.waitFor("· top");
      expect(s).toContain("Step 0:");
      tui.keys("j");
      s = await tui.waitFor(/· \d+%/);
      tui.keys("PageDown");
      s = await tui.waitFor((x) => !x.includes("Step 0:") && !x.includes("Step 1:"));
      tui.keys("G");
      s = await tui.waitFor("· end");
      expect(s).toContain("Step 39");
      // Walk up a page at a time until the marker shows.
      for (let i = 0; i < 40 && !tui.capture().includes("archive above · history.json below"); i++) {
        const before = tui.capture();
        tui.keys("PageUp");
        await tui.waitFor((x) => x !== before);
      }
      s = tui.capture();
      expect(s).toContain("archive above · history.json below");
      tui.keys("b");
      tui.keys("space");
      await tui.waitFor("archive above · history.json below");
    },
    T,
  );

  test(
    "q quits, leaves the alternate screen and restores the cursor; exit code 0",
    async () => {
      tui = suite.start();
      await tui.waitFor("alpha-deploy");
      expect(tui.format("alternate_on")).toBe("1");
      tui.keys("q");
      const end = await tui.exited();
      expect(end.code).toBe(0);
      expect(end.modes).toEqual(["icanon", "echo"]); // cooked mode again
      expect(tui.format("alternate_on")).toBe("0");
      expect(tui.format("cursor_flag")).toBe("1");
    },
    T,
  );

  test(
    "q while filtering types q; with an empty filter it quits",
    async () => {
      tui = suite.start();
      await tui.waitFor("alpha-deploy");
      tui.type("aq");
      await tui.waitFor("filter: aq");
      tui.keys("Escape");
      await tui.waitFor("type to filter");
      tui.keys("q");
      expect((await tui.exited()).code).toBe(0);
    },
    T,
  );

  test(
    "invisible format characters never reach the terminal: bidi overrides and isolates dropped, Unicode line separators break the line",
    async () => {
      const home = tempHome("memvoy-tui-");
      const api = openMemory({ home, env: {} });
      // A right-to-left override makes text read other than it is stored; terminals draw the separators and
      // isolates as nothing where the layout counted a cell, leaving stale characters in the row.
      api.add("formats", {
        role: "user",
        content: "first line\u2028second line\u2029third \u2066isolated\u2069 \u202eoverride\u202c end\ufeff",
      });
      api.close();
      tui = startTui(home);
      await tui.waitFor("formats");
      tui.keys("Enter");
      const s = await tui.waitFor("override");
      expect(s).toMatch(/│ +first line +│/);
      expect(s).toMatch(/│ +second line +│/);
      expect(s).toMatch(/│ +third isolated override end +│/);
      expect(s).not.toMatch(/[\u061c\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]/);
      tui.type("/isolated");
      const hits = await tui.waitFor(/1 hit\b/);
      expect(hits).toMatch(/▌ first line second line third +isolated +override +end/);
      expect(hits).not.toMatch(/[\u061c\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]/);
    },
    T,
  );

  test(
    "an imported session's project shows as it is in the history pane's label: braces are text, not styles",
    async () => {
      const home = tempHome("memvoy-tui-");
      const jsonl = [
        { type: "session", id: "tpl", source: "claude-code", project: "/home/ann/{bold}tpl{/bold}\u001b[2J" },
        { type: "message", id: "m1", session: "tpl", role: "user", content: "hello", sendAt: "2026-12-01T00:00:00Z" },
      ];
      const file = join(home, "in.jsonl");
      writeFileSync(file, jsonl.map((l) => JSON.stringify(l)).join("\n") + "\n");
      expect((await cli(["import", "jsonl", file], { home })).code).toBe(0);
      tui = startTui(home, { width: 120 });
      const s = await tui.waitFor("hello");
      expect(s).toContain("tpl · claude-code · /home/ann/{bold}tpl{/bold} · 1 msg");
      expect(tui.capture(true)).not.toContain("\x1b[1mtpl");
    },
    T,
  );
  test(
    "an imported session's title shows in the list beside its long id (cc- and a UUID), at 80 columns and wider",
    async () => {
      const home = tempHome("memvoy-tui-");
      const id = "cc-4f3a9c2e-1b7d-4e8a-9c61-2d5e8f0a7b13";
      const jsonl = [
        { type: "session", id, source: "claude-code", title: "Fix the login redirect loop", project: "/w/shop" },
        { type: "message", id: "m1", session: id, role: "user", content: "hello", sendAt: "2026-12-01T00:00:00Z" },
      ];
      const file = join(home, "in.jsonl");
      writeFileSync(file, jsonl.map((l) => JSON.stringify(l)).join("\n") + "\n");
      expect((await cli(["import", "jsonl", file], { home })).code).toBe(0);
      tui = startTui(home, { width: 120 });
      let s = await tui.waitFor("hello");
      expect(row(s, "cc-4f3a9c")).toMatch(/│cc-4f3a9c… · Fix the login redi…\s+1\s+\S+ no/);
      expect(s).toContain(`─ ${id} · `); // the pane's label names the whole id
      tui.resize(80, 24);
      s = await tui.waitFor("│cc-4f3a… · Fix");
      expect(s.split("\n")[0]!.length).toBe(80);
    },
    T,
  );
});
