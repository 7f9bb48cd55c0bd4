// The progress line and bar on a terminal: the first update is drawn whenever it comes, then one redraw per
// 100 ms at most (a bar's last update always).
import { expect, test } from "bun:test";
import { progressBar, progressLine } from "../../src/cli/progress.ts";

function sink() {
  const writes: string[] = [];
  const write = (s: string) => {
    writes.push(s);
    return true;
  };
  return { writes, stream: { write } };
}

test("a progress line draws its first update at once, even when the clock reads under 100 ms", () => {
  let now = 5; // performance.now() in a process that has just started
  const { writes, stream } = sink();
  const line = progressLine(stream, () => now);
  now = 20;
  line.update("claude-code [....] 0/5 files, 3 messages", 3);
  expect(writes).toHaveLength(1);
  expect(writes[0]).toStartWith("\rclaude-code [....] 0/5 files, 3 messages, ");
  now = 60;
  line.update("claude-code [#...] 1/5 files, 9 messages", 9);
  expect(writes).toHaveLength(1); // within 100 ms of the last redraw
  now = 125;
  line.update("claude-code [##..] 2/5 files, 12 messages", 12);
  expect(writes).toHaveLength(2);
  line.done();
  expect(writes.at(-1)).toBe("\r\x1b[K");
});

test("a progress bar draws its first update at once and always its last", () => {
  let now = 1;
  const { writes, stream } = sink();
  const bar = progressBar(stream, 10, "messages", () => now);
  now = 2;
  bar.update(1, 100);
  expect(writes).toHaveLength(1);
  expect(writes[0]).toStartWith("\r[..........] 1/100 messages");
  now = 50;
  bar.update(50, 100);
  expect(writes).toHaveLength(1);
  now = 60;
  bar.update(100, 100);
  expect(writes).toHaveLength(2);
  expect(writes[1]).toStartWith("\r[##########] 100/100 messages");
});

test("a resumed copy's rows already there are shown but not counted in the rate", () => {
  let now = 0;
  const { writes, stream } = sink();
  const bar = progressBar(stream, 10, "vectors", () => now);
  now = 1; // 1 ms in: all 24,000 rows found in the target
  bar.update(24_000, 24_000, 24_000);
  expect(writes[0]).toBe("\r[##########] 24000/24000 vectors  0/s\x1b[K");
  const resumed = progressBar(stream, 10, "messages", () => now);
  now = 2001; // 2 s later: 1,000 of 11,000 copied by this run
  resumed.update(11_000, 20_000, 10_000);
  expect(writes[1]).toBe("\r[######....] 11000/20000 messages  500/s\x1b[K");
});

test("a progress line that never drew clears nothing", () => {
  const { writes, stream } = sink();
  progressLine(stream, () => 0).done();
  expect(writes).toEqual([]);
});
