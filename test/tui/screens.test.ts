// Help, confirmations for reset and remove, the first-run screen, and an error that leaves q working.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { KEY_GROUPS } from "../../src/tui/keymap.ts";
import { cli, repoRoot, tempHome, waitFor } from "../fixture/home.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { makeHome, startTui, T, tuiSuite } from "../fixture/tui-home.ts";

const suite = tuiSuite();
let tui: TmuxSession | undefined;

describe("help", () => {
  test(
    "? lists every key of every screen (all at once on a tall terminal)",
    async () => {
      tui = suite.start({ width: 120, height: 70 });
      await tui.waitFor("alpha-deploy");
      tui.type("?");
      const s = await tui.waitFor((x) => x.includes("Help: every key") && x.includes("no, keep everything"));
      for (const g of KEY_GROUPS) {
        expect(s).toContain(g.title);
        for (const [key, action] of g.keys) {
          expect(s).toContain(key);
          expect(s).toContain(action.slice(0, 40));
        }
      }
      tui.keys("Escape");
      await tui.waitForGone("Help: every key");
    },
    T,
  );

  test(
    "at 80x24 the help scrolls to its end; ? closes it",
    async () => {
      tui = suite.start();
      await tui.waitFor("alpha-deploy");
      tui.type("?");
      let s = await tui.waitFor("↓ more");
      expect(s).toContain("Everywhere");
      tui.keys("End");
      s = await tui.waitFor("end of help");
      expect(s).toContain("Confirmation");
      expect(s).toContain("no, keep everything");
      tui.type("?");
      await tui.waitFor("type to filter");
    },
    T,
  );
});

