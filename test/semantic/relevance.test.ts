// Search that knows when nothing matches: calibrated semantic scores, the min_score cutoff, emptyReason,
// foundBy, and verbatim keyword matches above weak semantic-only hits.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { openMemory } from "../../src/app/open-memory.ts";
import { seedDemoHome } from "../../src/app/demo/seed-demo.ts";
import { openMemoryApi } from "../../src/app/api/local-memory-api.ts";
import { TOOLS } from "../../src/mcp/tools.ts";
import { config } from "../fixture/semantic-home.ts";
import { calibrate, calibratedScore, contentWordsFar } from "../../src/search/relevance.ts";
import { BuiltinEmbedder } from "../../src/embed/builtin/builtin-embedder.ts";
import { contextFor } from "../fixture/semantic-home.ts";
import { namesUnknown, noSharedWord } from "../../src/search/coverage.ts";
import { ftsPhrases, queryTerms } from "../../src/search/query-terms.ts";
import { indexStats } from "../../src/storage/sqlite/keyword-queries.ts";
import { evenWeights, fuseHybrid } from "../../src/app/shared/shared-hybrid.ts";
import type { StoredMessage } from "../../src/shared/message.ts";

afterAll(removeTempHomes);

const TURNS = [
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
  "did you water the plants on the balcony",
  "the printer on the second floor is jammed again",
];

async function seeded(raw: Record<string, unknown> = {}) {
  const t = openTemp({ drain: "off", config: config(raw) });
  for (let round = 0; round < 3; round++)
    t.api.add(
      "s",
      TURNS.map((content, i) => ({
        role: i % 2 ? ("assistant" as const) : ("user" as const),
        content: round ? `${content} (${round})` : content,
      })),
    );
  await t.api.drainEmbeddings();
  return t;
}

describe("calibrated relevance", () => {
  test("scores are in [0, 1]: the background mean scores 0, an identical vector 1", () => {
    expect(calibratedScore(0.7, { mean: 0.7 })).toBe(0);
    expect(calibratedScore(0.5, { mean: 0.7 })).toBe(0);
    expect(calibratedScore(1, { mean: 0.7 })).toBe(1);
    expect(calibratedScore(0.85, { mean: 0.7 })).toBeCloseTo(0.5, 5);
  });

  test("the calibration mean is the mean of the query's cosine to each background vector", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const unit = (dim: number) => {
      const v = Float32Array.from({ length: dim }, rand);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const cosMean = (q: Float32Array, bg: Float32Array[]) =>
      bg.reduce((s, v) => s + v.reduce((d, x, i) => d + x * q[i]!, 0), 0) / bg.length;
    const bg = Array.from({ length: 50 }, () => unit(16));
    const other = Array.from({ length: 50 }, () => unit(16));
    for (const q of [unit(16), unit(16)]) {
      expect(calibrate(q, bg).mean).toBeCloseTo(cosMean(q, bg), 9);
      // A second background (its own mean vector), then the first again.
      expect(calibrate(q, other).mean).toBeCloseTo(cosMean(q, other), 9);
      expect(calibrate(q, bg).mean).toBeCloseTo(cosMean(q, bg), 9);
    }
    expect(calibrate(unit(16), bg.slice(0, 1))).toEqual({ mean: 0 });
  });

  test("a nonsense query gets nothing, with a reason, in semantic and hybrid mode", async () => {
    const { api } = await seeded();
    for (const query of ["xyzzy plugh", "qkdjwhfu mvbnzx"]) {
      for (const match of ["semantic", "hybrid", "keyword"] as const) {
        const r = await api.search({ query, match });
        expect(r.hits).toEqual([]);
        expect(r.emptyReason).toBeString();
      }
    }
    api.close();
  }, 60_000);

  test("a related query still finds its message, with a calibrated score and foundBy", async () => {
    const { api } = await seeded();
    const r = await api.search({ query: "the tabby cat broke my coffee cup", match: "semantic", limit: 3 });
    expect(r.hits[0]!.message.content).toContain("cat knocked the coffee mug");
    for (const h of r.hits) {
      expect(h.score).toBeGreaterThanOrEqual(0.2);
      expect(h.score).toBeLessThanOrEqual(1);
      expect(h.foundBy).toEqual(["semantic"]);
    }
    expect(r.emptyReason).toBeUndefined();
    api.close();
  }, 60_000);

  test("[search] min_score drops hits below it", async () => {
    const { api } = await seeded({ search: { min_score: 0.99 } });
    const r = await api.search({ query: "the tabby cat broke my coffee cup", match: "semantic" });
    expect(r.hits).toEqual([]);
    expect(r.emptyReason).toContain("0.99");
    api.close();
  }, 60_000);

  test("a message holding every query term verbatim outranks weak semantic-only hits", async () => {
    const { api } = await seeded();
    const id = api.add("s", { role: "user", content: "note: the heron nests near the old quarry" }).ids[0]!;
    await api.drainEmbeddings();
    const r = await api.search({ query: "heron quarry", match: "hybrid" });
    expect(r.hits[0]!.message.id).toBe(id);
    expect(r.hits[0]!.foundBy).toContain("recent");
    for (const h of r.hits.slice(1))
      expect(h.message.content.includes("heron") && h.message.content.includes("quarry")).toBe(false);
    api.close();
  }, 60_000);
});

