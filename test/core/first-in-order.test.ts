// firstInOrder gives what a stable sort then slice(0, k) gives, ties and all.
import { describe, expect, test } from "bun:test";
import { firstInOrder } from "../../src/search/first-in-order.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

describe("firstInOrder", () => {
  test("equals a stable sort's first k, for lists with many ties and any k", () => {
    const rnd = seededRandom(5);
    let compared = 0;
    for (let round = 0; round < 300; round++) {
      const n = Math.floor(rnd() * 400);
      const items = Array.from({ length: n }, (_, i) => ({ i, s: Math.floor(rnd() * (round % 3 === 0 ? 3 : 50)) / 7 }));
      const cmp = (a: { s: number }, b: { s: number }) => b.s - a.s;
      for (const k of [0, 1, 3, 20, 99, n, n + 5]) {
        expect(firstInOrder(items, k, cmp)).toEqual([...items].sort(cmp).slice(0, k));
        compared++;
      }
    }
    expect(compared).toBe(2100);
  });
});
