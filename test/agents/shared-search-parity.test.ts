// Search in shared mode gives what the embedded home gives on the same messages: the same queries run on both
// (the library, one home each: SQLite and local vectors, PostgreSQL and vectors on S3), and the hits compared in
// order, archived messages included (a small recent tier, so most of them are compacted away).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/lib.ts";
import { openMemory as openHome } from "../../src/app/open-memory.ts";
import { openSharedHome } from "../../src/app/shared/open-shared.ts";
import type { MemoryApi } from "../../src/app/api/memory-api.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";

const describe = describePostgres();
const LIMITS = "[limits]\nmax_history_bytes = 4096\n";

const TOPICS = [
  "use the => arrow function in the callback",
  "run make && make install after configure",
  "the std::vector reallocates past its capacity",
  "the deploy to prod failed with exit 137",
  "postgres connection pool exhausted under load",
  "kubernetes rollout stuck on its readiness probe",
  "we moved the redis cache to a bigger instance",
  "the payment gateway returned a 502",
];
const SENDERS = ["alice", "bob", "carol"];
const START = Date.parse("2026-03-01T09:00:00Z");

/** 96 messages over 24 days in two sessions, three senders taking turns. */
const messages = (session: number) =>
  Array.from({ length: 48 }, (_, k) => {
    const i = k * 2 + session;
    return {
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `${TOPICS[i % TOPICS.length]} (note ${i})`,
      sendAt: new Date(START + i * 6 * 3_600_000).toISOString(),
      sender: SENDERS[i % 3]!,
    };
  });

/** One text said by three senders on three days (a session small enough to stay recent). */
const ZOO = [
  ["alice", "2026-03-10T10:00:00Z"],
  ["bob", "2026-04-10T10:00:00Z"],
  ["carol", "2026-04-20T10:00:00Z"],
].map(([sender, sendAt]) => ({
  role: "user" as const,
  content: "the flamingo exhibit reopened after the storm",
  sendAt: sendAt!,
  sender: sender!,
}));

