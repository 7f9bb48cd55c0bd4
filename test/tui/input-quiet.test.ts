// The pause in keys and clicks that the TUI's background warm-up waits for.
import { expect, test } from "bun:test";
import { InputQuiet } from "../../src/tui/app/input-quiet.ts";

test("after(ms) resolves only once ms have passed since the last input; each input starts the wait again", async () => {
  const quiet = new InputQuiet();
  const touches = [performance.now()];
  let resolvedAt: number | undefined;
  const waiting = quiet.after(40).then(() => (resolvedAt = performance.now()));
  for (let i = 0; i < 5 && resolvedAt === undefined; i++) {
    await new Promise((r) => setTimeout(r, 10));
    if (resolvedAt !== undefined) break;
    quiet.touch();
    touches.push(performance.now());
  }
  await waiting;
  // Whatever the machine's load did to the timers: never sooner than 40 ms after the last input before it.
  const lastBefore = touches.filter((t) => t <= resolvedAt!).at(-1)!;
  expect(resolvedAt! - lastBefore).toBeGreaterThanOrEqual(39);
});

test("stop() ends every wait at once, and later waits do not start", async () => {
  const quiet = new InputQuiet();
  const waiting = quiet.after(600_000);
  quiet.stop();
  await waiting;
  await quiet.after(600_000);
});

test("the TUI's warm-up counts its first pause from the first paint, not from the program's start", async () => {
  const { PassThrough } = await import("node:stream");
  const { openMemory } = await import("../../src/app/open-memory.ts");
  const { screen: blessedScreen } = await import("../../src/tui/terminal/blessed-widgets.ts");
  const { Theme } = await import("../../src/tui/theme.ts");
  const { TuiApp, WARM_QUIET_MS } = await import("../../src/tui/app/tui-app.ts");
  const { tempHome } = await import("../fixture/home.ts");
  const api = openMemory({ home: tempHome(), env: {} });
  const output = new PassThrough();
  output.resume();
  const screen = blessedScreen({ input: new PassThrough(), output, terminal: "xterm-256color", warnings: false });
  let firstStepAfterPaint: number | undefined;
  let paintedAt = 0;
  api.warmSearch = async (o = {}) => {
    await o.idle?.();
    firstStepAfterPaint = performance.now() - paintedAt;
  };
  const app = new TuiApp(api, screen, new Theme("256"), () => 0n);
  // A slow start (a cold machine, a large home): more than the pause passes before the first paint.
  await new Promise((r) => setTimeout(r, WARM_QUIET_MS + 50));
  // Taken before start(), which paints first and then starts the pause: the time start() takes after the paint
  // (longer on a loaded machine) is not counted as part of the pause.
  paintedAt = performance.now();
  app.start();
  try {
    while (firstStepAfterPaint === undefined) await new Promise((r) => setTimeout(r, 10));
    // A key pressed right after the first paint is answered before a warm-up step holds the event loop up.
    expect(firstStepAfterPaint).toBeGreaterThanOrEqual(WARM_QUIET_MS - 1);
  } finally {
    app.quit();
    screen.destroy();
    api.close();
  }
});
