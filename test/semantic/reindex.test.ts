// Embedder change then reindex; an interrupted reindex resumes where it stopped.
import { afterAll, afterEach, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { cli, openTemp, removeTempHomes } from "../fixture/home.ts";
import { okBody, startFakeEmbeddings, refuseOrEmbed } from "../fixture/fake-embeddings.ts";
import { BUILTIN_ID, config, recentIds, tableIds, vectorIds } from "../fixture/semantic-home.ts";

afterAll(removeTempHomes);
const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((s) => s()));

const env = { OPENAI_API_KEY: "sk-fake" };
const fakeConfig = (url: string, batch = 64) =>
  config({ embedder: { provider: "openai", base_url: url, model: "fake-embed", dimensions: 8, batch_size: batch } });
const FAKE_ID = "openai:fake-embed:8";

test("after an embedder change search says a reindex is needed; reindex rebuilds and drops the old vectors", async () => {
  const f = startFakeEmbeddings([], { body: okBody(8) });
  stops.push(f.stop);
  const { home, api } = openTemp({ drain: "off" });
  api.add(
    "s",
    ["the build is red", "which test fails?", "the login test times out"].map((content, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content,
    })),
  );
  await api.drainEmbeddings();
  expect(await tableIds(home)).toEqual([BUILTIN_ID]);
  api.close();

  const other = openMemory({ home, env, config: fakeConfig(f.url), drain: "off" });
  const before = await other.search({ query: "login test", match: "semantic" });
  expect(before.reindexNeeded).toBe(true);
  expect(before.hits).toEqual([]);
  expect(before.notes).toContain(
    `the configured embedder is ${FAKE_ID} (stored vectors come from ${BUILTIN_ID}): run memvoy reindex`,
  );
  const r = await other.reindex();
  expect(r).toMatchObject({ embedderId: FAKE_ID, embedded: 3, remaining: 0, resumed: false, dropped: [BUILTIN_ID] });
  expect(await tableIds(home)).toEqual([FAKE_ID]);
  expect(await vectorIds(home, FAKE_ID)).toEqual(recentIds(home));
  const after = await other.search({ query: "the login test times out", match: "semantic", limit: 1 });
  expect(after.reindexNeeded).toBe(false);
  expect(after.notes).toEqual([]);
  expect(after.hits[0]!.message.content).toBe("the login test times out");
  other.close();

  // And back to builtin: the old table is gone, so the builtin index is rebuilt from scratch.
  const back = openMemory({ home, env: {}, drain: "off" });
  expect((await back.search({ query: "build", match: "semantic" })).reindexNeeded).toBe(true);
  expect((await back.reindex()).dropped).toEqual([FAKE_ID]);
  expect(await vectorIds(home)).toEqual(recentIds(home));
  back.close();
});

test("reindex with its HTTP embedder down fails before it drops the vectors that embedder made", async () => {
  const f = startFakeEmbeddings([], { body: okBody(8) });
  stops.push(f.stop);
  const { home } = openTemp({ drain: "off" });
  const api = openMemory({ home, env, config: fakeConfig(f.url), drain: "off" });
  api.add("s", [
    { role: "user", content: "the build is red" },
    { role: "assistant", content: "the login test times out" },
  ]);
  expect((await api.drainEmbeddings()).embedded).toBe(2);
  const ids = await vectorIds(home, FAKE_ID);
  expect(ids).toHaveLength(2);
  f.fail({ status: 401, body: '{"error":{"message":"invalid key"}}' });
  const err = await api.reindex().catch((e: Error) => e);
  expect(String(err)).toContain("rejected the API key (401)");
  expect(await vectorIds(home, FAKE_ID)).toEqual(ids);
  f.fail(undefined);
  const hit = await api.search({ query: "the login test times out", match: "semantic", limit: 1 });
  expect(hit.notIndexed).toBe(0);
  expect(hit.hits[0]!.message.content).toBe("the login test times out");
  api.close();
});

test("an interrupted reindex resumes without redoing what was embedded", async () => {
  const f = startFakeEmbeddings([], { body: okBody(8) });
  stops.push(f.stop);
  const { home, api } = openTemp({ drain: "off", config: fakeConfig(f.url, 2), env });
  api.add(
    "s",
    Array.from({ length: 20 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `note ${i}`,
    })),
  );
  const abort = new AbortController();
  const first = await api.reindex({ signal: abort.signal, onProgress: (done) => done >= 8 && abort.abort() }).then(
    () => "finished",
    (e) => e,
  );
  expect(first).not.toBe("finished");
  expect((await vectorIds(home, FAKE_ID)).length).toBe(8);
  const sent = f.seen.length;
  const second = await api.reindex();
  expect(second).toMatchObject({ resumed: true, embedded: 12, remaining: 0 });
  expect(f.seen.length - sent).toBe(6);
  expect(await vectorIds(home, FAKE_ID)).toEqual(recentIds(home));
  // A new reindex after a complete one rebuilds everything again.
  expect((await api.reindex()).embedded).toBe(20);
  api.close();
});