describe("a query of identifiers only (no word with a word vector)", () => {
  test("finds the messages that hold them in semantic mode, and nothing else", async () => {
    const { api } = await seeded();
    for (const [query, word] of [
      ["postgres", "postgres"],
      ["kubernetes", "kubernetes"],
    ] as const) {
      const r = await api.search({ query, match: "semantic" });
      expect({ query, hits: r.hits.map((h) => h.message.content.includes(word)) }).toEqual({
        query,
        hits: [true, true, true],
      });
      for (const h of r.hits) expect(h.score).toBeGreaterThanOrEqual(0.2);
    }
    api.close();
  }, 60_000);

  test("scores a text with known words over the spelling part; a text sharing no piece of the query gets 0", async () => {
    const embedder = await BuiltinEmbedder.create();
    const scale = embedder.partScale("pgbouncer")!;
    const [q, withWords, spellingOnly] = await embedder.embed([
      "pgbouncer",
      "restart pgbouncer after the config change",
      "pgbouncer pgbouncer",
    ]);
    const cos = (v: Float32Array) => v.reduce((s, x, i) => s + x * q![i]!, 0);
    expect(cos(withWords!)).toBeLessThan(0.35);
    expect(cos(withWords!) * scale("restart pgbouncer after the config change")).toBeGreaterThan(0.35);
    expect(scale("pgbouncer pgbouncer")).toBe(1);
    expect(cos(spellingOnly!)).toBeGreaterThan(0.9);
    expect(scale("the garden tomatoes finally turned red")).toBe(0);
    for (const query of ["postgres replica", "快取", ""]) expect(embedder.partScale(query)).toBeUndefined();
  });
});

