// A large session shows its newest messages at once; the rest is read in pages behind them, the keys answered
// between pages, and then replaces them with the pane where it was.
import { afterAll, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { openMemory } from "../../src/app/open-memory.ts";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { PAGED_FROM } from "../../src/tui/app/main-screen.ts";
import { TuiApp } from "../../src/tui/app/tui-app.ts";
import { screen as blessedScreen } from "../../src/tui/terminal/blessed-widgets.ts";
import { Theme } from "../../src/tui/theme.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const until = async (done: () => boolean) => {
  for (let i = 0; i < 6000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(done()).toBe(true);
};

test("switching to a large session never reads it whole at once: its newest messages show, the rest follows in pages", async () => {
  const home = tempHome("memvoy-large-");
  const api = openMemory({ home, env: {} });
  const writer = openMemory({ home, env: {} });
  const size = PAGED_FROM + 50;
  const base = Date.UTC(2026, 0, 1);
  for (let from = 0; from < size; from += 5000)
    writer.add(
      "big",
      Array.from({ length: Math.min(5000, size - from) }, (_, k) => ({
        role: (from + k) % 2 ? ("assistant" as const) : ("user" as const),
        content: `line ${from + k}`,
        sendAt: BigInt(base + (from + k) * 1000) * 1_000_000n,
      })),
    );
  writer.add("small", { role: "user", content: "the newest session", sendAt: BigInt(base + size * 1000) * 1_000_000n });
  const history = api.history.bind(api);
  let wholeReads = 0;
  api.history = ((session, o) => {
    if (o?.all) wholeReads++;
    return history(session, o);
  }) as HomeMemory["history"];
  const output = Object.assign(new PassThrough(), { columns: 120, rows: 40, isTTY: true });
  output.resume();
  const screen = blessedScreen({ input: new PassThrough(), output, terminal: "xterm-256color", warnings: false });
  const app = new TuiApp(api, screen, new Theme("256"), () => 0n);
  const { main } = app;
  const { view } = main;
  const shown = () =>
    view
      .visible()
      .map((l) => l.text)
      .join("\n");
  try {
    await app.reload();
    expect(main.sessions.selectedId()).toBe("small");
    wholeReads = 0;
    main.handleKey(undefined, { name: "down", full: "down" });
    expect(main.sessions.selectedId()).toBe("big");
    // At once: the newest messages, at the end, under a line saying the older ones are being read.
    expect(wholeReads).toBe(0);
    expect(shown()).toContain(`line ${size - 1}`);
    expect(view.atBottom()).toBe(true);
    const first = view.blockAt(0);
    expect(first?.type === "marker" && first.text).toBe("9,550 older messages: reading…");
    expect(view.blockCount).toBeLessThan(1000);

    // Then every message, the pane still at the end; nothing was read whole.
    await until(() => view.blockCount === size);
    expect(wholeReads).toBe(0);
    expect(view.atBottom()).toBe(true);
    const oldest = view.blockAt(0);
    expect(oldest?.type === "message" && oldest.message.content).toBe("line 0");
    view.home();
    expect(shown()).toContain("line 0");

    // A message written meanwhile or after is read alone, as for any session.
    writer.add("big", { role: "user", content: "written after the read" });
    await app.refresh();
    view.end();
    expect(shown()).toContain("written after the read");
    expect(wholeReads).toBe(0);
  } finally {
    app.quit();
    screen.destroy();
    writer.close();
    api.close();
  }
}, 120_000);

test("moving on past a large session reads only its newest messages: the rest is not read once the selection moved on", async () => {
  const home = tempHome("memvoy-large-");
  const api = openMemory({ home, env: {} });
  const writer = openMemory({ home, env: {} });
  const size = PAGED_FROM + 10;
  writer.add(
    "big",
    Array.from({ length: size }, (_, k) => ({
      role: k % 2 ? ("assistant" as const) : ("user" as const),
      content: `m ${k}`,
    })),
  );
  writer.add("after", { role: "user", content: "a small session" });
  const history = api.history.bind(api);
  let wholeReads = 0;
  api.history = ((session, o) => {
    if (o?.all && session === "big") wholeReads++;
    return history(session, o);
  }) as HomeMemory["history"];
  let pagesRead = 0;
  const pages = api.historyPages.bind(api);
  api.historyPages = ((session, o) => {
    const gen = pages(session, o);
    return (async function* () {
      for await (const page of gen) {
        pagesRead++;
        yield page;
      }
    })();
  }) as HomeMemory["historyPages"];
  const output = Object.assign(new PassThrough(), { columns: 120, rows: 40, isTTY: true });
  output.resume();
  const screen = blessedScreen({ input: new PassThrough(), output, terminal: "xterm-256color", warnings: false });
  const app = new TuiApp(api, screen, new Theme("256"), () => 0n);
  const { main } = app;
  try {
    await app.reload();
    expect(main.sessions.selectedId()).toBe("after");
    main.handleKey(undefined, { name: "down", full: "down" });
    expect(main.sessions.selectedId()).toBe("big");
    // The next key arrives before any page is read: the read stops there.
    main.handleKey(undefined, { name: "up", full: "up" });
    expect(main.sessions.selectedId()).toBe("after");
    await new Promise((r) => setTimeout(r, 200));
    expect(pagesRead).toBe(0);
    expect(wholeReads).toBe(0);
    expect(main.view.blockCount).toBe(1);
  } finally {
    app.quit();
    screen.destroy();
    writer.close();
    api.close();
  }
}, 120_000);
