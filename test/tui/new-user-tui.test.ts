// The terminal UI as a new user meets it: quitting never waits for background work, TERM=dumb is refused,
// the hint row follows the focus, q types in a text field until Esc leaves it, long messages wrap, and the
// first-run screen prints a command that works where it runs, on the home shown.
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { vectorFor } from "../fixture/fake-embeddings.ts";
import { makeHome, startTui, T } from "../fixture/tui-home.ts";

let tui: TmuxSession | undefined;
afterEach(() => tui?.kill());
afterAll(removeTempHomes);

/** The screen's text with the frame characters and the padding stripped. */
const text = (screen: string) => screen.replace(/[│┌┐└┘─▸]/g, " ").replace(/[ \t]+/g, " ");

test(
  "quit returns at once while a background job (an embedding call) is blocked forever",
  async () => {
    let hanging = false;
    let hung = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const body = (await req.json()) as { input: string[] };
        if (hanging) {
          hung++;
          return new Promise<Response>(() => {}); // never answers
        }
        return Response.json({
          object: "list",
          data: body.input.map((t, index) => ({ object: "embedding", index, embedding: vectorFor(t, 8) })),
          model: "m",
        });
      },
    });
    try {
      const home = await makeHome();
      writeFileSync(
        join(home, "config.toml"),
        `[limits]\nmax_history_bytes = 4096\n[embedder]\nprovider = "openai"\nmodel = "m"\ndimensions = 8\nbase_url = "http://127.0.0.1:${server.port}/v1"\ntimeout_ms = 600000\nmax_retries = 0\n`,
      );
      const { openMemory } = await import("../../src/app/open-memory.ts");
      const api = openMemory({ home, env: { OPENAI_API_KEY: "sk-test" } });
      await api.reindex(); // vectors of this embedder exist, so a ranked search embeds its query
      api.close();
      hanging = true;
      tui = startTui(home, { env: { OPENAI_API_KEY: "sk-test" } });
      await tui.waitFor("alpha-deploy");
      tui.keys("/");
      await tui.waitFor("Search:");
      tui.type("rollback plan");
      const deadline = Date.now() + 30_000;
      while (hung === 0 && Date.now() < deadline) await Bun.sleep(50);
      expect(hung).toBeGreaterThan(0); // the ranked search now waits on the embedder, forever
      tui.keys("Escape");
      await tui.waitFor("type to filter");
      const started = Date.now();
      tui.keys("q");
      const end = await tui.exited(20_000);
      expect(end.code).toBe(0);
      expect(Date.now() - started).toBeLessThan(15_000); // the call would block for 10 minutes
      expect(end.modes).toEqual(["icanon", "echo"]);
    } finally {
      server.stop(true);
    }
  },
  T,
);

test(
  "TERM=dumb is refused with one line naming a setting that works, exit 2",
  async () => {
    const home = await makeHome();
    tui = startTui(home, { env: { TERM: "dumb" } });
    const end = await tui.exited();
    expect(end.code).toBe(2);
    const s = tui.capture();
    expect(s).toContain("TERM=dumb");
    expect(s).toContain("TERM=xterm-256color");
  },
  T,
);

test(
  "the hint row shows the keys of the focused screen",
  async () => {
    const home = await makeHome();
    tui = startTui(home, { width: 140 });
    let s = await tui.waitFor("alpha-deploy");
    expect(s).toContain("type to filter · ↑↓ select · Enter history");
    tui.keys("Enter");
    s = await tui.waitFor("s summary · e errors · r reset");
    tui.keys("Escape");
    await tui.waitFor("type to filter · ↑↓ select");
    tui.keys("/");
    s = await tui.waitFor("Tab mode · Ctrl-S scope · Ctrl-T range");
    expect(s).not.toContain("q quit");
    expect(s).not.toContain("Ctrl-S summary");
    tui.keys("Escape");
    tui.keys("C-e");
    s = await tui.waitFor("Enter detail · / search · d delete");
    tui.keys("/");
    await tui.waitFor("typing searches the records");
    tui.keys("Escape", "Escape");
    tui.keys("?");
    s = await tui.waitFor("Esc or ? close");
    expect(s).toContain("Esc leaves the field");
    tui.keys("Escape");
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
  },
  T,
);