describe("archived messages holding every query term", () => {
  test("stay above recent hits that hold only some of the terms or sit next to one that holds them all, in keyword and hybrid modes", async () => {
    const { api } = openTemp({ drain: "off", config: config({ limits: { max_history_bytes: 4096 } }) });
    try {
      const old = [
        "billing-worker crashed: pgbouncer pool timeout after 30s (ERROR: query_wait_timeout)",
        "The pgbouncer pool timeout comes from default_pool_size = 10 while 24 workers share it",
        "pgbouncer pool timeout is back after the deploy, same query_wait_timeout",
        // Long: bm25 scores it below short messages holding one of the terms.
        "This time the pool timeout was a long transaction holding a pgbouncer server connection: the nightly export of invoices, statements, refunds and ledger entries ran inside one transaction for forty minutes, so we split it into batches of five hundred rows and committed after each batch.",
        ...Array.from({ length: 40 }, (_, i) => `Refactored the invoice renderer to stream PDFs, step ${i}`),
      ];
      const archived = api.add(
        "billing-svc",
        old.map((content, i) => ({ role: i % 2 ? ("assistant" as const) : ("user" as const), content })),
      ).ids;
      api.add(
        "infra",
        [
          "staging is slow today, can you check the connection counts on the database?",
          "Seeing pgbouncer pool timeout errors in staging again",
          "Looking at it: the pool is full, every pool slot is held by the report worker.",
          "can you fix the worker so it releases the connection?",
          "what timeout did we set for the statement?",
          "statement_timeout is 15s on the reporting role, 5s for the api role.",
          "and the pool size on the api?",
        ].map((content, i) => ({ role: i % 2 ? ("assistant" as const) : ("user" as const), content })),
      );
      await api.drainEmbeddings();
      const holdsAll = (text: string) => ["pgbouncer", "pool", "timeout"].every((w) => text.includes(w));
      for (const match of ["keyword", "hybrid"] as const) {
        const r = await api.search({ query: "pgbouncer pool timeout", match, limit: 5 });
        expect({ match, all: r.hits.map((h) => holdsAll(h.message.content)) }).toEqual({
          match,
          all: Array(5).fill(true),
        });
        expect(r.hits.filter((h) => h.source === "archive").map((h) => h.message.id)).toEqual(
          expect.arrayContaining(archived.slice(0, 4)),
        );
      }
      // Keyword scores never rise down the page, though a weaker match's own bm25 is above a lifted one's.
      const kw = await api.search({ query: "pgbouncer pool timeout", limit: 10 });
      expect(kw.hits.some((h) => !holdsAll(h.message.content))).toBe(true);
      const scores = kw.hits.map((h) => h.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      // The recent hits that hold some of the terms, or none, still follow.
      const all = await api.search({ query: "pgbouncer pool timeout", match: "hybrid" });
      expect(all.hits.map((h) => h.message.content)).toContain("what timeout did we set for the statement?");
    } finally {
      api.close();
    }
  }, 60_000);
});

describe("a word with digits whose letters stem differently", () => {
  test("is a whole-term match in hybrid search (macos14, indexed as maco14)", async () => {
    const { api } = openTemp({ drain: "off", config: config() });
    try {
      api.add("os", [
        { role: "user", content: "macos14 keychain prompt keeps coming back" },
        { role: "assistant", content: "Re-sign the binary; the keychain ACL is tied to the signature." },
        { role: "user", content: "the upgrade to windows11 broke wsl networking" },
      ]);
      await api.drainEmbeddings();
      for (const [query, text] of [
        ["macos14", "macos14 keychain prompt keeps coming back"],
        ["windows11 wsl", "the upgrade to windows11 broke wsl networking"],
      ] as const) {
        const r = await api.search({ query, match: "hybrid" });
        expect({ query, first: r.hits[0]?.message.content, score: r.hits[0]?.score }).toEqual({
          query,
          first: text,
          score: 1,
        });
      }
    } finally {
      api.close();
    }
  }, 60_000);
});

describe("shared mode's hybrid order", () => {
  test("an archived message holding every term stays above recent hits holding some", () => {
    const message = (id: string, content: string, recent: boolean): StoredMessage => ({
      id,
      role: "user",
      content,
      sendAt: 0n,
      seq: 0n,
      session: "s",
      recent,
    });
    const partial = message("a", "what timeout did we set for the statement?", true);
    const other = message("b", "and the pool size on the api?", true);
    const whole = message("c", "billing-worker crashed: pgbouncer pool timeout after 30s", false);
    const hits = fuseHybrid({
      keyword: [partial, other, whole].map((m) => ({ message: m, score: 1 })),
      lexical: [],
      semantic: [
        { message: partial, score: 0.3 },
        { message: other, score: 0.2 },
      ],
      minScore: 0.1,
      terms: evenWeights(queryTerms("pgbouncer pool timeout")),
      symbols: false,
      unknownName: false,
      limit: 10,
    });
    expect(hits.map((h) => h.message.id)).toEqual(["c", "a", "b"]);
  });
});

describe("an everyday question on a home about something else", () => {
  test("sharing no word with it: nothing in semantic or hybrid mode; sharing few, only the hits holding them; a question on its topic still finds it", async () => {
    const home = join(tempHome(), "demo");
    await seedDemoHome(home);
    const api = openMemory({ home, env: {}, drain: "off" });
    try {
      // The demo home holds CI/CD, webhook and vector-store talk. As written, these score 0.3-0.5 on the calibrated
      // scale against it (a question about plans reads like the home's own questions); their content words do not.
      for (const query of ["what should I cook for dinner", "my cat is sick", "how do I bake sourdough bread"]) {
        for (const match of ["semantic", "hybrid"] as const) {
          const r = await api.search({ query, match });
          expect({ query, match, hits: r.hits.map((h) => h.message.content) }).toEqual({ query, match, hits: [] });
          expect(r.emptyReason).toBeString();
        }
      }
      // Mostly about what the home never mentions: only its hits holding the word it shares are kept.
      const team = await api.search({ query: "favourite football team", match: "semantic" });
      expect(team.hits.length).toBeGreaterThan(0);
      for (const h of team.hits) expect(h.message.content.toLowerCase()).toContain("team");
      const r = await api.search({ query: "customers billed double", match: "semantic", limit: 3 });
      expect(r.hits[0]!.message.content).toContain("webhook twice");
    } finally {
      api.close();
    }
  }, 60_000);
});

describe("emptyReason on every surface", () => {
  test("the JSON API, the MCP tool and the CLI (text and --json) say why a search found nothing", async () => {
    const { home, api: seededApi } = await seeded();
    seededApi.close();
    const api = openMemoryApi({ home, env: {} });
    try {
      const json = await api.search({ query: "xyzzy plugh", match: "hybrid" });
      expect(json.hits).toEqual([]);
      expect(json.emptyReason).toBeString();
      const tool = TOOLS.find((t) => t.name === "chat_history")!;
      const out = await tool.run(api, { mode: "search", query: "xyzzy plugh" });
      expect(JSON.stringify(out)).toContain("emptyReason");
      const hit = await api.search({ query: "the cat knocked the coffee mug", match: "hybrid" });
      expect(hit.hits[0]!.foundBy!.length).toBeGreaterThan(0);
      expect(hit.emptyReason).toBeUndefined();
    } finally {
      await api.close();
    }
    const text = await cli(["search", "xyzzy plugh", "--match", "semantic"], { home });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("no matches for");
    expect(text.stdout).toContain("no close matches");
    const asJson = await cli(["search", "xyzzy plugh", "--match", "hybrid", "--json"], { home });
    expect(JSON.parse(asJson.stdout).emptyReason).toBeString();
  }, 120_000);
});

describe("which query words the index holds", () => {
  test("one row answers whether a word is held, as its share would; shared words and unknown names", () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add(
      "s",
      TURNS.map((content) => ({ role: "user" as const, content })),
    );
    const ctx = contextFor(home);
    const phrases = ftsPhrases(queryTerms("kubernetes sourdough zzqx Lisbon vlorp printer"));
    const held = phrases.map((p) => indexStats(ctx.db).has(p.expr));
    expect(phrases.map((p) => p.expr)).toHaveLength(6);
    expect(held).toEqual([true, true, false, true, false, true]);
    // Asked first (probe) or after the share is kept, the answer is the share's.
    expect(phrases.map((p) => indexStats(ctx.db).share(p.expr) > 0)).toEqual(held);
    expect(phrases.map((p) => indexStats(ctx.db).has(p.expr))).toEqual(held);
    expect(noSharedWord(ctx.db, "zzqx vlorp")).toBe(true);
    expect(noSharedWord(ctx.db, "zzqx sourdough")).toBe(false);
    expect(namesUnknown(ctx.db, "what did Zorblax say")).toBe(true);
    expect(namesUnknown(ctx.db, "the trip to Lisbon")).toBe(false);
    // A write makes the kept answers stale: the new word is found.
    api.add("s", [{ role: "user", content: "vlorp is a new word" }]);
    expect(noSharedWord(ctx.db, "zzqx vlorp")).toBe(false);
    ctx.db.close();
    api.close();
  });
});

