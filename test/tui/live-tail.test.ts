// A live write to the shown session reads only what is new, and the pane stays what a fresh read would show
// after compaction, rm-message, a reset and a replaced history.json.
import { afterAll, expect, test } from "bun:test";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { openMemory } from "../../src/app/open-memory.ts";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { TuiApp } from "../../src/tui/app/tui-app.ts";
import { buildBlocks, type HistoryBlock } from "../../src/tui/state/history-blocks.ts";
import { screen as blessedScreen } from "../../src/tui/terminal/blessed-widgets.ts";
import { Theme } from "../../src/tui/theme.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const text = (i: number) => `note ${i}: the canary rollout and the smoke tests that run after each deploy step`;

/** The pane's blocks as ids and markers, for comparing with a fresh read. */
const shape = (blocks: readonly (HistoryBlock | undefined)[]) =>
  blocks.map((b) => (b?.type === "message" ? `${b.message.id}${b.message.recent ? "" : " (archived)"}` : b?.text));

test("a write by another process reads only the new messages; after compaction, rm-message, reset and a replaced file the pane is a fresh read", async () => {
  const home = tempHome("memvoy-tail-");
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_history_bytes = 4096\n");
  const api = openMemory({ home, env: {} });
  // Another process: its own connection to the archive and its own writes to history.json.
  const writer = openMemory({ home, env: {} });
  writer.add(
    "s",
    Array.from({ length: 60 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: text(i),
    })),
  );
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
  const { view } = app.main;
  const paneIsFresh = () => {
    const shown = Array.from({ length: view.blockCount }, (_, i) => view.blockAt(i));
    expect(shape(shown)).toEqual(shape(buildBlocks(history("s", { all: true }))));
  };
  const shownText = () =>
    view
      .visible()
      .map((l) => l.text)
      .join("\n");
  try {
    await app.reload();
    view.end();
    expect(wholeReads).toBe(1);
    paneIsFresh();

    // Plain appends: each one read alone, shown at the end, while older messages leave history.json.
    const archived = () => history("s", { all: true }).filter((m) => !m.recent).length;
    const archivedBefore = archived();
    for (let i = 60; i < 70; i++) {
      writer.add("s", { role: "user", content: text(i) });
      await app.refresh();
      expect(shownText()).toContain(`note ${i}:`);
      paneIsFresh();
    }
    expect(wholeReads).toBe(1);
    expect(archived()).toBeGreaterThan(archivedBefore);
    expect(shape([view.blockAt(view.blockCount - 1)])[0]).not.toContain("archived");

    // A message the pane shows is removed: the pane no longer has it.
    const gone = history("s", { all: true }).at(-2)!;
    await writer.rmMessage(gone.id);
    await app.refresh();
    paneIsFresh();
    expect(shownText()).not.toContain("note 68:");
    writer.add("s", { role: "assistant", content: text(70) });
    await app.refresh();
    expect(shownText()).toContain("note 70:");
    paneIsFresh();

    // A reset empties it; what is added after is all it shows.
    writer.reset("s");
    await app.refresh();
    paneIsFresh();
    expect(view.blockCount).toBe(0);
    writer.add("s", { role: "user", content: text(71) });
    await app.refresh();
    expect(shownText()).toContain("note 71:");
    paneIsFresh();

    // Another program replaces history.json with a file of its own: what it adds shows, in the archive's order.
    const file = join(home, "sessions", "s", "history.json");
    const [kept] = JSON.parse(await Bun.file(file).text()) as unknown[];
    const outside = {
      id: "01JZ0000000000000000000000",
      role: "assistant",
      content: "written by another program",
      sendAt: "2026-12-01T10:00:00Z",
    };
    writeFileSync(`${file}.new`, JSON.stringify([kept, outside]));
    renameSync(`${file}.new`, file);
    await app.refresh();
    expect(shownText()).toContain("written by another program");
    paneIsFresh();
    writer.add("s", { role: "user", content: text(72) });
    await app.refresh();
    expect(shownText()).toContain("note 72:");
    paneIsFresh();
  } finally {
    app.quit();
    screen.destroy();
    writer.close();
    api.close();
  }
}, 60_000);

test("a reply an import grew (streamed across two import passes) shows its new text without a reload", async () => {
  const home = tempHome("memvoy-grow-");
  const file = join(home, "reply.jsonl");
  const reply = (content: string) =>
    `${JSON.stringify({ type: "session", id: "g" })}\n${JSON.stringify({
      type: "message",
      id: "01JZ00000000000000000000G1",
      session: "g",
      role: "assistant",
      content,
      sendAt: "2026-12-06T07:00:00Z",
    })}\n`;
  writeFileSync(file, reply("part one"));
  expect((await cli(["import", "jsonl", file], { home })).code).toBe(0);
  const api = openMemory({ home, env: {} });
  const output = Object.assign(new PassThrough(), { columns: 120, rows: 40, isTTY: true });
  output.resume();
  const screen = blessedScreen({ input: new PassThrough(), output, terminal: "xterm-256color", warnings: false });
  const app = new TuiApp(api, screen, new Theme("256"), () => 0n);
  const shown = () =>
    app.main.view
      .visible()
      .map((l) => l.text)
      .join("\n");
  try {
    await app.reload();
    expect(shown()).toContain("part one");
    writeFileSync(file, reply("part one\n\npart two, streamed later"));
    expect((await cli(["import", "jsonl", file], { home })).code).toBe(0);
    await app.refresh();
    expect(shown()).toContain("part two, streamed later");
  } finally {
    app.quit();
    screen.destroy();
    api.close();
  }
}, 60_000);
