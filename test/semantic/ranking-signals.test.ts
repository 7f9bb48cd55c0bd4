// Ranking signals beyond the words: the participant a question names, dates and relative time as a soft
// time filter, and conversation context (a reply earns a share of its question's match).
import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { timeHint, timeFactor, TIME_HINT } from "../../src/search/time-hints.ts";
import { SCANNED_TIER, SMALL_TABLE } from "../../src/storage/sqlite/substring-queries.ts";

afterAll(removeTempHomes);

const DAY = 86_400_000_000_000n;
const at = (iso: string) => (BigInt(Date.parse(iso)) * 1_000_000n).toString();
const FILLER = [
  "the printer on the second floor is jammed again",
  "quarterly revenue grew eleven percent in europe",
  "remember to renew the passport next month",
  "our postgres replica lags behind the primary",
];

describe("a participant named in the question", () => {
  test("ranks that participant's own message first, in keyword and hybrid mode", async () => {
    const { api } = openTemp({ drain: "off" });
    api.add("s", [
      {
        role: "user",
        sender: "Melanie",
        content: "Caroline, how is the adoption research? Adoption research takes time.",
      },
      {
        role: "assistant",
        sender: "Caroline",
        content: "I finished my research on adoption agencies, it took me a long while.",
      },
      ...FILLER.map((content) => ({ role: "user" as const, sender: "Melanie", content })),
    ]);
    await api.drainEmbeddings();
    for (const match of ["keyword", "hybrid"] as const) {
      const r = await api.search({ query: "What did Caroline research about adoption?", match });
      expect(r.hits[0]!.message.sender).toBe("Caroline");
      // The other sender's message is kept, below.
      expect(r.hits.some((h) => h.message.sender === "Melanie" && h.message.content.includes("research"))).toBe(true);
    }
    api.close();
  }, 60_000);
});

describe("a participant stored in two cases", () => {
  test("is one participant: their messages in either case rank first, as --sender finds both", async () => {
    const { api } = openTemp({ drain: "off" });
    api.add("s", [
      { role: "user", sender: "Caroline", content: "hello from the phone app" },
      {
        role: "user",
        sender: "Melanie",
        content: "Caroline, how is the adoption research? Adoption research takes time.",
      },
      {
        role: "assistant",
        sender: "caroline",
        content: "I finished my research on adoption agencies, it took me a long while.",
      },
      ...FILLER.map((content) => ({ role: "user" as const, sender: "Melanie", content })),
    ]);
    await api.drainEmbeddings();
    for (const match of ["keyword", "semantic", "hybrid"] as const) {
      const r = await api.search({ query: "What did Caroline research about adoption?", match });
      expect({ match, first: r.hits[0]!.message.sender }).toEqual({ match, first: "caroline" });
    }
    api.close();
  }, 60_000);
});

describe("a participant named in the question, matched by the substring index only", () => {
  test("their message ranks first when the index's matches are read without the whole message", async () => {
    const { api } = openTemp({ drain: "off" });
    const tier = SCANNED_TIER.rows;
    const table = SMALL_TABLE.rows;
    try {
      // "kubernetes" inside longer words: no word of the keyword index, only the substring index finds them.
      api.add("s", [
        { role: "assistant", sender: "Caroline", content: "the mykubernetescluster upgrade is done" },
        ...FILLER.map((content) => ({ role: "user" as const, sender: "Melanie", content })),
        { role: "user", sender: "Melanie", content: "is the mykubernetescluster back?" },
        { role: "user", sender: "Melanie", content: "ourkubernetesnodes look fine" },
      ]);
      // Walked as a large tier and table: the matches come from the index, read light.
      SCANNED_TIER.rows = 0;
      SMALL_TABLE.rows = 0;
      const r = await api.search({ query: "Caroline kubernetes" });
      expect(r.hits.map((h) => h.message.sender)).toEqual(["Caroline", "Melanie", "Melanie"]);
      expect(r.hits[0]!.message.content).toBe("the mykubernetescluster upgrade is done");
    } finally {
      SCANNED_TIER.rows = tier;
      SMALL_TABLE.rows = table;
      api.close();
    }
  });
});