describe("a Thai word some message holds inside a run", () => {
  test("is a word the memory holds: semantic search neither says no message holds it nor cuts its hit", async () => {
    const t = await seeded();
    t.api.add("s", [{ role: "assistant", content: "ใช่ ภาษาไทยไม่มีช่องว่างระหว่างคำ" }]);
    await t.api.drainEmbeddings();
    const ctx = contextFor(t.home);
    expect(noSharedWord(ctx.db, "ช่องว่าง")).toBe(false);
    expect(noSharedWord(ctx.db, "ขอบคุณ")).toBe(true);
    ctx.db.close();
    const r = await t.api.search({ query: "ช่องว่าง", match: "semantic" });
    expect(r.emptyReason ?? "").not.toContain("no message holds a word of the query");
    expect(r.hits.map((h) => h.message.content)).toContain("ใช่ ภาษาไทยไม่มีช่องว่างระหว่างคำ");
    t.api.close();
  });
});

/** A coding agent's home: shell sessions, stack traces, code review, deploys (user and assistant turns alternate). */
const CODING: Record<string, string[]> = {
  shell: [
    "run the test suite and tell me what fails",
    "Running `npm test`... 3 failures in src/auth/session.test.ts: expected 200 but got 401 on refresh.",
    "why does the refresh token get rejected?",
    "The token's audience claim is `api.staging` but the verifier expects `api`. I'll update the config in auth.ts.",
    "ok, also check disk usage on the build box",
    "`df -h` shows /var at 94%. Most of it is old docker images; `docker system prune -a` would free about 40 GB.",
    "go ahead and prune",
    "Pruned. /var is now at 51%.",
    "grep the logs for the connection reset errors",
    "Found 212 lines of `ECONNRESET` in api.log between 02:10 and 02:25, all from the payments client.",
    "can you tail the worker log while I trigger the job",
    "Tailing. The worker picked up job 8812, processed 3,400 rows and finished in 41 s.",
  ],
  trace: [
    "the app crashes on startup now, here is the trace:\nTypeError: Cannot read properties of undefined (reading 'map')\n    at renderList (src/components/List.tsx:42:18)\n    at App (src/App.tsx:17:5)",
    "`items` is undefined on first render because the fetch has not resolved yet. Default it to an empty array: `const items = data?.items ?? []`.",
    "python service throws this:\nTraceback (most recent call last):\n  File \"app/main.py\", line 88, in handle\n    user = db.get(user_id)\nKeyError: 'user_id'",
    "The request body uses `userId` (camelCase) and the handler reads `user_id`. Normalise the keys in the request parser.",
    "and now a segfault in the native module",
    "The core dump points at `napi_get_value_string_utf8` with a null env; the addon is built against Node 18 headers but you run Node 22. Rebuild with `npm rebuild`.",
    "java side: java.lang.OutOfMemoryError: Java heap space",
    "The heap is 512m and the report job loads every invoice at once. Stream them in pages of 1,000, or raise -Xmx to 2g as a stopgap.",
    "go panic: runtime error: index out of range [3] with length 3",
    "The loop in parser.go uses `i <= len(parts)`; it should be `<`.",
  ],
  review: [
    "review my PR #482 please",
    "Two issues: the retry loop in client.ts never backs off, and the new endpoint skips the rate limiter. Otherwise it looks good.",
    "I added exponential backoff, can you re-review",
    "Backoff looks right now. Consider adding jitter so the clients do not retry in lockstep.",
    "is it ok to merge without the integration tests?",
    "I would not: the change touches the billing path. Run the integration suite first, it takes about 12 minutes.",
    "nit from the reviewer: rename fetchAll to fetchAllPages",
    "Renamed in 7 files and updated the docs.",
    "the linter complains about unused imports in utils.ts",
    "Removed `lodash/merge` and `path`; lint is clean.",
  ],
  deploy: [
    "deploy the api to staging",
    "Deployed build 1.14.2 to staging via the GitHub Actions workflow. Health checks pass.",
    "the canary in prod shows elevated latency",
    "p99 went from 180 ms to 950 ms on the canary pods. The new build calls the feature-flag service on every request without caching.",
    "roll back the canary",
    "Rolled back to 1.14.1 with `kubectl rollout undo deployment/api`. Latency is back to normal.",
    "the pods keep getting killed and restarted",
    "`kubectl describe pod` shows OOMKilled: the container limit is 256Mi and the new image uses about 300Mi at peak. Raise the memory limit to 512Mi.",
    "helm upgrade fails with 'another operation is in progress'",
    "A previous release is stuck in pending-upgrade. Run `helm rollback api 41` and then upgrade again.",
    "we need to rotate the database password before friday",
    "I will create the new secret in Vault, update the Kubernetes secret, and restart the pods one at a time.",
    "nginx returns 502 after the deploy",
    "The upstream port changed from 8080 to 3000 in the new image but the service still targets 8080. Fixed the service manifest.",
  ],
  infra: [
    "set up a postgres replica for read traffic",
    "Created a streaming replica in eu-west-1b; replication lag is under 50 ms.",
    "the S3 bucket policy blocks the uploader",
    "The policy denies PutObject without server-side encryption. The uploader now sends `x-amz-server-side-encryption: AES256`.",
    "add a cron job to clean up old sessions",
    "Added a nightly job at 03:00 UTC that deletes sessions older than 30 days.",
    "why is the redis memory growing",
    "Keys from the rate limiter have no TTL. Setting a 60 s expiry on them stops the growth.",
  ],
};

