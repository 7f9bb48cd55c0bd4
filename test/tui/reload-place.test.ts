// Ctrl-L (and the reload after a summary run or an error record's deletion) reads the home again: the shown session,
// with the history pane where the reader was, and the error memory and summary viewer when they are open.
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { openMemory } from "../../src/app/open-memory.ts";
import { TuiApp } from "../../src/tui/app/tui-app.ts";
import { screen as blessedScreen } from "../../src/tui/terminal/blessed-widgets.ts";
import { Theme } from "../../src/tui/theme.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("Ctrl-L reads the shown session again and keeps the history pane's place; a message added since shows", async () => {
  const home = tempHome("memvoy-reload-");
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_history_bytes = 4096\n");
  const api = openMemory({ home, env: {} });
  const writer = openMemory({ home, env: {} });
  writer.add(
    "s",
    Array.from({ length: 60 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `note ${i}: the canary rollout and the smoke tests that run after each deploy step`,
    })),
  );
  const output = Object.assign(new PassThrough(), { columns: 120, rows: 40, isTTY: true });
  output.resume();
  const screen = blessedScreen({ input: new PassThrough(), output, terminal: "xterm-256color", warnings: false });
  const app = new TuiApp(api, screen, new Theme("256"), () => 0n);
  const { view } = app.main;
  const top = () => view.visible()[0]?.text;
  const ctrlL = () => screen.emit("keypress", "\f", { name: "l", ctrl: true, full: "C-l", sequence: "\f" });
  try {
    app.start();
    while (view.blockCount === 0) await new Promise((r) => setTimeout(r, 10));
    expect(view.atBottom()).toBe(true);

    // At the top: Ctrl-L leaves it there.
    view.home();
    const first = top();
    ctrlL();
    expect(view.atTop()).toBe(true);
    expect(top()).toBe(first);

    // In the middle, with a message added by another process since: the same line stays at the top.
    view.move(25);
    const middle = top();
    expect(view.atBottom()).toBe(false);
    writer.add("s", { role: "user", content: "note 60: added while the reader was scrolled up" });
    ctrlL();
    expect(top()).toBe(middle);
    expect(view.atBottom()).toBe(false);
    view.end();
    expect(
      view
        .visible()
        .map((l) => l.text)
        .join("\n"),
    ).toContain("note 60:");
  } finally {
    app.quit();
    screen.destroy();
    writer.close();
    api.close();
  }
}, 60_000);

test("a reload reads the open error memory and summary viewer again (where no change is notified, Ctrl-L is how they catch up)", async () => {
  const home = tempHome("memvoy-reload-");
  const api = openMemory({ home, env: {} });
  const writer = openMemory({ home, env: {} });
  writer.add("s", { role: "user", content: "the refund job failed again" });
  await writer.recordError({ tool: "bash", error: "jq: command not found", fix: "apt-get install -y jq" });
  const output = Object.assign(new PassThrough(), { columns: 120, rows: 40, isTTY: true });
  output.resume();
  const screen = blessedScreen({ input: new PassThrough(), output, terminal: "xterm-256color", warnings: false });
  // Not started: no file is watched, as on a home whose changes the kernel does not report.
  const app = new TuiApp(api, screen, new Theme("256"), () => 0n);
  const summaryText = () => {
    app.render();
    const { lines } = screen as unknown as { lines: [number, string][][] };
    return lines.map((l) => l.map((c) => c[1]).join("")).join("\n");
  };
  try {
    await app.reload();
    app.open("error-memory");
    expect(app.errorMemory.state.rows.map((r) => r.record.tool)).toEqual(["bash"]);
    await writer.recordError({ tool: "sql", error: "duplicate key value", fix: "upsert with ON CONFLICT" });
    await app.reload();
    expect(app.errorMemory.state.rows.map((r) => r.record.tool).sort()).toEqual(["bash", "sql"]);

    app.close();
    app.open("summary");
    expect(summaryText()).toContain("No summary yet.");
    writer.importSummary("s", {
      key_decisions: ["Do: retry the refund job nightly"],
      past_discussions: [],
      current_discussion: { topic: "Refunds", description: "The job is fixed.", perspectives: "", direction: "" },
    });
    await app.reload();
    expect(summaryText()).toContain("Do: retry the refund job nightly");
  } finally {
    app.quit();
    screen.destroy();
    writer.close();
    api.close();
  }
}, 60_000);
