// Ctrl-L (and the reload after a summary run or an error record's deletion) reads the shown session again and
// leaves the history pane where the reader was.
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