/** A home of the CODING sessions and a chat holding one paraphrase ("sick dog"), every message embedded. */
async function codingHome(): Promise<{ home: string; puppy: string }> {
  const t = openTemp({ drain: "off", config: config() });
  for (const [session, turns] of Object.entries(CODING))
    t.api.add(
      session,
      turns.map((content, i) => ({ role: i % 2 ? ("assistant" as const) : ("user" as const), content })),
    );
  const [puppy] = t.api.add("chat", [{ role: "user", content: "my puppy has been ill since yesterday" }]).ids;
  await t.api.drainEmbeddings();
  t.api.close();
  return { home: t.home, puppy: puppy! };
}

describe("a semantic search of a query mostly about what no message mentions, emptied", () => {
  test("says so, not that nothing scored the cutoff", async () => {
    const { home } = await codingHome();
    const api = openMemoryApi({ home, env: {} });
    try {
      // Only "rollback" is held (in the deploy session): in the trace session the hits that score over the cutoff
      // are dropped for being far in their content words, not for their scores.
      const r = await api.search({ query: "exit code 137 rollback", match: "semantic", session: "trace" });
      expect(r.hits).toEqual([]);
      expect(r.emptyReason).toBe(
        "no close matches (most of the query's words are in no message, and none is close enough in meaning)",
      );
    } finally {
      await api.close();
    }
  }, 60_000);
});