describe("dates and relative time in the question", () => {
  test("parses full dates, months, years and relative time", () => {
    const now = BigInt(Date.UTC(2026, 11, 1)) * 1_000_000n;
    const span = (q: string) => {
      const h = timeHint(q, now);
      if (!h || "month" in h) return h;
      return [
        new Date(Number(h.since / 1_000_000n)).toISOString(),
        new Date(Number(h.until / 1_000_000n)).toISOString(),
      ];
    };
    expect(span("What did Maria do on October 13, 2023?")).toEqual([
      "2023-10-12T00:00:00.000Z",
      "2023-10-15T00:00:00.000Z",
    ]);
    expect(span("what happened on 1 February, 2023")).toEqual(["2023-01-31T00:00:00.000Z", "2023-02-03T00:00:00.000Z"]);
    expect(span("the class she started in December 2023")).toEqual([
      "2023-11-30T00:00:00.000Z",
      "2024-01-02T00:00:00.000Z",
    ]);
    expect(span("camping in June")).toEqual({ month: 5 });
    expect(span("what did we decide last May")).toEqual(["2026-04-30T00:00:00.000Z", "2026-06-02T00:00:00.000Z"]);
    expect(span("the outage two weeks ago")).toEqual(["2026-11-10T00:00:00.000Z", "2026-11-24T00:00:00.000Z"]);
    expect(span("yesterday's deploy")).toEqual(["2026-11-29T00:00:00.000Z", "2026-12-01T00:00:00.000Z"]);
    expect(span("may I ask about the deploy")).toBeUndefined();
    expect(span("deploy server")).toBeUndefined();
    // Each kind without a digit or a month name in it still counts (a quick check skips queries naming no time).
    expect(span("the call a couple of days ago")).toEqual(["2026-11-28T00:00:00.000Z", "2026-11-30T00:00:00.000Z"]);
    expect(span("what changed THIS WEEK")).toEqual(["2026-11-17T00:00:00.000Z", "2026-12-01T00:00:00.000Z"]);
    expect(span("the rollback today")).toEqual(["2026-11-30T00:00:00.000Z", "2026-12-02T00:00:00.000Z"]);
    expect(timeFactor(timeHint("in June", now), BigInt(Date.UTC(2021, 5, 9)) * 1_000_000n)).toBe(1);
    expect(timeFactor(timeHint("in June", now), BigInt(Date.UTC(2021, 6, 9)) * 1_000_000n)).toBe(TIME_HINT.outside);
  });

  test("a named date or relative time narrows softly: the message of that time first, the others still found", async () => {
    const { api } = openTemp({ drain: "off" });
    const now = BigInt(Date.now()) * 1_000_000n;
    api.add("s", [
      { role: "user", content: "we went on a camping trip by the lake", sendAt: at("2023-06-10T12:00:00Z") },
      { role: "user", content: "another camping trip, this time in the mountains", sendAt: at("2023-09-03T12:00:00Z") },
      { role: "user", content: "the camping trip got rained out", sendAt: (now - 14n * DAY).toString() },
      { role: "user", content: "a short camping trip with the kids", sendAt: (now - 2n * DAY).toString() },
      ...FILLER.map((content, i) => ({ role: "user" as const, content, sendAt: at(`2023-0${i + 1}-01T00:00:00Z`) })),
    ]);
    await api.drainEmbeddings();
    const cases: [string, string][] = [
      ["the camping trip in June", "lake"],
      ["the camping trip on September 3, 2023", "mountains"],
      ["the camping trip two weeks ago", "rained out"],
    ];
    for (const match of ["keyword", "hybrid"] as const)
      for (const [query, first] of cases) {
        const r = await api.search({ query, match });
        expect(r.hits[0]!.message.content).toContain(first);
        expect(r.hits.filter((h) => h.message.content.includes("camping")).length).toBe(4);
      }
    api.close();
  }, 60_000);
});

describe("conversation context", () => {
  test("hybrid finds the reply to a matching question; keyword mode only lifts messages that hold a term", async () => {
    const { api } = openTemp({ drain: "off" });
    api.add("s", [
      ...FILLER.map((content) => ({ role: "user" as const, content })),
      { role: "user", content: "What did you paint last weekend?" },
      { role: "assistant", content: "A sunset over the lake, with my kids." },
      { role: "user", content: "I paint every morning before work." },
      { role: "assistant", content: "Nice, my neighbour paints too." },
      ...FILLER.map((content) => ({ role: "assistant" as const, content: `${content}!` })),
    ]);
    await api.drainEmbeddings();
    const hybrid = await api.search({ query: "painting", match: "hybrid" });
    // The reply holds no form of the word: the lexical tier found it through the question before it.
    const reply = hybrid.hits.find((h) => h.message.content.startsWith("A sunset"));
    expect(reply?.foundBy).toContain("recent");
    const keyword = await api.search({ query: "painting", match: "keyword" });
    expect(keyword.hits.length).toBe(3);
    for (const h of keyword.hits) expect(h.message.content.toLowerCase()).toContain("paint");
    api.close();
  }, 60_000);
});
