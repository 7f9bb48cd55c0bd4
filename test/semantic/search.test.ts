// Semantic and hybrid search: expansion boundaries and merging, ranks and scores, time range, stale-free
// results, and hybrid keeping what only one side finds.
import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { expandHits } from "../../src/search/expand.ts";
import { queryFocus } from "../../src/search/participants.ts";
import { nsToRfc3339 } from "../../src/shared/time.ts";
import { config, contextFor, NS_PER_DAY } from "../fixture/semantic-home.ts";
import { listSessionMessages } from "../../src/storage/sqlite/messages-repo.ts";

afterAll(removeTempHomes);

const TOPICS = [
  "the kubernetes cluster ran out of memory during the deploy",
  "my grandmother bakes sourdough bread every sunday",
  "we should book the flight to lisbon before prices rise",
  "the violin lesson moved to thursday afternoon",
  "quarterly revenue grew eleven percent in europe",
  "the cat knocked the coffee mug off the desk",
  "remember to renew the passport next month",
  "the garden tomatoes finally turned red",
  "our postgres replica lags behind the primary",
  "the marathon training plan peaks at thirty kilometres",
];

function seeded(limits: Record<string, unknown> = {}) {
  const t = openTemp({ drain: "off", config: config({ limits }) });
  const ids = t.api.add(
    "s",
    TOPICS.map((content, i) => ({ role: i % 2 ? ("assistant" as const) : ("user" as const), content })),
  ).ids;
  return { ...t, ids };
}

