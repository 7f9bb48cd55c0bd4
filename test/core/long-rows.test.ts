// Rows longer than ranking reads (an agent's tool output of a whole file): ranked by their start, still found by
// every word the index holds for them and by substring, and ranked the same whichever way their text is read.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { BUILD_AFTER } from "../../src/storage/sqlite/recent-text-cache.ts";
import { RANKED_CHARS } from "../../src/storage/sqlite/ranked-text.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const FILLER = ["alpha", "beta", "gamma", "delta", "epsilon", "omega"];

/** Filler words up to `chars` characters (at least), ending in a space. */
function filler(chars: number, from = 0): string {
  let out = "";
  for (let i = from; out.length < chars; i++) out += `${FILLER[i % FILLER.length]} `;
  return out;
}

function home(long: string[]): string {
  const dir = tempHome();
  const api = openMemory({ home: dir, env: {}, now: () => NOW, drain: "off" });
  try {
    const short = Array.from({ length: 700 }, (_, i) => ({
      role: "user" as const,
      content: `note ${i}: ${FILLER[i % 6]} kiwi ${i % 3 === 0 ? "harbor" : "garden"}${i % 20 === 0 ? " zeppelin" : ""}`,
      sendAt: NOW - BigInt(2_000 - i) * 1_000_000_000n,
    }));
    api.add("short", short);
    api.add(
      "long",
      long.map((content, i) => ({
        role: "assistant" as const,
        content,
        sendAt: NOW - BigInt(100 - i) * 1_000_000_000n,
      })),
    );
  } finally {
    api.close();
  }
  return dir;
}

const page = (hits: { message: { session: string; content: string }; score: number }[]) =>
  hits.map((h) => `${h.message.session}:${h.message.content.slice(0, 12)}:${h.score.toFixed(9)}`);

test("a long row is found by words and substrings past its start", async () => {
  const tail = `${filler(RANKED_CHARS + 2_000)}zebrafish kiwi 東京会議 end`;
  const dir = home([tail]);
  const api = openMemory({ home: dir, env: {}, now: () => NOW, drain: "off" });
  try {
    // One word, only past the start: the index holds it, so the row counts it once.
    const one = await api.search({ query: "zebrafish", limit: 5 });
    expect(one.hits.map((h) => h.message.session)).toEqual(["long"]);
    // Any of two words (the other in every short row): the long row is among the matches, its word counted.
    const two = await api.search({ query: "zebrafish harbor", limit: 1_000 });
    const counted = two.hits.find((h) => h.message.session === "long");
    // 0.2 is the score of a window row that holds none of the words (bm25 0).
    expect(counted?.score).toBeGreaterThan(0.2001);
    // A CJK word past the start, found as a substring of the recent rows (the spec's match).
    const cjk = await api.search({ query: "会議", limit: 5 });
    expect(cjk.hits.map((h) => h.message.session)).toEqual(["long"]);
    // The snippet shows where the word is, past the start.
    expect(one.hits[0]!.snippet).toContain("zebrafish");
  } finally {
    api.close();
  }
});

test("a long row ranks the same from the table and from the recent text held in memory", async () => {
  // İ is one character in the table and two in the held text's lower case: the start must end at the same place.
  // The second "zeppelin" ends just inside the start the table gives. The query is a form of the word (so that
  // the row's score is its bm25, not a substring match's).
  const lead = `${"İ".repeat(12)} zeppelin `;
  const body = lead + filler(RANKED_CHARS - lead.length - 12, 1);
  const long = `${body.slice(0, RANKED_CHARS - 10)} zeppelin ${filler(3_000, 2)}`;
  expect(
    Array.from(long)
      .slice(0, RANKED_CHARS)
      .join("")
      .match(/zeppelin/g)?.length,
  ).toBe(2);
  const dir = home([long]);
  const ask = { query: "zeppelins", limit: 100 };
  const fresh = async () => {
    const api = openMemory({ home: dir, env: {}, now: () => NOW, drain: "off" });
    try {
      return page((await api.search(ask)).hits);
    } finally {
      api.close();
    }
  };
  const first = await fresh();
  expect(first.some((p) => p.startsWith("long:İ"))).toBe(true);
  const api = openMemory({ home: dir, env: {}, now: () => NOW, drain: "off" });
  try {
    // Enough searches at one state for the recent text to be held, then the same search again.
    let held: string[] = [];
    for (let i = 0; i <= BUILD_AFTER + 1; i++) held = page((await api.search(ask)).hits);
    expect(held).toEqual(first);
  } finally {
    api.close();
  }
});
