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