describe("semantic search", () => {
  test("a home whose every session was removed says nothing is indexed, as a new home does", async () => {
    const { api } = seeded();
    expect((await api.search({ query: "deploy", match: "semantic" })).emptyReason).toBe("nothing is indexed yet");
    await api.drainEmbeddings();
    expect((await api.search({ query: TOPICS[0]!, match: "semantic" })).hits.length).toBeGreaterThan(0);
    api.remove("s");
    const after = await api.search({ query: TOPICS[0]!, match: "semantic" });
    expect(after.hits).toEqual([]);
    expect(after.emptyReason).toBe("nothing is indexed yet");
    api.close();
  });

  test("a session none of whose messages has its vector yet says nothing is indexed, not that nothing is close", async () => {
    const { api } = seeded();
    await api.drainEmbeddings();
    api.add(
      "t",
      TOPICS.map((content) => ({ role: "user" as const, content })),
    );
    const waiting = await api.search({ query: TOPICS[0]!, session: "t", match: "semantic" });
    expect(waiting.hits).toEqual([]);
    expect(waiting.notIndexed).toBe(10);
    expect(waiting.emptyReason).toBe("nothing is indexed yet");
    // Elsewhere the vectors are there: an empty answer there is about closeness.
    const far = await api.search({ query: "xyzzy plugh", session: "s", match: "semantic" });
    expect(far.emptyReason).toStartWith("no close matches");
    api.close();
  });

  test("a message said many times: the newest instances first, and a short page is the start of a long one", async () => {
    const { api } = seeded();
    for (let i = 0; i < 8; i++)
      api.add("r", [
        { role: "user", content: "please deploy the payment service now", sendAt: BigInt(i + 1) * NS_PER_DAY * 2n },
        {
          role: "assistant",
          content: "Deployed payment-service; the rollout finished",
          sendAt: (BigInt(i + 1) * 2n + 1n) * NS_PER_DAY,
        },
      ]);
    await api.drainEmbeddings();
    for (const match of ["semantic", "hybrid"] as const) {
      const search = async (limit: number) =>
        (await api.search({ query: "payment-service rollout", session: "r", match, limit })).hits;
      const long = await search(20);
      const replies = long.filter((h) => h.message.role === "assistant");
      expect(replies.length).toBe(8);
      // The newest reply first (in hybrid, the last message of a session lacks the share a reply after it lends).
      if (match === "semantic") expect(long[0]!.message.sendAt).toBe(17n * NS_PER_DAY);
      for (const limit of [1, 2, 3]) {
        const page = (await search(limit)).map((h) => h.message.id);
        expect({ match, limit, page }).toEqual({ match, limit, page: long.slice(0, limit).map((h) => h.message.id) });
      }
    }
    api.close();
  });

  test("first and last message: expansion stops at the session's edges; ranks and scores kept", async () => {
    const { api, ids } = seeded();
    await api.drainEmbeddings();
    const first = await api.search({ query: TOPICS[0]!, session: "s", match: "semantic", limit: 1 });
    expect(first.hits[0]!.message.id).toBe(ids[0]!);
    expect(first.hits[0]!.context!.map((m) => m.id)).toEqual(ids.slice(0, 2));
    const last = await api.search({ query: TOPICS[9]!, session: "s", match: "semantic", limit: 1 });
    expect(last.hits[0]!.message.id).toBe(ids[9]!);
    expect(last.hits[0]!.context!.map((m) => m.id)).toEqual(ids.slice(7, 10));
    const one = await api.search({ query: TOPICS[5]!, session: "s", match: "semantic", limit: 1 });
    expect(one.hits[0]!.context!.map((m) => m.id)).toEqual(ids.slice(3, 7));
    const mid = await api.search({ query: TOPICS[5]!, session: "s", match: "semantic", limit: 3 });
    expect(mid.hits[0]!.message.id).toBe(ids[5]!);
    for (const h of mid.hits) expect(h.context!.map((m) => m.id)).toContain(h.message.id);
    // Unrelated topics fall below the relevance cutoff; what is left is ranked 1, 2, …
    expect(mid.hits.map((h) => h.rank)).toEqual(mid.hits.map((_, i) => i + 1));
    expect(mid.hits.every((h) => h.source === "semantic")).toBe(true);
    const scores = mid.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBeGreaterThan(0.5);
    expect(mid.notIndexed).toBe(0);
    expect(mid.reindexNeeded).toBe(false);
    api.close();
  });

  test("overlapping expansions merge into one run; separate ones stay apart", () => {
    const { home, api } = seeded();
    const ctx = contextFor(home);
    const all = listSessionMessages(ctx.db, "s");
    const [a, b] = expandHits(ctx.db, [all[4]!, all[6]!]);
    expect(a!.map((m) => m.content)).toEqual(TOPICS.slice(2, 8));
    expect(b).toBe(a);
    const [c, d] = expandHits(ctx.db, [all[1]!, all[8]!]);
    expect(c!.map((m) => m.content)).toEqual(TOPICS.slice(0, 3));
    expect(d!.map((m) => m.content)).toEqual(TOPICS.slice(6, 10));
    // Touching but not overlapping runs (0-2 and 3-5... here 1 -> [0..2], 4 -> [2..5]) share message 2.
    const [e, f] = expandHits(ctx.db, [all[1]!, all[4]!]);
    expect(e).toBe(f);
    expect(e!.map((m) => m.content)).toEqual(TOPICS.slice(0, 6));
    ctx.db.close();
    api.close();
  });

  test("the time range is honoured", async () => {
    const { api } = openTemp({ drain: "off" });
    const now = BigInt(Date.now()) * 1_000_000n;
    const old = api.add("s", {
      role: "user",
      content: "the heating in the office is broken again",
      sendAt: nsToRfc3339(now - 40n * NS_PER_DAY),
    }).ids[0];
    const fresh = api.add("s", {
      role: "user",
      content: "the office heating is broken again today",
      sendAt: nsToRfc3339(now - 2n * NS_PER_DAY),
    }).ids[0];
    await api.drainEmbeddings();
    const week = await api.search({ query: "office heating broken", match: "semantic", range: "7d" });
    expect(week.hits.map((h) => h.message.id)).toEqual([fresh!]);
    const all = await api.search({ query: "office heating broken", match: "semantic", range: "all" });
    expect(all.hits.map((h) => h.message.id).sort()).toEqual([old!, fresh!].sort());
    const hybridWeek = await api.search({ query: "office heating broken", match: "hybrid", range: "7d" });
    expect(hybridWeek.hits.map((h) => h.message.id)).toEqual([fresh!]);
    api.close();
  });

  test("messages not embedded yet are counted and still found by hybrid", async () => {
    const { api, ids } = seeded();
    const r = await api.search({ query: "postgres replica lag", session: "s", match: "semantic" });
    expect(r.hits).toEqual([]);
    expect(r.notIndexed).toBe(10);
    expect(r.notes).toContain(
      "10 messages are not indexed yet: run memvoy reindex --pending, or start the daemon (memvoy --daemon)",
    );
    const h = await api.search({ query: "postgres replica lag", session: "s", match: "hybrid" });
    expect(h.hits[0]!.message.id).toBe(ids[8]!);
    api.close();
  });

  test("stale vectors at the top of the vector order: the hits are the next ones, as ranked before", async () => {
    const { api } = openTemp({ drain: "off" });
    api.add(
      "a",
      Array.from({ length: 12 }, (_, i) => ({
        role: "user" as const,
        content: `the billing deploy broke at step ${i}`,
      })),
    );
    api.add("b", [
      ...Array.from({ length: 8 }, (_, i) => ({
        role: "assistant" as const,
        content: `billing deploy failed again on attempt ${i}, rolling back`,
      })),
      ...TOPICS.map((content) => ({ role: "user" as const, content })),
    ]);
    await api.drainEmbeddings();
    const query = "the billing deploy broke at step";
    const before = await api.search({ query, match: "semantic", limit: 30 });
    // The 10 rows read first (limit 5 + 5) are all session a's, so the rest must be read after the reset.
    expect(before.hits.slice(0, 12).map((h) => h.message.session)).toEqual(Array(12).fill("a"));
    api.reset("a");
    const after = await api.search({ query, match: "semantic", limit: 5 });
    const expected = before.hits.filter((h) => h.message.session === "b").slice(0, 5);
    expect(expected).toHaveLength(5);
    expect(after.hits.map((h) => [h.message.id, h.score, h.rank])).toEqual(
      expected.map((h, i) => [h.message.id, h.score, i + 1]),
    );
    api.close();
  });

  test("--role finds the role's messages behind hundreds of closer ones of the other role", async () => {
    const { api } = openTemp({ drain: "off", config: config({}) });
    const others = Array.from({ length: 600 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `${TOPICS[i % TOPICS.length]} (note ${i})`,
    }));
    const replies = Array.from({ length: 250 }, (_, i) => ({
      role: "assistant" as const,
      content: `the payment service deploy failed again, attempt ${i}`,
    }));
    const asked = Array.from({ length: 3 }, (_, i) => ({
      role: "user" as const,
      content: `why does the payment deploy keep failing ${i}`,
    }));
    api.add("s", [...others, ...replies, ...asked]);
    await api.drainEmbeddings();
    const query = "the payment service deploy failed";
    const users = await api.search({ query, match: "semantic", role: "user" });
    expect(users.hits.every((h) => h.message.role === "user")).toBe(true);
    expect(
      users.hits
        .slice(0, 3)
        .map((h) => h.message.content)
        .sort(),
    ).toEqual(asked.map((m) => m.content));
    const assistants = await api.search({ query, match: "semantic", role: "assistant", limit: 5 });
    expect(assistants.hits).toHaveLength(5);
    expect(assistants.hits.every((h) => h.message.role === "assistant")).toBe(true);
    api.close();
  }, 60_000);

  test("--sender finds the sender's messages behind hundreds of closer ones of others", async () => {
    const { api } = openTemp({ drain: "off", config: config({}) });
    const others = Array.from({ length: 600 }, (_, i) => ({
      role: "user" as const,
      sender: "bob",
      content: `${TOPICS[i % TOPICS.length]} (note ${i})`,
    }));
    const bobs = Array.from({ length: 250 }, (_, i) => ({
      role: "user" as const,
      sender: "bob",
      content: `the payment service deploy failed again, attempt ${i}`,
    }));
    const alices = Array.from({ length: 3 }, (_, i) => ({
      role: "user" as const,
      sender: "Alice",
      content: `why does the payment deploy keep failing ${i}`,
    }));
    api.add("s", [...others, ...bobs, ...alices]);
    await api.drainEmbeddings();
    const query = "the payment service deploy failed";
    const found = await api.search({ query, match: "semantic", sender: "alice" });
    expect(found.hits.map((h) => h.message.content).sort()).toEqual(alices.map((m) => m.content));
    const none = await api.search({ query, match: "semantic", sender: "carol" });
    expect(none.hits).toEqual([]);
    api.close();
  }, 60_000);

  test("a reset message never surfaces, even before its vector is deleted", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s", { role: "user", content: "the secret launch codename is bluebird" });
    await api.drainEmbeddings();
    api.reset("s");
    const r = await api.search({ query: "launch codename bluebird", match: "semantic" });
    expect(r.hits).toEqual([]);
    // The vector is still stored until the next drain applies the deletion.
    const { vectorIds } = await import("../fixture/semantic-home.ts");
    expect(await vectorIds(home)).toHaveLength(1);
    api.close();
  });
});

