// The word-level match's field weight (cause and fix words count more than error words) and its
// record-side rarity (a record word most of the records share counts less).
import { describe, expect, test } from "bun:test";
import { wordMatcher } from "../../src/memory/error-memory/word-match.ts";

describe("word-level match weights", () => {
  test("a query word found in the fix counts more than the same word found in the error", async () => {
    const m = await wordMatcher();
    const query = m.words("quota trebuchet");
    const inError = m.recordWords("bash", "quota broke the job", "");
    const inFix = m.recordWords("bash", "the job broke", "raised the quota");
    const [e, f] = m.scoreAll(query, [inError, inFix], ["bash", "bash"]);
    expect(e!.cover).toBeGreaterThan(0);
    expect(f!.cover).toBeGreaterThan(e!.cover);
    expect(f!.rank).toBeGreaterThan(e!.rank);
  });

  test("a record word most of the records searched share counts less than one only a few have", async () => {
    const m = await wordMatcher();
    const query = m.words("quota");
    const target = m.recordWords("bash", "quota broke the job", "");
    const others = (word: string) =>
      Array.from({ length: 19 }, (_, i) => m.recordWords("bash", `job ${word} number ${i} stopped`, ""));
    const rare = m.scoreAll(query, [target, ...others("halted")], Array(20).fill("bash"));
    const shared = m.scoreAll(query, [target, ...others("quota")], Array(20).fill("bash"));
    expect(rare[0]!.rank).toBeCloseTo(1, 5);
    expect(shared[0]!.rank).toBeLessThan(rare[0]!.rank);
    expect(shared[0]!.rank).toBeGreaterThan(0);
    // Without the records' tools (a tool's words, not records), every word counts in full.
    expect(m.scoreAll(query, [target, ...others("quota")])[0]!.rank).toBeCloseTo(1, 5);
  });
});