describe("confirmations", () => {
  test(
    "reset asks first; n changes nothing, y clears the messages and keeps the session",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.type("beta");
      await tui.waitFor("filter: beta");
      tui.keys("C-r");
      let s = await tui.waitFor("Reset session beta-billing?");
      expect(s).toContain("4 archived messages");
      tui.keys("n");
      await tui.waitFor("cancelled; nothing was changed");
      tui.keys("Enter"); // history pane: r resets too
      await tui.waitFor("Stripe webhooks");
      tui.keys("r");
      await tui.waitFor("Reset session beta-billing?");
      tui.keys("y");
      s = await tui.waitFor("reset beta-billing: removed 4 messages");
      expect(s).toMatch(/beta-billing\s+0 /);
      expect(s).not.toContain("Stripe webhooks");
    },
    T,
  );

  test(
    "remove asks first; y deletes the session",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.type("zh");
      await tui.waitFor("filter: zh");
      tui.keys("C-x");
      let s = await tui.waitFor("Remove session zh-trip?");
      expect(s).toContain("This cannot be undone");
      tui.keys("Escape");
      await tui.waitFor("cancelled; nothing was changed");
      tui.keys("Delete");
      await tui.waitFor("Remove session zh-trip?");
      tui.keys("y");
      s = await tui.waitFor("removed zh-trip (2 messages)");
      expect(s).toContain("3 sessions");
      tui.keys("Escape"); // clear the filter
      s = await tui.waitFor("type to filter");
      expect(s).not.toContain("│zh-trip");
    },
    T,
  );

  test(
    "text pasted into the history pane never answers the question it raises: proxy asks to reset, its y is no yes",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.type("beta");
      await tui.waitFor("filter: beta");
      tui.keys("Enter");
      await tui.waitFor("Stripe webhooks");
      // Pasted as a terminal pastes, in one read: r asks to reset, y followed in the same read.
      tui.command("set-buffer", "--", "proxy");
      tui.command("paste-buffer", "-t", "t");
      let s = await tui.waitFor("Reset session beta-billing?");
      expect(s).toContain("Stripe webhooks");
      tui.keys("y"); // a y of its own answers
      s = await tui.waitFor("reset beta-billing: removed 4 messages");
      // "xylophone": x asks to remove the session, its y is no answer, its n cancels (and its e opens error memory).
      tui.command("set-buffer", "--", "xylophone");
      tui.command("paste-buffer", "-t", "t");
      await tui.waitFor("Error memory · 3 records");
      tui.keys("Escape");
      s = await tui.waitForGone("Error memory");
      expect(s).toMatch(/beta-billing\s+0 /);
      expect(s).toContain("4 sessions");
    },
    T,
  );

  test(
    "remove while another process holds the home's writer lock: the wait is said, keys still work, the session goes once it is free",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      // An import or a reset in a shell holds the lock; the TUI's deletion used to freeze every key until it let go.
      const release = tryLockFile(join(h, ".store", "write.lock"))!;
      try {
        tui.type("zh");
        await tui.waitFor("filter: zh");
        tui.keys("C-x");
        await tui.waitFor("Remove session zh-trip?");
        tui.keys("y");
        await tui.waitFor("removing zh-trip: waiting for another memvoy process writing to this home");
        tui.type("?");
        await tui.waitFor("Help: every key");
        tui.keys("Escape");
        await tui.waitForGone("Help: every key");
        expect(tui.capture()).toContain("zh-trip");
      } finally {
        release();
      }
      const s = await tui.waitFor("removed zh-trip (2 messages)");
      expect(s).toContain("3 sessions");
    },
    T,
  );

  test("remove while another process holds the writer lock for over 30 s: the keys still work past 30 s and the session goes once it is free", async () => {
    const h = await makeHome();
    tui = startTui(h);
    await tui.waitFor("alpha-deploy");
    // A long import: the wait for the lock gave up after 30 s, and the removal then waited for it again holding every key.
    const release = tryLockFile(join(h, ".store", "write.lock"))!;
    try {
      tui.type("zh");
      await tui.waitFor("filter: zh");
      tui.keys("C-x");
      await tui.waitFor("Remove session zh-trip?");
      const confirmed = Date.now();
      tui.keys("y");
      await tui.waitFor("removing zh-trip: waiting for another memvoy process writing to this home");
      while (Date.now() - confirmed < 31_000) await Bun.sleep(100);
      tui.type("?");
      await tui.waitFor("Help: every key", 5_000);
      tui.keys("Escape");
      await tui.waitForGone("Help: every key", 5_000);
      expect(tui.capture()).toContain("removing zh-trip: waiting for another memvoy process");
    } finally {
      release();
    }
    const s = await tui.waitFor("removed zh-trip (2 messages)");
    expect(s).toContain("3 sessions");
  }, 90_000);

  test(
    "a session another program writes while another process holds the writer lock: the wait is said, keys still work, it shows once the lock is free",
    async () => {
      const h = await makeHome();
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      // Its adoption into the archive takes the lock: the live update used to hold every key until the lock was let go.
      const release = tryLockFile(join(h, ".store", "write.lock"))!;
      try {
        mkdirSync(join(h, "sessions", "agenvoy-chat"));
        writeFileSync(
          join(h, "sessions", "agenvoy-chat", "history.json"),
          JSON.stringify([{ role: "user", content: "written by agenvoy itself", sendAt: 1733450000000000000 }]),
        );
        await tui.waitFor("reading the sessions: waiting for another memvoy process");
        tui.type("?");
        await tui.waitFor("Help: every key");
        tui.keys("Escape");
        await tui.waitForGone("Help: every key");
        // A search (it adopts the session too) waits the same way.
        tui.type("/");
        await tui.waitFor("Search:");
        tui.type("written");
        await tui.waitFor("Search: written");
        tui.keys("Escape");
        await tui.waitForGone("Search:");
        expect(tui.capture()).not.toContain("agenvoy-chat");
      } finally {
        release();
      }
      let s = await tui.waitFor(/agenvoy-chat\s+1 /);
      expect(s).toContain("5 sessions");
      expect(s).not.toContain("waiting for another memvoy process");
      tui.type("agenvoy");
      s = await tui.waitFor("written by agenvoy itself");
    },
    T,
  );
});

