// The process clock: the wall clock at the monotonic clock's resolution, strictly increasing, and back on the wall
// clock after the machine slept (the monotonic clock stops then).
import { expect, test } from "bun:test";
import { makeClock, NS_PER_MS, NS_PER_SEC } from "../../src/shared/time.ts";

test("after the machine slept, the clock reads the wall clock again, not the time it went to sleep", () => {
  let wall = 1_790_000_000_000;
  let hr = 5_000_000_000n;
  const now = makeClock(
    () => wall,
    () => hr,
  );
  const start = now();
  expect(start).toBe(BigInt(wall) * NS_PER_MS);
  // Awake: the wall and monotonic clocks move together; the reading has the monotonic clock's resolution.
  wall += 2;
  hr += 2_000_123n;
  expect(now()).toBe(start + 2_000_123n);
  // Eight hours asleep: the wall clock moved, the monotonic clock did not.
  wall += 8 * 3_600_000;
  hr += 1_000n;
  const woke = now();
  expect(woke).toBe(BigInt(wall) * NS_PER_MS);
  // A wall clock set back by an hour never makes the clock go back: each reading is later than the one before.
  wall -= 3_600_000;
  hr += NS_PER_SEC;
  const after = now();
  expect(after).toBeGreaterThan(woke);
  expect(now()).toBeGreaterThan(after);
});