test("reindex waits for a drain that holds the vector write lock before it drops the table", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s", [
    { role: "user", content: "the build is red" },
    { role: "assistant", content: "the login test times out" },
  ]);
  await api.drainEmbeddings();
  api.close();
  const release = tryLockFile(join(home, ".store", "embed.lock"))!; // a drain in another process
  const other = openMemory({ home, env: {}, drain: "off" });
  let done = false;
  const run = other.reindex().then((r) => {
    done = true;
    return r;
  });
  await Bun.sleep(400);
  expect(done).toBe(false);
  expect(await tableIds(home)).toEqual([BUILTIN_ID]);
  release();
  const r = await run;
  expect(r).toMatchObject({ embedded: 2, remaining: 0, resumed: false });
  expect(await vectorIds(home)).toEqual(recentIds(home));
  other.close();
});

test("a second reindex waits for the one running, then says it waited and finds nothing left", async () => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      const req = (await r.json()) as { input: string[] };
      requests++;
      await gate;
      return Response.json(okBody(8)(req));
    },
  });
  stops.push(() => server.stop(true));
  const { home, api } = openTemp({ drain: "off", config: fakeConfig(`http://127.0.0.1:${server.port}`, 2), env });
  api.add(
    "s",
    Array.from({ length: 6 }, (_, i) => ({ role: "user" as const, content: `note ${i}` })),
  );
  const first = api.reindex();
  let waiting = 0;
  const starts: boolean[] = [];
  const second = api.reindex({ onWait: () => waiting++, onStart: (_, resumed) => starts.push(resumed) });
  expect(waiting).toBe(1);
  open();
  expect(await first).toMatchObject({ embedded: 6, remaining: 0, resumed: false, waited: false });
  const sent = requests;
  expect(await second).toMatchObject({ embedded: 0, remaining: 0, resumed: false, waited: true, dropped: [] });
  expect(starts).toEqual([false]);
  // Nothing rebuilt again: no request of its own, and the first run's vectors stay.
  expect(requests).toBe(sent);
  expect(await vectorIds(home, FAKE_ID)).toEqual(recentIds(home));
  api.close();
});

test("with the vector folder removed, semantic search says the vectors are gone, not only which embedder is set", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s", [
    { role: "user", content: "the build is red" },
    { role: "assistant", content: "the login test times out" },
  ]);
  await api.drainEmbeddings();
  api.close();
  rmSync(join(home, ".store", "lance"), { recursive: true, force: true });

  const again = openMemory({ home, env: {}, drain: "off" });
  const before = await again.search({ query: "login test", match: "semantic" });
  expect(before.reindexNeeded).toBe(true);
  expect(before.notes).toEqual([
    `the vectors of the configured embedder ${BUILTIN_ID} are gone, though recent messages were embedded (the vector folder removed or replaced?): run memvoy reindex`,
  ]);
  expect((await again.reindex()).embedded).toBe(2);
  const after = await again.search({ query: "the login test times out", match: "semantic", limit: 1 });
  expect(after.notes).toEqual([]);
  expect(after.hits[0]!.message.content).toBe("the login test times out");
  again.close();
});

test("messages the embedder always refuses do not hold reindex open: the rest is embedded, they are named, and search says why", async () => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      const req = (await r.json()) as { input: string[] };
      return refuseOrEmbed(req);
    },
  });
  stops.push(() => server.stop(true));
  const url = `http://127.0.0.1:${server.port}`;
  const { home, api } = openTemp({ drain: "off" });
  // The first three of the batch refused in a row: the server still takes other text, so it is no server failure.
  const contents = ["POISON one", "POISON two", "POISON three", "the build is red", "a POISON reply", "the login test"];
  const ids = api.add(
    "s",
    contents.map((content, i) => ({ role: i % 2 ? ("assistant" as const) : ("user" as const), content })),
  ).ids;
  await api.drainEmbeddings();
  api.close();
  const refused = ids.filter((_, i) => contents[i]!.includes("POISON")).sort();
  const embeddable = ids.filter((_, i) => !contents[i]!.includes("POISON")).sort();

  const other = openMemory({ home, env, config: fakeConfig(url), drain: "off" });
  const r = await other.reindex();
  expect(r.error).toBeUndefined();
  expect(r).toMatchObject({ embedded: 2, failed: 4, remaining: 4, dropped: [BUILTIN_ID] });
  expect(r.refused!.map((m) => m.id).sort()).toEqual(refused);
  expect(r.refused![0]).toMatchObject({ session: "s", error: expect.stringContaining("(400): input not accepted") });
  expect(await tableIds(home)).toEqual([FAKE_ID]);
  expect(await vectorIds(home, FAKE_ID)).toEqual(embeddable);
  const s = await other.search({ query: "the login test", match: "semantic", limit: 1 });
  expect(s.reindexNeeded).toBe(false);
  expect(s.notes).toEqual([
    `4 messages are not indexed: the embedder refused them (openai embeddings (${url}/v1/embeddings) refused the request (400): input not accepted); keyword search still finds them`,
  ]);
  expect(s.hits[0]!.message.content).toBe("the login test");
  expect((await other.reindex()).resumed).toBe(false); // the rebuild was complete
  other.close();

  writeFileSync(
    join(home, "config.toml"),
    `[embedder]\nprovider = "openai"\nbase_url = "${url}"\nmodel = "fake-embed"\ndimensions = 8\n`,
  );
  const c = await cli(["reindex"], { home, env });
  expect(c.code, c.stderr).toBe(1);
  expect(c.stderr).toContain("the embedder refused 4 messages, which stay without a vector");
  for (const id of refused) expect(c.stderr).toContain(`${id} in session s: openai embeddings`);
  expect(c.stderr).not.toContain("resuming");
});