test(
  "q types while the filter field has the keys; Esc leaves it (and a move does), then q quits",
  async () => {
    const home = await makeHome();
    tui = startTui(home);
    await tui.waitFor("alpha-deploy");
    tui.type("alq");
    let s = await tui.waitFor("typing filters the sessions");
    expect(s).toContain('no session id contains "alq"');
    tui.keys("BSpace");
    s = await tui.waitFor((x) => x.includes("alpha-deploy") && !x.includes("beta-billing"));
    tui.keys("Down"); // a move leaves the field, the filter stays
    await tui.waitFor("type to filter · ↑↓ select");
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
    tui.kill();
    tui = startTui(home);
    await tui.waitFor("alpha-deploy");
    tui.type("be");
    await tui.waitFor("typing filters the sessions");
    tui.keys("Escape");
    await tui.waitFor("type to filter · ↑↓ select");
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
  },
  T,
);

test(
  "the reset dialog and a status-row error wrap instead of being cut",
  async () => {
    const home = await makeHome();
    const long = "a-session-with-a-rather-long-identifier-that-goes-on-and-on-until-it-ends-here";
    const { openMemory } = await import("../../src/app/open-memory.ts");
    const api = openMemory({ home, env: {} });
    api.add(long, { role: "user", content: "hello" });
    api.close();
    mkdirSync(join(home, "sessions", "broken"), { recursive: true });
    writeFileSync(join(home, "sessions", "broken", "history.json"), "[{not json");
    tui = startTui(home, { width: 120, height: 30 });
    await tui.waitFor("alpha-deploy");
    tui.type("a-session");
    await tui.waitFor("a-session-with");
    tui.keys("C-r");
    let s = await tui.waitFor("Confirm");
    const flat = text(s).replace(/\s/g, "");
    expect(flat).toContain(`Resetsession${long}?`.replace(/ /g, ""));
    expect(text(s)).toContain("It has no summary.");
    tui.keys("n");
    tui.keys("Escape");
    tui.type("broken");
    s = await tui.waitFor("cannot show this session");
    tui.keys("Escape");
    s = await tui.waitFor("last error:");
    expect(text(s).replace(/\s/g, "")).toContain("doctor--repair`torebuilditfromthearchive");
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
  },
  T,
);

test(
  "first run: the demo command shown uses the home on screen and works where it runs",
  async () => {
    const home = tempHome("memvoy-tui-empty-");
    tui = startTui(home, { width: 100, height: 30 });
    const s = await tui.waitFor("Welcome to memvoy");
    const rows = s.split("\n").map((r) => r.replace(/^│\s?|\s*│$/g, ""));
    const at = rows.findIndex((r) => r.includes("Fill this home with demo data"));
    expect(at).toBeGreaterThan(0);
    const parts: string[] = [];
    for (let i = at + 1; rows[i]!.trim() !== ""; i++) parts.push(rows[i]!.trim());
    const command = parts.join(" ");
    expect(command).toContain(`demo --home ${home}`);
    expect(command).not.toMatch(/^memvoy /); // memvoy is not on PATH in a source checkout
    // The library line opens the same home, not the default one.
    expect(text(s).replace(/\s+/g, "")).toContain(`openMemory({home:${JSON.stringify(home)}})`);
    // Run it as a person would, in the TUI's working directory and environment.
    const run = Bun.spawnSync(["bash", "-c", command], {
      cwd: home,
      env: { PATH: process.env.PATH!, HOME: home, TZ: "UTC" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(run.stderr.toString()).toBe("");
    expect(run.exitCode).toBe(0);
    tui.keys("C-l");
    await tui.waitFor("deploy-pipeline");
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
  },
  T,
);

test(
  'a session of one message is labelled "1 msg", not "1 msgs"',
  async () => {
    const home = tempHome("memvoy-tui-one-");
    const { openMemory } = await import("../../src/app/open-memory.ts");
    const api = openMemory({ home, env: {} });
    api.add("solo", { role: "user", content: "just one" });
    api.close();
    tui = startTui(home);
    const s = await tui.waitFor("just one");
    expect(s).toContain("solo · 1 msg ");
    expect(s).not.toContain("1 msgs");
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
  },
  T,
);