describe("search parity: shared mode and the embedded home", () => {
  let pg: PgServer;
  let s3: S3Server;
  let embedded: MemoryApi;
  let shared: MemoryApi;
  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startS3Server()]);
    const local = tempHome();
    writeFileSync(join(local, "config.toml"), LIMITS);
    embedded = openMemory({ home: local, env: {} });
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), LIMITS + s3.vectorsToml("parity"));
    shared = openMemory({ home, env: { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("parity") } });
    for (const api of [embedded, shared]) {
      for (const s of [0, 1]) await api.add(`s${s}`, messages(s));
      await api.add("zoo", ZOO);
      for (const [session, sendAt] of [
        ["tie-new", "2026-05-02T10:00:00Z"],
        ["tie-old", "2026-05-01T10:00:00Z"],
      ])
        await api.add(session!, { role: "user", content: "the blue heron nested by the pond", sendAt: sendAt! });
    }
  }, 180_000);
  afterAll(async () => {
    await Promise.all([embedded?.close(), shared?.close()]);
    await Promise.all([pg?.stop(), s3?.stop()]);
    removeTempHomes();
  }, 60_000);

  /** Each hit as its session and text, best first, on each home. */
  const both = async (input: Parameters<MemoryApi["search"]>[0]) => {
    const [e, s] = await Promise.all(
      [embedded, shared].map(async (api) => {
        const r = await api.search(input);
        return r.hits.map((h) => `${h.session} ${h.content}`);
      }),
    );
    return { embedded: e!, shared: s! };
  };

  test("the homes hold the same messages, most of them archived", async () => {
    for (const api of [embedded, shared]) {
      const page = await api.search({ query: "note", limit: 200 });
      expect(page.hits.length).toBe(96);
      expect(page.hits.filter((h) => h.tier === "archive").length).toBeGreaterThan(50);
    }
  });

  test("a query of symbols alone finds the archived messages holding them, newest first", async () => {
    for (const query of ["=>", "&&", "::"]) {
      const { embedded: e, shared: s } = await both({ query, limit: 20 });
      expect({ query, hits: e.length }).toEqual({ query, hits: 12 });
      expect({ query, hits: s }).toEqual({ query, hits: e });
      // Semantic mode: such a query has no word for "no message holds a word of the query" to be about.
      const [se, ss] = await Promise.all(
        [embedded, shared].map(async (api) => {
          const r = await api.search({ query, match: "semantic" });
          return { hits: r.hits.map((h) => h.content), why: r.emptyReason };
        }),
      );
      expect({ query, ...ss }).toEqual({ query, ...se });
    }
  });

  test("a participant named in the query and a date in it rank first, in every mode", async () => {
    const senders = async (input: Parameters<MemoryApi["search"]>[0]) => {
      const [e, s] = await Promise.all(
        [embedded, shared].map(async (api) => (await api.search(input)).hits.map((h) => h.sender)),
      );
      return { embedded: e!, shared: s! };
    };
    // The first: the one named, or the one of the month named; then the others, each by its neighbours' shares.
    const cases = [
      ["what did alice say about the flamingo exhibit", "alice"],
      ["the flamingo exhibit in March 2026", "alice"],
      ["what did bob say about the flamingo exhibit", "bob"],
      ["what did carol say about the flamingo exhibit", "carol"],
    ] as const;
    for (const [query, first] of cases)
      for (const match of ["keyword", "hybrid"] as const) {
        const found = await senders({ query, match, session: "zoo" });
        expect({ query, match, first: found.embedded[0], shared: found.shared }).toEqual({
          query,
          match,
          first,
          shared: found.embedded,
        });
      }
    const query = "what did bob say about the flamingo exhibit";
    const semantic = await senders({ query, match: "semantic", session: "zoo" });
    expect(semantic.embedded[0]).toBe("bob");
    expect(semantic.shared).toEqual(semantic.embedded);
  }, 60_000);

  test("plain queries over both tiers: the same hits in the same order", async () => {
    for (const query of ["deploy prod", "redis cache", "kubernetes rollout", "pool exhausted", "std::vector", "502"]) {
      const { embedded: e, shared: s } = await both({ query, limit: 8 });
      expect({ query, hits: e.length }).toEqual({ query, hits: 8 });
      expect({ query, hits: s }).toEqual({ query, hits: e });
    }
    // Equal scores past the page: the newest sent is on it, though the older was written later.
    const { embedded: e, shared: s } = await both({ query: "blue heron", limit: 1 });
    expect(e).toEqual(["tie-new the blue heron nested by the pond"]);
    expect(s).toEqual(e);
  });

  test("a batch added without times: each message its own, in order, on both", async () => {
    const batch = ["alpha", "bravo", "charlie", "delta"].map((w) => ({
      role: "user" as const,
      content: `the osprey ${w} circled`,
    }));
    for (const api of [embedded, shared]) {
      await api.add("birds", batch);
      const times = (await api.history("birds", { all: true })).messages.map((m) =>
        BigInt(m.sendAt.replace(/\D/g, "")),
      );
      expect(times.every((t, i) => i === 0 || t > times[i - 1]!)).toBe(true);
    }
    // Equal in all but their time: the newest first on both.
    const { embedded: e, shared: s } = await both({ query: "osprey", match: "hybrid", session: "birds" });
    expect(e).toEqual(batch.map((m) => `birds ${m.content}`).reverse());
    expect(s).toEqual(e);
  });

  test("semantic search: equal scores give the newest sent first on both, as keyword search does", async () => {
    for (const limit of [1, 2]) {
      const { embedded: e, shared: s } = await both({ query: "blue heron", match: "semantic", limit });
      expect(e).toEqual(
        ["tie-new the blue heron nested by the pond", "tie-old the blue heron nested by the pond"].slice(0, limit),
      );
      expect({ limit, hits: s }).toEqual({ limit, hits: e });
    }
  });

  test("a semantic query of identifiers only (no word vector) finds the recent messages holding them on both", async () => {
    for (const query of ["postgres", "kubernetes"]) {
      const [e, s] = await Promise.all(
        [embedded, shared].map(async (api) =>
          (await api.search({ query, match: "semantic" })).hits.map((h) => `${h.session} ${h.content}`),
        ),
      );
      expect({ query, some: e!.length > 0, all: e!.every((t) => t.includes(query)) }).toEqual({
        query,
        some: true,
        all: true,
      });
      expect({ query, hits: s }).toEqual({ query, hits: e });
    }
  });

  test("a word still being typed (the terminal UI's search) matches as a prefix in the archive too", async () => {
    // The UI's own options, on the homes' own search (the library's search takes no `typing`).
    const local = tempHome();
    writeFileSync(join(local, "config.toml"), LIMITS);
    const e = openHome({ home: local, env: {} });
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), LIMITS + s3.vectorsToml("typing"));
    const s = await openSharedHome({ home, env: { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("typing") } });
    try {
      for (const [k, session] of ["s0", "s1"].entries()) {
        const list = messages(k).map((m) => ({ ...m, sendAt: BigInt(Date.parse(m.sendAt)) * 1_000_000n }));
        await e.add(session, list);
        await s.add(session, list);
      }
      for (const match of ["keyword", "hybrid"] as const) {
        const options = { query: "kubern", match, typing: true, limit: 20 };
        const held = (hits: { message: { content: string; recent: boolean } }[]) =>
          hits.map((h) => `${h.message.recent ? "recent" : "archive"} ${h.message.content}`).sort();
        const want = held((await e.search(options)).hits);
        if (match === "keyword") expect(want.filter((h) => h.startsWith("archive")).length).toBeGreaterThan(0);
        expect({ match, hits: held((await s.search(options)).hits) }).toEqual({ match, hits: want });
      }
    } finally {
      await e.close();
      await s.close();
    }
  }, 120_000);

  test("a query naming what no message mentions keeps only hits holding most of it by rarity, in hybrid mode", async () => {
    for (const query of ["how does Kafka handle the redis cache", "Kafka redis cache"]) {
      const [e, s] = await Promise.all(
        [embedded, shared].map(async (api) => {
          const r = await api.search({ query, match: "hybrid" });
          return { hits: r.hits.map((h) => `${h.session} ${h.content}`).sort(), why: r.emptyReason };
        }),
      );
      expect({ query, ...s }).toEqual({ query, ...e });
    }
  });

  test("twenty topics said again and again: a query mostly unheld, hybrid neighbours, pages under a named sender or date", async () => {
    // Another pair of homes: twenty topics said again and again by three senders, one of them named in a topic.
    const topics = [
      "the deploy to prod failed with exit 137 because the container ran out of memory",
      "use the => arrow function in the callback instead of function()",
      "run make && make install after configure",
      "the std::vector reallocates when it grows past capacity",
      "postgres connection pool exhausted under load, raise max_connections",
      "kubernetes rollout stuck on readiness probe",
      "the payment service returned HTTP 502 from the gateway",
      "we moved the redis cache to a bigger instance last May",
      "Alice suggested we rotate the API keys every quarter",
      "the cron job for backups runs at 03:00 UTC",
      "terraform state lock held by a crashed runner",
      "C++ templates make the compile slow",
      "put secrets in .env and never commit it",
      "fix for issue #123 is merged",
      "x -> y mapping in the config file",
      "the flaky test in ci passes when run alone",
      "database migration added an index on users.email",
      "we should use async/await rather than raw promises",
      "the TUI pager hangs when the terminal is resized",
      "schedule the retro for next Friday",
    ];
    const lines = Array.from({ length: 240 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `${topics[(i * 7) % topics.length]}${["", " again", " (follow-up)", " today"][i % 4]} #${i}`,
      sendAt: new Date(START + i * 6 * 3_600_000).toISOString(),
      sender: SENDERS[i % 3]!,
    }));
    const local = tempHome();
    writeFileSync(join(local, "config.toml"), LIMITS);
    const e = openMemory({ home: local, env: {} });
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), LIMITS + s3.vectorsToml("unheld"));
    const s = openMemory({ home, env: { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("unheld") } });
    try {
      for (const api of [e, s])
        for (const [k, session] of ["ops", "dev", "team"].entries())
          await api.add(
            session,
            lines.filter((_, i) => i % 3 === k),
          );
      const hits = async (api: MemoryApi, query: string) =>
        (await api.search({ query, match: "semantic" })).hits.map((h) => `${h.session} ${h.content}`);
      // "say" is in no message, "redis" in a tenth of them: the hits must hold redis or be close in their words.
      for (const query of ["what did alice say about redis", "what did bob say about kubernetes"])
        expect({ query, hits: await hits(s, query) }).toEqual({ query, hits: await hits(e, query) });
      // Hybrid: the message after one holding the terms comes with it, by its share (context.ts).
      const hybrid = async (api: MemoryApi) =>
        (await api.search({ query: "redis", match: "hybrid", since: "2026-04-01" })).hits.map(
          (h) => `${h.session} ${h.content}`,
        );
      // A participant or a date named: a short page is the start of a long one (the factors apply past the cut).
      for (const query of ["redis in March 2026", "what did carol say about the deploy to prod"]) {
        const page = async (limit: number) =>
          (await s.search({ query, limit })).hits.map((h) => `${h.session} ${h.content}`);
        const long = await page(10);
        for (const limit of [1, 2, 3])
          expect({ query, limit, hits: await page(limit) }).toEqual({ query, limit, hits: long.slice(0, limit) });
      }
      const lent = await hybrid(e);
      expect(lent).toContain("ops Alice suggested we rotate the API keys every quarter #204");
      expect(await hybrid(s)).toEqual(lent);
    } finally {
      await Promise.all([e.close(), s.close()]);
    }
  }, 120_000);
});
