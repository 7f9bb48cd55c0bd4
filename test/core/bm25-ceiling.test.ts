// bm25Ceiling bounds every row's bm25: keyword search skips the archive when a page of recent hits scores above it.
import { describe, expect, test } from "bun:test";
import { bm25, bm25Ceiling, type Phrase } from "../../src/search/bm25.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

const WORDS = ["deploy", "deployed", "server", "restore", "restoring", "backup", "log", "東京", "会議", "x"];

describe("bm25 ceiling", () => {
  test("no row reaches it, whatever its term counts, length and the phrases' shares", () => {
    const rnd = seededRandom(11);
    const phrases: Phrase[][] = [
      [{ kind: "stem", text: "deploy", tokens: ["deploy"] }],
      [
        { kind: "stem", text: "deploy", tokens: ["deploy"], share: 0.88 },
        { kind: "stem", text: "restor", tokens: ["restor"], share: 0.0001 },
      ],
      [
        { kind: "cjk", text: "東京", tokens: ["東京"], share: 0.002 },
        { kind: "cjk", text: "会議", tokens: ["会議"], share: 0 },
        { kind: "prefix", text: "serv", tokens: ["serv"], share: 0.5 },
      ],
    ];
    let checked = 0;
    for (const set of phrases) {
      const ceiling = bm25Ceiling(set, 1_000_000);
      for (let i = 0; i < 2000; i++) {
        // From one word to hundreds, often the same word many times: high counts in short rows score most.
        const n = 1 + Math.floor(rnd() ** 3 * 400);
        const text = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * (rnd() < 0.5 ? 2 : WORDS.length))]).join(
          " ",
        );
        const length = Math.max(0, n + Math.floor(rnd() * 5) - 2);
        for (const matchedAll of [false, true]) {
          const s = bm25(text, length, set, 1_000_000, 1 + rnd() * 40, matchedAll);
          expect(s).toBeLessThan(ceiling);
          checked++;
        }
      }
    }
    expect(checked).toBe(12_000);
  });
});