describe("first run and errors", () => {
  test(
    "an empty home shows how to add data; Ctrl-L picks up new data",
    async () => {
      const h = tempHome("memvoy-tui-empty-");
      tui = startTui(h);
      const s = await tui.waitFor("Welcome to memvoy");
      const flat = s.replace(/│/g, " ").replace(/\s+/g, " "); // long commands wrap
      expect(flat).toContain(`--home ${h} add my-session --role user`);
      expect(flat).toContain(`demo --home ${h}`);
      const api = openMemory({ home: h, env: {} });
      api.add("fresh", { role: "user", content: "first message" });
      api.close();
      tui.keys("C-l");
      await tui.waitFor("│fresh");
      await tui.waitFor("first message");
    },
    T,
  );

  test(
    "at 80x24 a long home path leaves the demo command and the reload key on the first-run screen",
    async () => {
      const h = join(tempHome("memvoy-tui-empty-"), "projects", "customer-support-agent", ".memvoy");
      mkdirSync(h, { recursive: true });
      tui = startTui(h);
      const s = await tui.waitFor("Welcome to memvoy");
      const flat = s.replace(/│/g, " ").replace(/\s+/g, " ");
      expect(flat).toContain(`--home ${h} add my-session --role user`);
      expect(flat).toContain(`demo --home ${h}`);
      expect(flat).toContain("Ctrl-L reloads once data is there");
    },
    T,
  );

  test(
    "an unreadable session shows the error on the status line; q still quits cleanly",
    async () => {
      const h = await makeHome();
      mkdirSync(join(h, "sessions", "broken"), { recursive: true });
      writeFileSync(join(h, "sessions", "broken", "history.json"), "[{not json");
      tui = startTui(h);
      await tui.waitFor("alpha-deploy");
      tui.type("broken");
      const s = await tui.waitFor("cannot show this session");
      expect(s).toMatch(/broken[^\n]*history\.json/);
      tui.keys("Escape");
      await tui.waitFor((x) => x.includes("type to filter") && x.includes("last error:"));
      tui.keys("q");
      const end = await tui.exited();
      expect(end.code).toBe(0);
      expect(end.modes).toEqual(["icanon", "echo"]);
      expect(tui.format("alternate_on")).toBe("0");
    },
    T,
  );
});

describe("status row", () => {
  test(
    "at 80 columns a home under a CJK folder name is shortened by cells: the counts stay whole",
    async () => {
      const h = join(tempHome("memvoy-tui-"), "記憶ホームディレクトリ");
      const api = openMemory({ home: h, env: {} });
      api.add("only", { role: "user", content: "hello" });
      api.close();
      tui = startTui(h);
      const s = await tui.waitFor("│only");
      const info = s.split("\n").find((l) => l.includes("daemon stopped"))!;
      expect(info).toContain("1 session · 1 msg · 0 errors");
      expect(info).toContain("…");
    },
    T,
  );

  test(
    "shows a running daemon, then a stopped one after Ctrl-L",
    async () => {
      const h = await makeHome();
      const daemon = Bun.spawn([process.execPath, join(repoRoot, "src/index.ts"), "--daemon", "--home", h], {
        env: { PATH: process.env.PATH!, HOME: h, TZ: "UTC" },
        stdout: "ignore",
        stderr: "ignore",
      });
      try {
        await waitFor(
          async () => (await cli(["daemon", "status"], { home: h })).code === 0,
          20_000,
          "the daemon to run",
        );
        tui = startTui(h);
        await tui.waitFor("daemon running");
        await cli(["daemon", "stop"], { home: h });
        tui.keys("C-l");
        await tui.waitFor("daemon stopped");
      } finally {
        daemon.kill();
        await daemon.exited;
      }
    },
    T,
  );
});