describe("hybrid search", () => {
  test("finds what only keyword finds (archive tier) and what only semantic finds (a paraphrase)", async () => {
    const { api } = openTemp({ drain: "off", config: config({ limits: { max_history_bytes: 4096 } }) });
    const archived = api.add("s", { role: "user", content: "the wifi password is zanzibar42" }).ids[0];
    for (let i = 0; i < 30; i++)
      api.add("s", {
        role: i % 2 ? "user" : "assistant",
        content: `filler turn ${i} about nothing in particular, ${"blah ".repeat(20)}`,
      });
    const para = api.add("s", { role: "user", content: "my puppy has been ill since yesterday" }).ids[0];
    await api.drainEmbeddings();

    const kw = await api.search({ query: "zanzibar42", match: "keyword" });
    expect(kw.hits.map((h) => [h.message.id, h.source])).toEqual([[archived!, "archive"]]);
    const sem = await api.search({ query: "zanzibar42", match: "semantic" });
    expect(sem.hits.map((h) => h.message.id)).not.toContain(archived!);
    const h1 = await api.search({ query: "zanzibar42", match: "hybrid" });
    expect(h1.hits[0]).toMatchObject({ source: "archive", message: { id: archived } });
    expect(h1.hits[0]!.context).toBeUndefined();

    expect((await api.search({ query: "sick dog", match: "keyword" })).hits).toEqual([]);
    const h2 = await api.search({ query: "sick dog", match: "hybrid", limit: 3 });
    expect(h2.hits[0]).toMatchObject({ source: "semantic", message: { id: para } });
    expect(h2.hits[0]!.context!.map((m) => m.id)).toContain(para!);
    api.close();
  });

  test("keeps what the recent tier finds inside a longer word, as keyword search does", async () => {
    const { api } = openTemp({ drain: "off", config: config() });
    const [envloader, psycopg] = api.add("s", [
      { role: "user", content: "Use `require('envloader').config()` at the top of index.js" },
      { role: "assistant", content: "Install the binary wheel: `pip install psycopg2-binary==2.9.9`" },
      { role: "user", content: "The OOM killer took down postgres at 3am" },
    ]).ids;
    await api.drainEmbeddings();
    for (const [query, id] of [
      ["envloader", envloader],
      ["psycopg", psycopg],
      ["gres", api.history("s", { all: true })[2]!.id],
    ] as const) {
      const keyword = await api.search({ query, match: "keyword" });
      expect(keyword.hits.map((h) => h.message.id)).toEqual([id!]);
      const hybrid = await api.search({ query, match: "hybrid" });
      expect(hybrid.hits.map((h) => h.message.id)).toContain(id!);
      expect(hybrid.emptyReason).toBeUndefined();
    }
    api.close();
  });

  test("a pasted log of a thousand distinct words is searched by its first ones, without an error", async () => {
    const { api } = openTemp({ drain: "off", config: config() });
    api.add("s", { role: "user", content: "The deploy failed with a NullPointerException in InvoiceHandler" });
    await api.drainEmbeddings();
    const words = Array.from({ length: 1000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
    const pasted = `NullPointerException in InvoiceHandler ${words.join(" ")}`;
    for (const match of ["keyword", "hybrid", "semantic"] as const) {
      const r = await api.search({ query: pasted, match });
      expect(Array.isArray(r.hits)).toBe(true);
    }
    api.close();
  });
});

test("a participant named in the query becomes a sender preference", () => {
  expect(queryFocus("What did Caroline research?", ["Caroline", "Melanie"])).toEqual({
    text: "What did research?",
    sender: "Caroline",
  });
  expect(queryFocus("When did Caroline's sister visit Melanie?", ["Caroline", "Melanie"])).toEqual({
    text: "When did sister visit ?",
  });
  expect(queryFocus("Caroline", ["Caroline"])).toEqual({ text: "Caroline", sender: "Caroline" });
  expect(queryFocus("carolines research", ["Caroline"])).toEqual({ text: "carolines research" });
});

test("a participant is named in any case the Unicode case folding allows", () => {
  const named = (query: string, sender: string) => queryFocus(query, [sender]).sender === sender;
  expect(named("what did \u1E9ETRA\u1E9EE say", "\u00DFtra\u00DFe")).toBe(true); // ẞ and ß
  expect(named("\u212Aim said so", "kim")).toBe(true); // the Kelvin sign
  expect(named("\u03A3\u0391\u03A3's team", "\u03C3\u03B1\u03C2")).toBe(true); // a final sigma
  expect(named("what did JOSÉ say", "josé")).toBe(true);
  expect(named("what did anastasia say", "ana")).toBe(false);
  expect(named("STRASSE", "Straße")).toBe(false); // one letter is never two
});

test("the senders a search knows are read again once the home is written", async () => {
  const t = openTemp({ drain: "off" });
  t.api.add("team", [{ role: "user", content: "the deploy is done", sender: "Ana" }]);
  expect((await t.api.search({ query: "what did Ana say about the deploy" })).hits).toHaveLength(1);
  // Bo speaks: a query naming Bo prefers Bo's message (the others' scores scaled down), once Bo is known.
  t.api.add("team", [{ role: "user", content: "no, the deploy failed", sender: "Bo" }]);
  for (const session of [undefined, "team"]) {
    const hits = (await t.api.search({ query: "what did Bo say about the deploy", session })).hits;
    expect(hits[0]!.message.sender).toBe("Bo");
    expect(hits[1]!.score).toBeLessThan(hits[0]!.score * 0.9);
  }
});
