// Terminal handling under tmux: 80x24 and resizes, CJK and emoji alignment, colours by TERM, NO_COLOR.
import { describe, expect, test } from "bun:test";
import { isWide } from "../../src/tui/text/char-width.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { openMemory } from "../../src/app/open-memory.ts";
import { makeHome, startTui, T, tuiSuite } from "../fixture/tui-home.ts";

const suite = tuiSuite();
let tui: TmuxSession | undefined;

/** Terminal cells of a captured row (it holds no combining marks or joiners). */
const cells = (row: string) => [...row].reduce((n, ch) => n + (isWide(ch.codePointAt(0)!) ? 2 : 1), 0);

/** Every framed row ends with its border at the last column: nothing was shifted by a wide character. */
function aligned(screen: string, width: number): boolean {
  const rows = screen.split("\n").filter((r) => r.startsWith("│") || r.startsWith("┌") || r.startsWith("└"));
  return rows.length > 5 && rows.every((r) => cells(r) === width && "│┐┘".includes(r.at(-1)!));
}

function expectAligned(screen: string, width: number): void {
  if (!aligned(screen, width)) throw new Error(`the borders are not aligned at ${width} columns:\n${screen}`);
}

// SGR parameters that set a colour (foreground or background, 8/16/256/truecolour).
const COLOUR_SGR =
  /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;5;\d+|48;5;\d+|38;2;[\d;]+|48;2;[\d;]+)(?:;[0-9;]*)?m/;

