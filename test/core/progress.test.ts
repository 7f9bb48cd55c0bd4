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

test("a progress line that never drew clears nothing", () => {
  const { writes, stream } = sink();
  progressLine(stream, () => 0).done();
  expect(writes).toEqual([]);
});
