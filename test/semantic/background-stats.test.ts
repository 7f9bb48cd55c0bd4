// The background statistics of the calibrated semantic score: kept per table and embedder under
// .store/relevance, sampled once, read (not re-sampled) by later searches and other processes, re-sampled
// after enough new vectors, and giving the same hits and scores as a fresh sample.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { backgroundSamplings } from "../../src/memory/embedding/background-stats.ts";
import { openMemory } from "../../src/app/open-memory.ts";

afterAll(removeTempHomes);

const TOPICS = [
  "the kubernetes cluster ran out of memory during the deploy",
  "my grandmother bakes sourdough bread every sunday",
  "we should book the flight to lisbon before prices rise",
  "the violin lesson moved to thursday afternoon",
  "quarterly revenue grew eleven percent in europe",
  "the cat knocked the coffee mug off the desk",
  "remember to renew the passport next month",
  "our postgres replica lags behind the primary",
];

const turns = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? ("assistant" as const) : ("user" as const),
    content: `${TOPICS[(from + i) % TOPICS.length]} (note ${from + i})`,
  }));

const keptFiles = (home: string) => {
  try {
    return readdirSync(join(home, ".store", "relevance")).filter((f) => f.endsWith(".bg"));
  } catch {
    return [];
  }
};

const QUERY = { query: "the cluster ran out of memory", match: "semantic" as const, limit: 5 };
const shape = (r: Awaited<ReturnType<ReturnType<typeof openMemory>["search"]>>) =>
  r.hits.map((h) => ({ id: h.message.id, score: h.score }));