describe("a short technical query on a coding agent's home that holds none of its words", () => {
  test("gets nothing in semantic and hybrid mode (the MCP default too), with a reason; a paraphrase still finds its message", async () => {
    const { home, puppy } = await codingHome();
    const api = openMemoryApi({ home, env: {} });
    try {
      // Their content words are 0.61-0.67 to the query's "exit code 137" (the mean of a few technical words is near
      // that of any technical text), but only one word of the query has a near word in them.
      for (const match of ["semantic", "hybrid"] as const) {
        const r = await api.search({ query: "exit code 137", match });
        expect({ match, hits: r.hits.map((h) => h.content) }).toEqual({ match, hits: [] });
        expect(r.emptyReason).toMatch(/no close matches|nothing is semantically close/);
      }
      const tool = TOOLS.find((x) => x.name === "chat_history")!;
      const out = await tool.run(api, { mode: "search", query: "exit code 137" });
      expect(out).toMatchObject({ value: { match: "hybrid", rows: [], emptyReason: expect.any(String) } });
      for (const match of ["semantic", "hybrid"] as const) {
        const r = await api.search({ query: "sick dog", match, limit: 3 });
        expect(r.hits[0]?.id).toBe(puppy);
      }
    } finally {
      await api.close();
    }
  }, 60_000);

  test("a hit's content words must agree word by word with two of the query's, not only on average", async () => {
    const embedder = await BuiltinEmbedder.create();
    const far = (query: string, text: string) => contentWordsFar(embedder, query)(text);
    expect(await far("exit code 137", CODING.trace![3]!)).toBe(true);
    expect(await far("exit code 137", CODING.trace![2]!)).toBe(true);
    expect(await far("sick dog", "my puppy has been ill since yesterday")).toBe(false);
    const webhook = "Stripe sometimes delivers the same invoice.paid webhook twice and we credit the account twice.";
    expect(await far("the same payment event arrives two times", webhook)).toBe(false);
  });
});
