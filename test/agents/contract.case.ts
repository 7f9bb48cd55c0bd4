// The MemoryApi contract: the same cases run against every implementation (local, HTTP client).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { InputError, UsageError, type MemoryApi } from "../../src/lib.ts";
import { TOOLS } from "../../src/mcp/tools.ts";

export interface Implementation {
  api: MemoryApi;
  close(): Promise<void>;
}

const RFC3339_NS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;

async function refused(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return (err as Error).message;
}

const roundTrips = (v: unknown) => expect(JSON.parse(JSON.stringify(v))).toEqual(v);

export function contractCases(name: string, open: () => Promise<Implementation>): void {
  describe(`MemoryApi contract: ${name}`, () => {
    let impl: Implementation;
    let api: MemoryApi;
    let ids: string[];

    beforeAll(async () => {
      impl = await open();
      api = impl.api;
      const r = await api.add("deploys", [
        {
          role: "user",
          content: "the deploy to prod failed with exit 137",
          sendAt: "2026-03-01T10:00:00.000000001Z",
          sender: "ann",
        },
        { role: "assistant", content: "137 is the OOM killer: raise the memory limit", sendAt: "2026-03-01T10:00:05Z" },
        {
          role: "user",
          content: "raised limits.memory to 1Gi and the rollout finished",
          sendAt: "2026-03-01T10:10:00Z",
        },
        { role: "assistant", content: "good, the container is healthy now", sendAt: "2026-03-01T10:11:00Z" },
      ]);
      ids = r.ids;
      await api.add("other", { role: "user", content: "部署失敗了 the kubernetes pod was evicted" });
    }, 120_000);
    afterAll(async () => impl.close(), 60_000);

    test("add returns the session and one id per message, in order", async () => {
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
      const one = await api.add("single", { role: "user", content: "one message" });
      expect(one).toEqual({ session: "single", ids: [one.ids[0]!], duplicates: 0 });
    });

    test("add with an idempotency key: a retry returns the stored id and stores nothing twice", async () => {
      const first = await api.add("retries", { role: "user", content: "sent once", idempotencyKey: "turn-1" });
      const again = await api.add("retries", [
        { role: "user", content: "sent once", idempotencyKey: "turn-1" },
        { role: "assistant", content: "answered", idempotencyKey: "turn-2" },
      ]);
      expect(again.ids[0]).toBe(first.ids[0]!);
      expect(again.duplicates).toBe(1);
      const h = await api.history("retries");
      expect(h.messages.map((m) => m.content)).toEqual(["sent once", "answered"]);
      await api.rm("retries");
    });

    test("add giving one idempotency key to two different messages refuses the batch and stores none of it", async () => {
      const message = await refused(
        api.add("key-reused", [
          { role: "user", content: "the first question", idempotencyKey: "turn-1" },
          { role: "assistant", content: "an answer" },
          { role: "user", content: "another question", idempotencyKey: "turn-1" },
        ]),
      );
      expect(message).toBe(
        'message 3: idempotencyKey "turn-1" is also on message 1, for another message; nothing was written (a key names one message)',
      );
      await refused(api.history("key-reused"));
    });

    test('add with the key of a removed message: not stored again, counted as removed, its id ""', async () => {
      const first = await api.add("removed-keys", { role: "user", content: "a secret", idempotencyKey: "k1" });
      await api.rmMessage(first.ids[0]!);
      const again = await api.add("removed-keys", [
        { role: "user", content: "a secret", idempotencyKey: "k1" },
        { role: "assistant", content: "kept", idempotencyKey: "k2" },
        { role: "assistant", content: "kept", idempotencyKey: "k2" },
      ]);
      expect(again).toEqual({
        session: "removed-keys",
        ids: ["", again.ids[1]!, again.ids[1]!],
        duplicates: 1,
        removed: 1,
      });
      expect(again.ids[1]).not.toBe("");
      const h = await api.history("removed-keys");
      expect(h.messages.map((m) => m.content)).toEqual(["kept"]);
      await api.rm("removed-keys");
    });

    test("history: the window in order, times RFC 3339 with 9 digits, plain JSON", async () => {
      const h = await api.history("deploys");
      roundTrips(h);
      expect(h.session).toBe("deploys");
      expect(h.messages.map((m) => m.id)).toEqual(ids);
      expect(h.messages[0]).toMatchObject({
        role: "user",
        sender: "ann",
        sendAt: "2026-03-01T10:00:00.000000001Z",
        tier: "recent",
      });
      for (const m of h.messages) expect(m.sendAt).toMatch(RFC3339_NS);
      expect((await api.history("deploys", { last: 2 })).messages.map((m) => m.id)).toEqual(ids.slice(2));
      expect((await api.history("deploys", { all: true })).messages).toHaveLength(4);
      // As `history --last N` takes it.
      expect((await api.history("deploys", { last: 20_000 })).messages).toHaveLength(4);
    });

    test("sessions: count and last activity, newest first or by name", async () => {
      const list = await api.sessions({ sort: "name" });
      roundTrips(list);
      expect(list.map((s) => s.id)).toEqual(["deploys", "other", "single"]);
      expect(list[0]).toMatchObject({
        id: "deploys",
        messages: 4,
        lastActivity: "2026-03-01T10:11:00.000000000Z",
        hasSummary: false,
      });
    });

    test("search, keyword: the DESIGN hit shape", async () => {
      const r = await api.search({ query: "deploy failed", match: "keyword" });
      roundTrips(r);
      expect(r.query).toBe("deploy failed");
      expect(r.hits[0]).toMatchObject({ id: ids[0], session: "deploys", role: "user", source: "recent" });
      expect(typeof r.hits[0]!.score).toBe("number");
      expect(r.hits[0]!.sendAt).toMatch(RFC3339_NS);
      expect((await api.search({ query: "部署", match: "keyword" })).hits.map((h) => h.session)).toEqual(["other"]);
      expect((await api.search({ query: "deploy", match: "keyword", session: "other" })).hits).toEqual([]);
    });

    test("search, keyword: text in full-width or half-width forms is found by the query typed the same way", async () => {
      const written = ["ＡＰＩキーを更新した", "ｶﾀｶﾅ のログ", "ＤＥＰＬＯＹ ok", "チケット＃１２３を閉じた"];
      await api.add(
        "widths",
        written.map((content) => ({ role: "user" as const, content })),
      );
      try {
        for (const [query, content] of [
          ["ＡＰＩ", written[0]],
          ["ＡＰＩキー", written[0]],
          ["ｶﾀｶﾅ", written[1]],
          ["ｶﾀ", written[1]],
          ["ＤＥＰＬＯＹ", written[2]],
          ["ｄｅｐｌｏｙ", written[2]],
          ["＃１２３", written[3]],
        ] as const) {
          const r = await api.search({ query, match: "keyword", limit: 50 });
          // The NFKC form finds more (ＤＥＰＬＯＹ finds "deploy" too); the text as written must be among the hits.
          expect({ query, found: r.hits.some((h) => h.content === content) }).toEqual({ query, found: true });
        }
      } finally {
        await api.rm("widths");
      }
    });

    test("search, keyword: a word typed without its accents finds it written with them, and the other way round", async () => {
      await api.add("accents", [
        { role: "user", content: "a naïve retry loop" },
        { role: "assistant", content: "attach your résumé" },
        { role: "user", content: "resume the upload" },
      ]);
      try {
        for (const [query, want] of [
          ["naive", ["a naïve retry loop"]],
          ["Naive", ["a naïve retry loop"]],
          ["resume", ["attach your résumé", "resume the upload"]],
          ["résumé", ["attach your résumé", "resume the upload"]],
        ] as const) {
          const r = await api.search({ query, match: "keyword", session: "accents" });
          expect({ query, found: r.hits.map((h) => h.content).sort() }).toEqual({ query, found: [...want] });
        }
      } finally {
        await api.rm("accents");
      }
    });

    test("search, keyword and hybrid: a fragment inside a word, in any case, finds the recent messages holding it", async () => {
      for (const [query, session, want] of [
        ["netes", undefined, ["部署失敗了 the kubernetes pod was evicted"]],
        ["NETES evic", undefined, ["部署失敗了 the kubernetes pod was evicted"]],
        ["ploy", "deploys", ["the deploy to prod failed with exit 137"]],
        ["ollou", "deploys", ["raised limits.memory to 1Gi and the rollout finished"]],
      ] as const) {
        const r = await api.search({ query, match: "keyword", ...(session ? { session } : {}) });
        expect({ query, found: r.hits.map((h) => h.content) }).toEqual({ query, found: [...want] });
        // Hybrid keeps it too, as a hit holding the query's terms (semantic neighbours may come with it).
        const h = await api.search({ query, match: "hybrid", ...(session ? { session } : {}) });
        expect({ query, hybrid: h.hits.find((x) => x.content === want[0])?.score }).toEqual({ query, hybrid: 1 });
      }
    });

    test("search, keyword and hybrid: a query of symbols alone finds the recent messages holding them", async () => {
      const written = ["use the => arrow, then a && b", "the ?? operator", "keys in ~/.ssh/config"] as const;
      await api.add(
        "symbols",
        written.map((content) => ({ role: "user" as const, content })),
      );
      try {
        for (const [query, want] of [
          ["=>", written[0]],
          ["&&", written[0]],
          ["??", written[1]],
          ["~/", written[2]],
        ] as const) {
          for (const match of ["keyword", "hybrid"] as const) {
            const r = await api.search({ query, match, session: "symbols" });
            expect({ query, match, found: r.hits.map((h) => h.content) }).toEqual({ query, match, found: [want] });
          }
        }
      } finally {
        await api.rm("symbols");
      }
    });

    test("search, semantic: a fragment inside a word is no word of the memory's (the cut of a query none holds)", async () => {
      for (const query of ["ubern", "ploy"]) {
        const r = await api.search({ query, match: "semantic" });
        expect({ query, hits: r.hits.map((h) => [h.content, h.score]) }).toEqual({ query, hits: [] });
      }
    });

    test("search, semantic and hybrid: hits with their expanded context", async () => {
      const s = await api.search({ query: "container killed out of memory", match: "semantic", session: "deploys" });
      roundTrips(s);
      expect(s.hits.length).toBeGreaterThan(0);
      expect(s.hits[0]!.source).toBe("semantic");
      expect(s.hits[0]!.context!.some((c) => c.hit)).toBe(true);
      const h = await api.search({ query: "memory limit", match: "hybrid" });
      expect(h.hits.map((x) => x.id)).toContain(ids[1]!);
      // Every semantic and hybrid hit carries its 1-based rank, keyword-found or not.
      expect(h.hits.map((x) => x.rank)).toEqual(h.hits.map((_, i) => i + 1));
      expect(s.hits.map((x) => x.rank)).toEqual(s.hits.map((_, i) => i + 1));
    });

    test("search, hybrid: a hit's score is its relevance in [0, 1], 1 for a message holding every term", async () => {
      const h = await api.search({ query: "memory limit", match: "hybrid", session: "deploys" });
      const score = (id: string) => h.hits.find((x) => x.id === id)?.score;
      expect([score(ids[1]!), score(ids[2]!)]).toEqual([1, 1]);
      for (const hit of h.hits) expect(hit.score).toBeGreaterThanOrEqual(0);
      for (const hit of h.hits) expect(hit.score).toBeLessThanOrEqual(1);
    });

    test("search, keyword: of a message said many times, a short page holds the newest, the start of a long page", async () => {
      const sent = [1, 2, 3, 4, 5, 6].map((d) => `2026-02-0${d}T12:00:00Z`);
      const added = await api.add(
        "repeats",
        sent.map((sendAt) => ({ role: "assistant" as const, content: "the nightly rollout finished", sendAt })),
      );
      const page = async (limit: number) =>
        (await api.search({ query: "nightly rollout", match: "keyword", session: "repeats", limit })).hits.map(
          (h) => h.id,
        );
      const long = await page(10);
      expect(long[0]).toBe(added.ids.at(-1)!);
      for (const limit of [1, 2, 3]) expect(await page(limit)).toEqual(long.slice(0, limit));
    });

    test("search: since and until bound the hits", async () => {
      const r = await api.search({
        query: "the",
        match: "keyword",
        session: "deploys",
        since: "2026-03-01T10:05:00Z",
        until: "2026-03-01T10:10:30Z",
      });
      expect(r.hits.map((h) => h.id)).toEqual([ids[2]!]);
      for (const match of ["semantic", "hybrid"] as const) {
        const w = await api.search({
          query: "the container memory limit",
          match,
          session: "deploys",
          since: "2026-03-01T10:00:01Z",
          until: "2026-03-01T10:10:30Z",
          limit: 10,
        });
        expect(w.hits.length).toBeGreaterThan(0);
        for (const h of w.hits) expect([ids[1], ids[2]]).toContain(h.id);
      }
      expect(await refused(api.search({ query: "x", since: "last tuesday" }))).toContain("since");
    });

    test("search: since and until take the CLI's forms (today, yesterday, 3d, a date alone as until is its end)", async () => {
      await api.add("timely", { role: "user", content: "the falcon launch checklist" });
      const d = new Date();
      const today = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
      const found = async (bounds: { since?: string; until?: string }) =>
        (await api.search({ query: "falcon", match: "keyword", ...bounds })).hits.length;
      expect(await found({ until: today })).toBe(1);
      expect(await found({ since: today, until: today })).toBe(1);
      for (const since of ["today", "yesterday", "3d", "12h", "2w"]) expect(await found({ since })).toBe(1);
      expect(await found({ until: "today" })).toBe(1);
      expect(await found({ until: "yesterday" })).toBe(0);
      expect(await refused(api.search({ query: "x", until: "someday" }))).toStartWith(
        `invalid search: until "someday"`,
      );
    });

    test("search: since and until given the wrong way round are refused, naming them as given", async () => {
      for (const [since, until] of [
        ["2026-04-01", "2026-03-01"],
        ["today", "3d"],
        ["2026-03-01T10:10:00Z", "2026-03-01T10:00:00Z"],
      ] as const) {
        expect(await refused(api.search({ query: "deploy", since, until }))).toBe(
          `--since ${JSON.stringify(since)} is not before --until ${JSON.stringify(until)}: no message can fall between them (are the two swapped?)`,
        );
      }
    });

    test("search: when messages hold the terms (or are close to the query) but the time range leaves them all out, emptyReason says so", async () => {
      await api.add("timely-2", { role: "user", content: "the osprey landing checklist" });
      const out = await api.search({ query: "osprey", match: "keyword", until: "2000-01-01" });
      expect(out.hits).toEqual([]);
      expect(out.emptyReason).toBe("messages hold the query's terms, but none falls in the time range");
      const none = await api.search({ query: "zeppelinish", match: "keyword", until: "2000-01-01" });
      expect(none.emptyReason).toBe("no message holds the query's terms");
      const hybrid = await api.search({ query: "osprey", match: "hybrid", until: "2000-01-01" });
      expect(hybrid.emptyReason).toBe("messages hold the query's terms, but none falls in the time range");
      const query = "container killed out of memory";
      expect((await api.search({ query, match: "semantic", session: "deploys" })).hits.length).toBeGreaterThan(0);
      const semantic = await api.search({ query, match: "semantic", session: "deploys", until: "2000-01-01" });
      expect(semantic.hits).toEqual([]);
      expect(semantic.emptyReason).toBe("messages are close to the query, but none falls in the time range");
    });

    test("search of one session: when only other sessions hold the query's terms, emptyReason says how many", async () => {
      await api.add("walrus-1", { role: "user", content: "the walrus migration to postgres is done" });
      await api.add("walrus-2", { role: "user", content: "postgres walrus backups run nightly" });
      await api.add("walrus-3", { role: "user", content: "nothing about databases here" });
      const keyword = await api.search({ query: "walrus postgres", match: "keyword", session: "walrus-3" });
      expect([keyword.hits, keyword.emptyReason]).toEqual([
        [],
        "no message in session walrus-3 holds the query's terms (2 other sessions do)",
      ]);
      const one = await api.search({ query: "migration", match: "keyword", session: "walrus-3" });
      expect(one.emptyReason).toBe("no message in session walrus-3 holds the query's terms (1 other session does)");
      const hybrid = await api.search({ query: "walrus postgres", match: "hybrid", session: "walrus-3" });
      expect([hybrid.hits, hybrid.emptyReason]).toEqual([
        [],
        "no message in session walrus-3 holds the query's terms and nothing is semantically close (2 other sessions hold the query's terms)",
      ]);
      const semantic = await api.search({ query: "walrus", match: "semantic", session: "walrus-3" });
      expect(semantic.hits).toEqual([]);
      expect(semantic.emptyReason).toStartWith("no close matches in session walrus-3 (");
      expect(semantic.emptyReason).toEndWith("); 2 other sessions hold the query's terms");
      const none = await api.search({ query: "zeppelinish", match: "keyword", session: "walrus-3" });
      expect(none.emptyReason).toBe("no message holds the query's terms");
      const filtered = await api.search({
        query: "walrus",
        match: "keyword",
        session: "walrus-1",
        until: "2000-01-01",
      });
      expect(filtered.emptyReason).toBe("messages hold the query's terms, but none falls in the time range");
    });

    test("search: when no message holds a symbol piece of the query as written, emptyReason names it", async () => {
      await api.add("timely-3", {
        role: "user",
        content: "ERR_REQUIRE_ESM from /usr/lib/node_modules/eslint/bin/eslint.js",
      });
      for (const match of ["keyword", "semantic", "hybrid"] as const) {
        const out = await api.search({ query: "ERR_REQUIRE_ESM from /home/me/eslint/bin/eslint.js", match });
        expect({ match, hits: out.hits, why: out.emptyReason }).toEqual({
          match,
          hits: [],
          why: 'no message holds "/home/me/eslint/bin/eslint.js" as written (symbols, paths and code in a query match exactly)',
        });
      }
    });

    test("search of one session: a symbol piece only other sessions hold is named with them", async () => {
      await api.add("timely-5", { role: "user", content: "the fix for #4521 landed in the release branch" });
      await api.add("timely-6", { role: "user", content: "nothing about tickets here" });
      for (const match of ["keyword", "semantic", "hybrid"] as const) {
        const out = await api.search({ query: "#4521", session: "timely-6", match });
        expect({ match, hits: out.hits, why: out.emptyReason }).toEqual({
          match,
          hits: [],
          why: 'no message in session timely-6 holds "#4521" as written (1 other session does; symbols, paths and code in a query match exactly)',
        });
      }
    });

    test("search, semantic and hybrid: an empty answer to a query naming what no message mentions names it", async () => {
      await api.add("timely-4", { role: "user", content: "please fix the flaky checkout test before lunch" });
      const query = "how do I fix the Zorblax quuxification";
      const semantic = await api.search({ query, match: "semantic" });
      expect([semantic.hits, semantic.emptyReason]).toEqual([
        [],
        'no close matches (no message mentions "Zorblax", a name in the query, and none is close enough in meaning)',
      ]);
      const hybrid = await api.search({ query, match: "hybrid" });
      expect([hybrid.hits, hybrid.emptyReason]).toEqual([
        [],
        'no message mentions "Zorblax", a name in the query, and none holds most of the query\'s terms or is close enough in meaning',
      ]);
    });

    test("search, semantic and hybrid: a query no message shares a word with, and unlike them, gets nothing", async () => {
      for (const query of ["xyzzy plugh", "what should I cook for dinner"])
        for (const match of ["semantic", "hybrid"] as const) {
          const r = await api.search({ query, match });
          expect({ query, match, hits: r.hits.map((h) => h.content) }).toEqual({ query, match, hits: [] });
          expect(r.emptyReason).toBe(
            match === "semantic"
              ? "no close matches (no message holds a word of the query, and none is close enough in meaning)"
              : "no message holds the query's terms and nothing is semantically close",
          );
        }
    });

    test("search, semantic and hybrid: a short technical query no message shares a word with gets nothing", async () => {
      // Stack traces: their content words are over 0.6 to the query's on average, but only "code" has a near word.
      await api.add("traces", [
        {
          role: "user" as const,
          content:
            "the app crashes on startup now, here is the trace:\nTypeError: Cannot read properties of undefined (reading 'map')\n    at renderList (src/components/List.tsx:42:18)\n    at App (src/App.tsx:17:5)",
        },
        {
          role: "assistant" as const,
          content:
            "`items` is undefined on first render because the fetch has not resolved yet. Default it to an empty array: `const items = data?.items ?? []`.",
        },
        {
          role: "user" as const,
          content:
            "python service throws this:\nTraceback (most recent call last):\n  File \"app/main.py\", line 88, in handle\n    user = db.get(user_id)\nKeyError: 'user_id'",
        },
        {
          role: "assistant" as const,
          content:
            "The request body uses `userId` (camelCase) and the handler reads `user_id`. Normalise the keys in the request parser.",
        },
        { role: "user" as const, content: "and now a segfault in the native module" },
        {
          role: "assistant" as const,
          content:
            "The core dump points at `napi_get_value_string_utf8` with a null env; the addon is built against Node 18 headers but you run Node 22. Rebuild with `npm rebuild`.",
        },
        { role: "user" as const, content: "java side: java.lang.OutOfMemoryError: Java heap space" },
        {
          role: "assistant" as const,
          content:
            "The heap is 512m and the report job loads every invoice at once. Stream them in pages of 1,000, or raise -Xmx to 2g as a stopgap.",
        },
        { role: "user" as const, content: "go panic: runtime error: index out of range [3] with length 3" },
        { role: "assistant" as const, content: "The loop in parser.go uses `i <= len(parts)`; it should be `<`." },
      ]);
      for (const match of ["semantic", "hybrid"] as const) {
        const r = await api.search({ query: "status code 139", match });
        expect({ match, hits: r.hits.map((h) => h.content) }).toEqual({ match, hits: [] });
        expect(r.emptyReason).toBe(
          match === "semantic"
            ? "no close matches (no message holds a word of the query, and none is close enough in meaning)"
            : "no message holds the query's terms and nothing is semantically close",
        );
      }
    });

    test("search, semantic: a query naming someone no message mentions scores its hits down", async () => {
      const known = await api.search({ query: "what did the OOM killer do to the deploy", match: "semantic" });
      expect(known.hits[0]!.score).toBeGreaterThan(0.3);
      const named = await api.search({ query: "what did Zorblax say about the OOM killer", match: "semantic" });
      for (const h of named.hits) expect(h.score).toBeLessThanOrEqual(0.25);
    });

    test("messages by id and the timeline around one", async () => {
      const got = await api.messages([ids[3]!, "no-such-id", ids[0]!]);
      expect(got.map((m) => m.id)).toEqual([ids[0]!, ids[3]!]);
      const a = await api.around(ids[2]!, { before: 1, after: 5 });
      expect(a).toMatchObject({ anchor: ids[2], session: "deploys" });
      expect(a.messages.map((m) => m.id)).toEqual(ids.slice(1));
    });

    test("context: the window then the input; summary of a session without one", async () => {
      const c = await api.context("deploys", "and now?");
      roundTrips(c);
      expect(c.messages.at(-1)).toEqual({ role: "user", content: "and now?", kind: "input" });
      expect(c.messages.filter((m) => m.kind === "history")).toHaveLength(4);
      expect((await api.context("brand-new")).messages).toEqual([]);
      const s = await api.summary("deploys");
      roundTrips(s);
      expect(s).toMatchObject({ session: "deploys", state: "missing", summary: null });
    });

    test("error memory: record, search (hits counted), list, show, rm", async () => {
      const rec = await api.recordError({
        tool: "kubectl",
        error: "OOMKilled exit 137",
        fix: "raise limits.memory to 1Gi",
        keywords: ["oom"],
      });
      roundTrips(rec);
      expect(rec.merged).toBe(false);
      expect(rec.record).toMatchObject({ tool: "kubectl", outcome: "resolved", cause: null });
      expect(rec.record.expiresAt).toMatch(RFC3339_NS);
      const found = await api.searchErrors({ query: "container OOMKilled", tool: "kubectl" });
      expect(found.tool).toBe("kubectl");
      expect(found.hits[0]).toMatchObject({ id: rec.record.id, hits: 1 });
      expect((await api.listErrors()).total).toBe(1);
      // The list has no pages: a limit past 100 is taken, as `errors list --limit N` takes it.
      expect((await api.listErrors({ limit: 5000 })).records.map((r) => r.id)).toEqual([rec.record.id]);
      expect((await api.getError(rec.record.id)).fix).toBe("raise limits.memory to 1Gi");
      expect((await api.rmError(rec.record.id)).removed.id).toBe(rec.record.id);
      await refused(api.getError(rec.record.id));
    });

    test("error memory: a lookup's page past the first is a hit for its records only, and hit false for none", async () => {
      const recorded = [];
      for (const host of ["alpha", "bravo", "charlie"])
        recorded.push(
          await api.recordError({
            tool: "git",
            error: `fatal: unable to access 'https://${host}.example/r.git/': Could not resolve host: ${host}.example`,
            fix: `add ${host}.example to /etc/hosts`,
          }),
        );
      try {
        const all = await api.searchErrors({ query: "Could not resolve host", limit: 3 });
        expect(all.hits.map((h) => h.hits)).toEqual([1, 1, 1]);
        // hit false is a look without a hit, as list and show.
        const peek = await api.searchErrors({ query: "Could not resolve host", limit: 3, hit: false });
        expect(peek.hits.map((h) => [h.id, h.hits, h.expiresAt])).toEqual(
          all.hits.map((h) => [h.id, h.hits, h.expiresAt]),
        );
        const page = await api.searchErrors({ query: "Could not resolve host", limit: 1, offset: 2 });
        expect(page.hits.map((h) => h.id)).toEqual([all.hits[2]!.id]);
        const hits = new Map((await api.listErrors({ tool: "git" })).records.map((r) => [r.id, r.hits]));
        for (const r of recorded) expect(hits.get(r.record.id)).toBe(r.record.id === page.hits[0]!.id ? 2 : 1);
      } finally {
        for (const r of recorded) await api.rmError(r.record.id);
      }
    });

    test("error memory: MCP lookup cut by max_chars searches once, then stamps exactly the records it shows", async () => {
      const recorded = [];
      for (const step of ["copy the context", "extract the tarball", "commit the layer"])
        recorded.push(
          await api.recordError({
            tool: "docker",
            error: `failed to ${step}: no space left on device`,
            fix: `free space, then ${step} again: ${"docker image prune -a; ".repeat(150)}`,
          }),
        );
      try {
        const before = new Map((await api.listErrors({ tool: "docker" })).records.map((r) => [r.id, r]));
        const calls: string[] = [];
        const counting = new Proxy(api, {
          get(target, key) {
            const value = Reflect.get(target, key) as unknown;
            if (typeof value !== "function") return value;
            return (...args: unknown[]) => {
              calls.push(String(key));
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        });
        const tool = TOOLS.find((t) => t.name === "error_memory")!;
        const cut = (
          await tool.run(counting, {
            mode: "lookup",
            error: "no space left on device",
            tool: "docker",
            max_chars: 4000,
          })
        ).value as { hits: { id: string; hits: number }[]; truncated?: boolean; next_offset?: number };
        expect(calls).toEqual(["searchErrors", "hitErrors"]);
        expect(cut).toMatchObject({ truncated: true, next_offset: 1 });
        expect(cut.hits.map((h) => h.hits)).toEqual([1]);
        const shown = cut.hits[0]!.id;
        for (const r of (await api.listErrors({ tool: "docker" })).records) {
          const b = before.get(r.id)!;
          if (r.id !== shown)
            expect([r.id, r.hits, r.lastHitAt, r.expiresAt]).toEqual([b.id, b.hits, b.lastHitAt, b.expiresAt]);
          else {
            expect(r.hits).toBe(b.hits + 1);
            expect(r.lastHitAt).not.toBeNull();
            expect(r.expiresAt > b.expiresAt).toBe(true);
          }
        }

        // A record removed (or expired) since the look is skipped; an unknown id too.
        const [kept, gone] = [recorded[1]!.record.id, recorded[2]!.record.id];
        await api.rmError(gone);
        const r = await api.hitErrors([gone, kept, "0123456789abcdef", kept]);
        expect(r.records.map((x) => [x.id, x.hits])).toEqual([[kept, 1]]);
        expect((await api.getError(kept)).hits).toBe(1);
        expect(await refused(api.hitErrors([]))).toContain("ids is empty");
        expect(await refused(api.hitErrors("abc" as never))).toContain("ids must be a list of error record ids");
      } finally {
        for (const r of recorded) await api.rmError(r.record.id).catch(() => undefined);
      }
    });

    test("error memory: an error written in full-width forms is found by the query typed the same way", async () => {
      const rec = await api.recordError({
        tool: "curl",
        error: "ＡＰＩ quota exhausted",
        fix: "wait for the next window",
      });
      try {
        const found = await api.searchErrors({ query: "ＡＰＩ" });
        // Found by its words, not only by the meaning of the query.
        expect(found.hits[0]).toMatchObject({ id: rec.record.id, matchedBy: expect.arrayContaining(["keyword"]) });
      } finally {
        await api.rmError(rec.record.id);
      }
    });

    test("rm-message removes one message everywhere; an unknown id is refused", async () => {
      const r = await api.add("rm-one", [
        { role: "user", content: "my password is hunter2, oops" },
        { role: "assistant", content: "remove that message" },
      ]);
      const removed = await api.rmMessage(r.ids[0]!);
      roundTrips(removed);
      expect(removed).toMatchObject({
        id: r.ids[0],
        session: "rm-one",
        wasRecent: true,
        summarized: false,
        summaryRemoved: false,
      });
      expect((await api.history("rm-one", { all: true })).messages.map((m) => m.id)).toEqual([r.ids[1]!]);
      expect((await api.search({ query: "hunter2", match: "keyword" })).hits).toEqual([]);
      expect(await refused(api.rmMessage(r.ids[0]!))).toContain(r.ids[0]!);
      expect(await refused(api.rmMessage(""))).toContain("id");
    });

    test("removing the newest message moves the session's last activity to the newest one left; a reset, to the reset", async () => {
      const r = await api.add("last-seen", [
        { role: "user", content: "the older one", sendAt: "2026-03-01T09:00:00Z" },
        { role: "user", content: "the newest one, removed", sendAt: "2026-03-03T09:00:00Z" },
        { role: "user", content: "an older one, added later", sendAt: "2026-03-02T09:00:00Z" },
      ]);
      const lastActivity = async () => (await api.sessions()).find((s) => s.id === "last-seen")!.lastActivity;
      await api.rmMessage(r.ids[2]!);
      expect(await lastActivity()).toBe("2026-03-03T09:00:00.000000000Z");
      await api.rmMessage(r.ids[1]!);
      expect(await lastActivity()).toBe("2026-03-01T09:00:00.000000000Z");
      const before = Date.now();
      await api.reset("last-seen");
      expect(Date.parse((await lastActivity())!)).toBeGreaterThanOrEqual(before - 1000);
    });

    test("reset keeps the session, rm removes it", async () => {
      await api.add("temp-x", [
        { role: "user", content: "to be reset" },
        { role: "assistant", content: "ok" },
      ]);
      expect(await api.reset("temp-x")).toEqual({ session: "temp-x", messagesRemoved: 2, summaryRemoved: false });
      expect((await api.history("temp-x")).messages).toEqual([]);
      expect((await api.rm("temp-x")).session).toBe("temp-x");
      expect((await api.sessions()).map((s) => s.id)).not.toContain("temp-x");
      await refused(api.history("temp-x"));
    });

    test("bad input is refused with one line naming the field, and nothing changes", async () => {
      const before = await api.sessions();
      expect(await refused(api.add("../x", { role: "user", content: "x" }))).toContain("session");
      expect(await refused(api.add("ok-session", { role: "user", content: "   " }))).toContain("content is empty");
      expect(await refused(api.add("ok-session", { role: "robot" as "user", content: "x" }))).toContain("role");
      expect(await refused(api.add("ok-session", []))).toContain("messages is empty");
      // Half an emoji would be stored as U+FFFD in the archive and as the lone half in history.json.
      expect(await refused(api.add("ok-session", { role: "user", content: "x", sender: "ann \ud83d" }))).toBe(
        "message: sender is not valid Unicode (unpaired surrogate)",
      );
      expect(await refused(api.add("ok-session", { role: "user", content: "x", idempotencyKey: "k\udc00" }))).toBe(
        "message: idempotencyKey is not valid Unicode (unpaired surrogate)",
      );
      // 19-digit nanoseconds as a JSON number have already lost digits: refused, never rounded.
      expect(
        await refused(api.add("ok-session", { role: "user", content: "x", sendAt: Number("1764900000123456789") })),
      ).toContain(
        "message 1: sendAt as a number must be unix seconds (a fraction allowed), ms or us: a number past 2^53",
      );
      expect(await refused(api.search({ query: "x", match: "fuzzy" as "keyword" }))).toContain(
        "match must be keyword, semantic or hybrid",
      );
      expect(await refused(api.search({ query: "x", limit: 1_000_000 }))).toContain(
        "limit must be a whole number from 1 to 1000",
      );
      expect(await refused(api.search({ query: "" }))).toContain("query");
      expect(await refused(api.search(null as never))).toBe("search: query: missing");
      expect(await refused(api.search({ query: "a\u0000b" }))).toContain("NUL character at offset 1");
      // One longest query on every surface (the CLI and the terminal UI too).
      expect((await api.search({ query: `deploy ${"x".repeat(9993)}`, match: "keyword" })).query).toHaveLength(10_000);
      expect(await refused(api.search({ query: "x".repeat(10_001) }))).toContain(
        "query must be at most 10000 characters (it has 10001)",
      );
      expect(await refused(api.history("../x"))).toContain("session");
      expect(await refused(api.history("deploys", { last: 0 }))).toContain("last must be a whole number");
      expect(await refused(api.history("deploys", { all: true, last: 5 }))).toContain("give all or last, not both");
      expect(await refused(api.around(ids[0]!, { before: 51 }))).toContain(
        "before must be a whole number from 0 to 50",
      );
      expect(await refused(api.recordError({ tool: "kubectl", error: "", fix: "x" }))).toContain("error");
      // Stored, half an emoji would make errors list --json a document jq refuses.
      expect(await refused(api.recordError({ tool: "kubectl \ud83d", error: "boom", fix: "x" }))).toBe(
        "errors record: tool is not valid Unicode (unpaired surrogate)",
      );
      expect(
        await refused(api.recordError({ tool: "kubectl", error: "boom", fix: "x", keywords: ["pod\udc00"] })),
      ).toBe("errors record: keywords.0: each keyword must be valid Unicode (no unpaired surrogate)");
      expect(await refused(api.context("a/b"))).toContain("session");
      expect(await refused(api.messages(ids[0]! as unknown as string[]))).toBe(
        "messages: ids must be a list of message ids",
      );
      expect(await refused(api.rm("no-such-session"))).toContain("no-such-session");
      // An unknown session is one error, whichever call names it (over HTTP: the code the server sent).
      const codeOf = (p: Promise<unknown>) =>
        p.then(
          () => "no error",
          (e: Error & { data?: { code?: string } }) => e.data?.code ?? e.name,
        );
      expect(
        await Promise.all([
          codeOf(api.search({ query: "x", session: "no-such-session" })),
          codeOf(api.history("no-such-session")),
          codeOf(api.summary("no-such-session")),
        ]),
      ).toEqual(["UnknownSessionError", "UnknownSessionError", "UnknownSessionError"]);
      expect(await api.sessions()).toEqual(before);
    });

    // Last: it closes the implementation (afterAll closes it again, which is no error).
    test("every call after close is refused in one line", async () => {
      await api.close();
      const calls = [
        () => api.add("after-close", { role: "user", content: "x" }),
        () => api.sessions(),
        () => api.history("deploys"),
        () => api.search({ query: "deploy" }),
        () => api.listErrors(),
      ];
      for (const call of calls) {
        const err = await call().then(
          () => undefined,
          (e) => e,
        );
        expect(err).toBeInstanceOf(UsageError);
        expect((err as Error).message).toMatch(
          /^this memory was closed \(close\(\) was called\): make a new one with (openMemory|connectMemory)$/,
        );
      }
    });
  });
}