describe("kept background statistics", () => {
  test("sampled once; another process reads them without sampling; same hits and scores as a fresh sample", async () => {
    const home = tempHome();
    const first = openMemory({ home, env: {}, drain: "off" });
    first.add("s", turns(240));
    await first.drainEmbeddings();
    expect(keptFiles(home)).toEqual([]); // nothing is sampled before a search needs it
    const before = backgroundSamplings();
    const a = await first.search(QUERY);
    expect(a.hits.length).toBeGreaterThan(0);
    expect(backgroundSamplings()).toBe(before + 1);
    await first.search({ ...QUERY, query: "sourdough bread" });
    expect(backgroundSamplings()).toBe(before + 1);
    first.close();

    const [file] = keptFiles(home);
    expect(file).toBeString();
    const path = join(home, ".store", "relevance", file!);
    const st = statSync(path, { bigint: true });

    // A second HomeMemory (as a new process would) reads the kept file.
    const second = openMemory({ home, env: {}, drain: "off" });
    const b = await second.search(QUERY);
    expect(backgroundSamplings()).toBe(before + 1);
    second.close();
    expect(shape(b)).toEqual(shape(a));

    // A real second process: the file is neither rewritten nor replaced (a sample always rewrites it).
    const r = await cli(["search", "--match", "semantic", "--json", "--limit", "5", QUERY.query], { home });
    expect(r.code, r.stderr).toBe(0);
    const hits = (JSON.parse(r.stdout) as { hits: { id: string; score: number }[] }).hits;
    expect(hits.map((h) => ({ id: h.id, score: h.score }))).toEqual(shape(a));
    const after = statSync(path, { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([st.ino, st.mtimeNs]);

    // Without the kept file, a fresh sample gives the very same hits and scores.
    rmSync(path);
    const third = openMemory({ home, env: {}, drain: "off" });
    const c = await third.search(QUERY);
    expect(backgroundSamplings()).toBe(before + 2);
    third.close();
    expect(shape(c)).toEqual(shape(a));
  }, 120_000);

  test("a garbled kept file is sampled again: no crash, and the same hits and scores as a fresh sample", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s", turns(240));
    await api.drainEmbeddings();
    const fresh = shape(await api.search(QUERY));
    expect(fresh.length).toBeGreaterThan(0);
    api.close();
    const path = join(home, ".store", "relevance", keptFiles(home)[0]!);
    const good = readFileSync(path);
    const nl = good.indexOf(10);
    const header = JSON.parse(good.subarray(0, nl).toString()) as Record<string, unknown>;
    const withHeader = (h: unknown, body: Uint8Array) => {
      let head = JSON.stringify(h);
      head += " ".repeat((4 - ((head.length + 1) % 4)) % 4) + "\n";
      return Buffer.concat([Buffer.from(head), body]);
    };
    const body = good.subarray(nl + 1);
    const filled = (value: number) => new Uint8Array(new Float32Array(body.length / 4).fill(value).buffer);
    const garbled: [string, Uint8Array][] = [
      ["a header that is null", withHeader(null, body)],
      ["a body of NaN", withHeader(header, filled(Number.NaN))],
      ["a body of zeros", withHeader(header, filled(0))],
      ["a body of huge values", withHeader(header, filled(1e30))],
      ["no vectors, rows not a number", withHeader({ ...header, rows: "x", count: 0 }, new Uint8Array(0))],
    ];
    for (const [what, bytes] of garbled) {
      writeFileSync(path, bytes);
      const r = await cli(["search", "--match", "semantic", "--json", "--limit", "5", QUERY.query], { home });
      expect(r.code, `${what}: ${r.stderr}`).toBe(0);
      const hits = (JSON.parse(r.stdout) as { hits: { id: string; score: number }[] }).hits;
      expect(
        hits.map((h) => ({ id: h.id, score: h.score })),
        what,
      ).toEqual(fresh);
      expect(readFileSync(path).equals(Buffer.from(bytes)), what).toBe(false); // sampled again and kept
    }
  }, 120_000);

  test("re-sampled after enough new vectors: by the drain, and by upkeep when stale", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s", turns(240));
    await api.drainEmbeddings();
    await api.search(QUERY);
    const path = join(home, ".store", "relevance", keptFiles(home)[0]!);
    const rowsOf = () => {
      const bytes = readFileSync(path);
      return (JSON.parse(bytes.subarray(0, bytes.indexOf(10)).toString()) as { rows: number }).rows;
    };
    expect(rowsOf()).toBe(240);

    // A few new vectors: the kept statistics still stand.
    let n = backgroundSamplings();
    api.add("s", turns(10, 240));
    await api.drainEmbeddings();
    await api.search(QUERY);
    expect(backgroundSamplings()).toBe(n);
    expect(rowsOf()).toBe(240);

    // Many more: the drain re-samples, off the search path.
    api.add("s", turns(100, 250));
    await api.drainEmbeddings();
    expect(backgroundSamplings()).toBe(n + 1);
    expect(rowsOf()).toBe(350);
    n = backgroundSamplings();
    await api.search(QUERY);
    expect(backgroundSamplings()).toBe(n);

    // Upkeep: nothing to do while fresh, a new sample once missing.
    expect((await api.maintainVectors()).backgroundRefreshed).toBe(false);
    rmSync(path);
    expect((await api.maintainVectors()).backgroundRefreshed).toBe(true);
    expect(rowsOf()).toBe(350);
    api.close();
  }, 120_000);

  test("rm-message and rm leave no kept sample holding a removed message's vector", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s", turns(240));
    const secret = api.add("pw", { role: "user", content: "my vault password is Tr0ub4dor&3" }).ids[0]!;
    api.add("other", turns(4, 300));
    await api.drainEmbeddings();
    await api.search(QUERY);
    api.close();
    const rowsKept = () =>
      keptFiles(home).map((f) => {
        const bytes = readFileSync(join(home, ".store", "relevance", f));
        return (JSON.parse(bytes.subarray(0, bytes.indexOf(10)).toString()) as { rows: number }).rows;
      });
    expect(rowsKept()).toEqual([245]); // every row sampled, the secret's vector among them

    const rmMessage = await cli(["rm-message", secret], { home });
    expect(rmMessage.code, rmMessage.stderr).toBe(0);
    expect(rowsKept()).toEqual([]);
    const again = await cli(["search", "--match", "semantic", "--json", QUERY.query], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(rowsKept()).toEqual([244]); // sampled again, from what is left

    const rm = await cli(["rm", "other"], { home });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rowsKept()).toEqual([]);
  }, 120_000);

  test("a search's kept table handle sees other writers' commits, and survives a rebuild of the table", async () => {
    const home = tempHome();
    const reader = openMemory({ home, env: {}, drain: "off" });
    reader.add("s", turns(30));
    await reader.drainEmbeddings();
    expect((await reader.search(QUERY)).hits.length).toBeGreaterThan(0);
    const writer = openMemory({ home, env: {}, drain: "off" });
    writer.add("t", [{ role: "user", content: "the saxophone reed cracked before the jazz concert" }]);
    await writer.drainEmbeddings();
    const found = await reader.search({ query: "saxophone reed jazz concert", match: "semantic", limit: 3 });
    expect(found.hits.map((h) => h.message.session)).toContain("t");
    await writer.reindex();
    writer.close();
    const again = await reader.search({ query: "saxophone reed jazz concert", match: "semantic", limit: 3 });
    expect(again.hits.map((h) => h.message.session)).toContain("t");
    reader.close();
  }, 120_000);

  test("warmSearch loads the table and its statistics ahead of a first search; without vectors, no LanceDB store", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s", turns(20));
    await api.warmSearch();
    expect(existsSync(join(home, ".store", "lance"))).toBe(false);
    await api.drainEmbeddings();
    api.close();
    const fresh = openMemory({ home, env: {}, drain: "off" });
    await fresh.warmSearch();
    expect(keptFiles(home)).toHaveLength(1);
    const n = backgroundSamplings();
    expect((await fresh.search(QUERY)).hits.length).toBeGreaterThan(0);
    expect(backgroundSamplings()).toBe(n);
    fresh.close();
  }, 60_000);

  test("each warm-up step waits for the front-end's pause; a close during a wait ends it with nothing more loaded", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s", turns(20));
    await api.drainEmbeddings();
    api.close();
    // Pauses that come only when the test lets them.
    let pauses = 0;
    let pause: (() => void) | undefined;
    const idle = () => {
      pauses++;
      return new Promise<void>((resolve) => (pause = resolve));
    };
    const untilAsked = async (n: number) => {
      while (pauses < n) await new Promise((r) => setTimeout(r, 1));
    };

    const gated = openMemory({ home, env: {}, drain: "off" });
    let warmed = false;
    const warming = gated.warmSearch({ idle }).then(() => (warmed = true));
    await untilAsked(1);
    expect(keptFiles(home)).toEqual([]); // no step ran before the first pause
    for (let asked = 1; !warmed; ) {
      pause?.();
      pause = undefined;
      await Promise.race([warming, untilAsked(++asked)]);
    }
    expect(pauses).toBeGreaterThanOrEqual(5);
    expect(keptFiles(home)).toHaveLength(1);
    gated.close();

    rmSync(join(home, ".store", "relevance"), { recursive: true, force: true });
    const closing = openMemory({ home, env: {}, drain: "off" });
    pauses = 0;
    const stopped = closing.warmSearch({ idle });
    await untilAsked(1);
    await closing.close(); // the pause never comes: closing ends the wait
    await stopped;
    expect(pauses).toBe(1);
    expect(keptFiles(home)).toEqual([]);
  }, 60_000);
});
