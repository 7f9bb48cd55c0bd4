// Search under tmux: results as you type, highlighted snippets, mode / scope / range keys, Enter opens the hit.
import { describe, expect, test } from "bun:test";
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TmuxSession } from "../fixture/tmux.ts";
import { makeHome, startTui, T, tuiSuite } from "../fixture/tui-home.ts";
import { cli } from "../fixture/home.ts";

const suite = tuiSuite();
let tui: TmuxSession | undefined;

async function openSearch(): Promise<TmuxSession> {
  const t = suite.start();
  await t.waitFor("alpha-deploy");
  t.keys("/");
  await t.waitFor("Search:");
  return t;
}

describe("search", () => {
  test(
    "results appear as you type, across sessions, with highlighted snippets",
    async () => {
      tui = await openSearch();
      tui.type("idempotent");
      // hybrid (the default): the exact match ranks first, vector neighbours follow
      let s = await tui.waitFor(/▶ beta-billing · [^\n]*· user/);
      expect(s).toMatch(/▌ Stripe webhooks arrive twice/);
      tui.keys("Tab"); // keyword: the one message holding the word
      s = await tui.waitFor(/mode keyword[\s\S]*1 hit\b/);
      expect(s).toContain("Stripe webhooks arrive twice");
      // The matched word is drawn in its own style (an SGR sequence right before it).
      expect(tui.capture(true)).toMatch(/\x1b\[[0-9;]*m(idempotent)\x1b\[/);
      tui.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
      s = await tui.waitFor("type to search every message");
      tui.type("京都");
      s = await tui.waitFor("zh-trip · ");
      expect(s).toContain("我們下個月去京都");
    },
    T,
  );

  test(
    "at 80 columns a match past the row's end still shows: the snippet's start is cut instead",
    async () => {
      tui = await openSearch();
      tui.keys("Tab"); // keyword
      await tui.waitFor("mode keyword");
      // "seventeen" ends its 131-character message: the row used to show the first 75 cells and no match.
      tui.type("seventeen");
      const s = await tui.waitFor(/mode keyword[\s\S]*1 hit\b/);
      expect(s).toMatch(/▌ …[^\n]*Checklist item seventeen/);
      expect(tui.capture(true)).toMatch(/\x1b\[[0-9;]*m(seventeen)\x1b\[/);
    },
    T,
  );

  test(
    "Tab cycles the match mode, Ctrl-S the scope, Ctrl-T the time range",
    async () => {
      tui = await openSearch();
      let s = tui.capture();
      expect(s).toMatch(/mode hybrid/);
      expect(s).toContain("scope all sessions");
      expect(s).toContain("range all");
      tui.keys("Tab");
      await tui.waitFor("mode keyword");
      tui.keys("Tab");
      await tui.waitFor("mode semantic");
      tui.keys("Tab");
      await tui.waitFor("mode hybrid");

      tui.keys("Tab");
      await tui.waitFor("mode keyword");
      tui.type("quarterly");
      await tui.waitFor("old-notes · ");
      tui.keys("C-t"); // 1d
      await tui.waitFor("range 1d");
      s = await tui.waitFor("no matches");
      tui.keys("C-t", "C-t", "C-t"); // 7d, 30d, 1y
      await tui.waitFor("range 1y");
      s = await tui.waitFor("old-notes · ");
      tui.keys("C-t");
      await tui.waitFor("range all");

      // "this session" is the session selected when the search opened (alpha-deploy).
      tui.keys("C-s");
      await tui.waitFor("scope session alpha-deploy");
      s = await tui.waitFor("no matches");
      tui.keys("C-s");
      await tui.waitFor("scope all sessions");
      await tui.waitFor("old-notes · ");
    },
    T,
  );

  test(
    "Enter opens the hit in its session, centred among its neighbours",
    async () => {
      tui = await openSearch();
      tui.keys("Tab"); // keyword
      await tui.waitFor("mode keyword");
      tui.type("rollback plan");
      await tui.waitFor(/alpha-deploy · [^\n]*· assistant/);
      tui.keys("Enter");
      const s = await tui.waitFor((x) => !x.includes("Search:") && x.includes("The rollback plan"));
      const rows = s.split("\n");
      const at = rows.findIndex((r) => r.includes("The rollback plan"));
      // 24 rows: the pane's body is rows 1-20; the hit sits in its middle, with messages on both sides.
      expect(at).toBeGreaterThanOrEqual(7);
      expect(at).toBeLessThanOrEqual(14);
      expect(s).toContain("Step 16:");
      expect(s).toContain("Step 18:");
      expect(rows[at]).toContain("▌");
      expect(s).toMatch(/alpha-deploy · 40 msgs[^\n]*\d+%/);
    },
    T,
  );

  test(
    "Enter on a hit of a search opened over the summary viewer shows the hit, not that viewer",
    async () => {
      tui = suite.start();
      await tui.waitFor("alpha-deploy");
      tui.keys("C-s");
      await tui.waitFor("Summary · alpha-deploy");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.keys("Tab"); // keyword
      await tui.waitFor("mode keyword");
      tui.type("invoice migration");
      await tui.waitFor(/beta-billing · [^\n]*· user/);
      tui.keys("Enter");
      const s = await tui.waitFor((x) => !x.includes("Search:") && x.includes("beta-billing · 4 msgs"));
      expect(s).toContain("And the invoice migration?");
      expect(s).not.toContain("Summary · ");
    },
    T,
  );

  test(
    "Enter centres the hit after the terminal was resized while the search was open",
    async () => {
      tui = suite.start({ width: 200, height: 150 });
      await tui.waitFor("alpha-deploy");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.resize(80, 24);
      await tui.waitFor((x) => x.split("\n")[0]!.length <= 80 && x.includes("Search:"));
      tui.keys("Tab");
      await tui.waitFor("mode keyword");
      tui.type("rollback plan");
      await tui.waitFor(/alpha-deploy · [^\n]*· assistant/);
      tui.keys("Enter");
      const s = await tui.waitFor((x) => !x.includes("Search:") && x.includes("alpha-deploy · 40 msgs"));
      const at = s.split("\n").findIndex((r) => r.includes("The rollback plan"));
      expect(at).toBeGreaterThanOrEqual(7);
      expect(at).toBeLessThanOrEqual(14);
    },
    T,
  );

  test(
    "Esc closes the search and keeps the query for next time",
    async () => {
      tui = await openSearch();
      tui.type("invoice");
      await tui.waitFor("beta-billing · ");
      tui.keys("Escape");
      await tui.waitForGone("Search:");
      tui.keys("/");
      const s = await tui.waitFor("Search: invoice");
      expect(s).toContain("beta-billing · ");
    },
    T,
  );

  test(
    "while typing, keyword matches come newest first; the ranked answer replaces them when typing rests",
    async () => {
      tui = await openSearch();
      tui.type("deploy");
      // The quick answer shows only until the ranked one replaces it: poll without backing off, or a slow poll misses it.
      const quick = await tui.waitFor(/hits? for "deploy" {2}newest first · ranking…/, 5_000, 5);
      expect(quick).toContain("mode hybrid");
      const ranked = await tui.waitFor(/hits? for "deploy"(?! {2}newest first)/);
      expect(ranked).not.toContain("ranking…");
    },
    T,
  );

  test(
    "a mode that cannot answer falls back to keyword matches and says why",
    async () => {
      const h = await makeHome();
      // The vector store cannot be opened: a file stands where its folder should be.
      rmSync(join(h, ".store", "lance"), { recursive: true, force: true });
      writeFileSync(join(h, ".store", "lance"), "not a folder");
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.type("idempotent");
      // First keyword matches newest first, then the ranked hybrid answer: keyword hits and a note.
      let s = await tui.waitFor(/hits? for "idempotent" {2}semantic side unavailable/);
      expect(s).toContain("Stripe webhooks arrive twice");
      tui.keys("Tab", "Tab"); // keyword, then semantic
      s = await tui.waitFor("semantic unavailable → keyword");
      s = await tui.waitFor("semantic unavailable: cannot open the vector store");
      expect(s).toContain("Stripe webhooks arrive twice");
      tui.keys("Tab"); // hybrid again
      await tui.waitFor("mode hybrid ");
    },
    T,
  );

  test(
    "a semantic search without vectors of the configured embedder gives keyword matches and the whole reason, wrapped",
    async () => {
      const h = await makeHome();
      appendFileSync(
        join(h, "config.toml"),
        '[embedder]\nprovider = "ollama"\nbase_url = "http://127.0.0.1:9/v1"\ntimeout_ms = 2000\nmax_retries = 0\n',
      );
      tui = startTui(h, { width: 80, height: 24 });
      await tui.waitFor("alpha-deploy");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.keys("Tab", "Tab");
      await tui.waitFor("mode semantic");
      tui.type("rollback");
      const s = await tui.waitFor(/hits? for "rollback"[\s\S]*reindex/);
      expect(s).toContain("semantic unavailable → keyword");
      expect(s).toContain("The rollback plan");
      const rows = s.split("\n");
      const above = rows.slice(
        0,
        rows.findIndex((r) => r.startsWith("│────")),
      );
      expect(above.join("\n")).not.toContain("…");
      const text = above.map((r) => r.replace(/^│|│$/g, "").trim()).join(" ");
      expect(text).toContain(
        "semantic unavailable: the configured embedder is ollama:nomic-embed-text:768 (stored vectors come from builtin:v1:384): run memvoy reindex",
      );
    },
    T,
  );
  test(
    "an empty answer says why: the time range, or the scope when other sessions hold the words",
    async () => {
      tui = await openSearch();
      tui.keys("Tab"); // keyword
      await tui.waitFor("mode keyword");
      tui.type("quarterly");
      await tui.waitFor("old-notes · ");
      tui.keys("C-t"); // 1d: the one message saying it is 200 days old
      let s = await tui.waitFor(`no matches for "quarterly": messages hold the query's terms`);
      expect(s).toContain("the time range");
      tui.keys("C-t", "C-t", "C-t", "C-t"); // all again
      await tui.waitFor("old-notes · ");
      tui.keys("C-s"); // this session: alpha-deploy, which never says it
      s = await tui.waitFor(`no matches for "quarterly": no message in session alpha-deploy`);
      expect(s).toContain("(1 other session does)");
      tui.keys("Tab"); // semantic: the reason of that mode
      s = await tui.waitFor(/mode semantic[\s\S]*no close matches for "quarterly": /);
    },
    T,
  );

  test(
    "a search scoped to a session another process removed searches every session and says so",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.keys("Tab"); // keyword
      await tui.waitFor("mode keyword");
      tui.keys("C-s");
      await tui.waitFor("scope session alpha-deploy");
      tui.type("rollback");
      await tui.waitFor(/alpha-deploy · [^\n]*· assistant/);
      const rm = await cli(["rm", "alpha-deploy"], { home: h });
      expect(rm.code).toBe(0);
      tui.keys("C-u");
      tui.type("invoice");
      const s = await tui.waitFor("scope all sessions");
      expect(s).not.toContain("search failed");
      await tui.waitFor("session alpha-deploy was removed: searching all sessions");
      await tui.waitFor(/beta-billing · [^\n]*· /);
    },
    T,
  );
});