describe("terminal", () => {
  test(
    "80x24: every pane fits; a resize re-lays out; a tiny terminal does not crash",
    async () => {
      tui = suite.start();
      let s = await tui.waitFor("Step 39");
      expect(s.split("\n").filter((l) => l.length > 0)).toHaveLength(24);
      expectAligned(s, 80);
      tui.resize(120, 40);
      s = await tui.waitFor((x) => aligned(x, 120));
      expect(s).toContain("alpha-deploy · 40 msgs, 12 in history.json · end");
      tui.resize(50, 12);
      s = await tui.waitFor((x) => aligned(x, 50));
      tui.resize(80, 24);
      s = await tui.waitFor((x) => aligned(x, 80) && x.includes("Step 39"));
      tui.keys("q");
      expect((await tui.exited()).code).toBe(0);
    },
    T,
  );

  test(
    "CJK text takes two cells and keeps every border in place",
    async () => {
      tui = suite.start();
      await tui.waitFor("alpha-deploy");
      tui.type("zh");
      let s = await tui.waitFor("我們下個月去京都");
      expectAligned(s, 80);
      expect(s).toContain("第一天：清水寺、二年坂、祇園。");
      // wrapped at a narrower width, still aligned
      tui.resize(61, 24);
      s = await tui.waitFor((x) => aligned(x, 61) && x.includes("我們"));
      tui.keys("Escape");
      await tui.waitFor("type to filter");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.type("京都");
      s = await tui.waitFor("zh-trip · ");
      expectAligned(s, 61);
    },
    T,
  );

  test(
    "emoji take two cells, joined emoji are drawn as their parts, and no border moves, also while scrolling",
    async () => {
      const h = await makeHome();
      const api = openMemory({ home: h, env: {} });
      api.add("emoji", [
        ...Array.from({ length: 20 }, (_, i) => ({
          role: "user" as const,
          content: `line ${i} 🌈🌈🌈 some words to fill the row up to the border and beyond a little ${i}`,
        })),
        { role: "user", content: `B 🏳️‍🌈 rainbow|xxxxxxxxxx|end F 👨‍👩‍👧 family T 👍🏽 tone ${"✅".repeat(40)}` },
      ]);
      api.close();
      tui = startTui(h, { width: 100, height: 30 });
      await tui.waitFor("alpha-deploy");
      tui.type("emoji");
      tui.keys("Enter");
      let s = await tui.waitFor("rainbow|xxxxxxxxxx|end");
      expectAligned(s, 100);
      expect(s).toContain("B 🏳🌈 rainbow|xxxxxxxxxx|end F 👨👩👧 family T");
      expect(s).toContain("👍 tone ✅✅");
      // Rows redrawn over other text as the pane scrolls keep no stale characters of what was there.
      const clean = (x: string) =>
        x
          .split("\n")
          .filter((r) => / line \d+ |border and beyond/.test(r))
          .every((r) => /(line \d+ 🌈🌈🌈 some words|border and beyond a little \d+ +│$)/.test(r));
      for (const key of ["PageUp", "k", "k", "k", "PageUp", "j", "PageDown", "G"]) {
        tui.keys(key);
        s = await tui.waitFor((x) => x !== s);
        expectAligned(s, 100);
        if (!clean(s)) throw new Error(`stale characters after ${key}:\n${s}`);
      }
    },
    T,
  );

  test(
    "combining marks and zero-width spaces cut no text off a row (blessed counts each as a cell when it cuts)",
    async () => {
      const h = await makeHome();
      const api = openMemory({ home: h, env: {} });
      // Decomposed accents (as macOS file names and some editors store them), a strikethrough and zero-width spaces.
      const nfd = "Tie\u0302\u0301ng Vie\u0323\u0302t co\u0301 da\u0302\u0301u re\u0301sume\u0301 cafe\u0301 ".repeat(
        4,
      );
      api.add("marks", [
        { role: "user", content: `${nfd}ENDNFD` },
        { role: "user", content: `s\u0336t\u0336r\u0336u\u0336c\u0336k\u0336 `.repeat(8) + "ENDSTRUCK" },
        { role: "user", content: `${"\u200b".repeat(40)} words after zero-width spaces ENDZW` },
      ]);
      api.close();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.type("marks");
      tui.keys("Enter");
      const s = await tui.waitFor("ENDZW");
      expect(s).toContain("ENDNFD");
      expect(s).toContain("ENDSTRUCK");
      expect(s).toContain("words after zero-width spaces");
      // Every word of the decomposed text is on screen.
      const shown = s.normalize("NFC");
      expect(shown.split("Tiếng Việt có dấu").length - 1).toBe(4);
      expect(shown.split("résumé café").length - 1).toBe(4);
    },
    T,
  );

  test(
    "256 colours on xterm-256color; basic colours only on xterm",
    async () => {
      tui = suite.start({ env: { TERM: "xterm-256color" } });
      await tui.waitFor("Step 39");
      expect(tui.capture(true)).toMatch(/\x1b\[[0-9;]*38;5;\d+/);
      tui.kill();
      tui = suite.start({ env: { TERM: "xterm" } });
      await tui.waitFor("Step 39");
      const basic = tui.capture(true);
      expect(basic).toMatch(COLOUR_SGR);
      expect(basic).not.toMatch(/38;5;|48;5;|38;2;|48;2;/);
    },
    T,
  );

  test(
    "NO_COLOR: no colour at all, yet the selection and matches stay visible",
    async () => {
      tui = suite.start({ env: { NO_COLOR: "1" } });
      await tui.waitFor("Step 39");
      let s = tui.capture(true);
      expect(s).not.toMatch(COLOUR_SGR);
      expect(s).toMatch(/\x1b\[[0-9;]*7m/); // reverse video marks the selected session
      tui.keys("/");
      tui.type("rollback");
      await tui.waitFor("The rollback plan");
      s = tui.capture(true);
      expect(s).not.toMatch(COLOUR_SGR);
      expect(s).toMatch(/\x1b\[[0-9;]*4m\s*rollback/); // matches are underlined
    },
    T,
  );

  test(
    "TERM=dumb is refused (it cannot move the cursor): one line naming a setting that works, exit 2",
    async () => {
      tui = suite.start({ env: { TERM: "dumb" } });
      const end = await tui.exited();
      expect(end.code).toBe(2);
      expect(tui.capture()).toContain("TERM=xterm-256color");
      expect(end.modes).toEqual(["icanon", "echo"]);
    },
    T,
  );
});
