// An error lookup restarts the TTL of the records it returns and of no other: a page past the first (MCP
// offset, the library's and the HTTP API's offset) leaves the records ranked before it as they were.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { TOOLS } from "../../src/mcp/tools.ts";
import type { ErrorRecordJson } from "../../src/app/api/json-types.ts";
import { connectTo, removeTempDirs, serveHome, type Served } from "./support.ts";

let s: Served;
const ids: string[] = [];
beforeAll(async () => {
  s = serveHome();
  for (const host of ["alpha", "bravo", "charlie", "delta"]) {
    const r = await s.local.recordError({
      tool: "git",
      error: `fatal: unable to access 'https://${host}.example/repo.git/': Could not resolve host: ${host}.example`,
      fix: `put ${host}.example in /etc/hosts`,
    });
    ids.push(r.record.id);
  }
});
afterAll(async () => {
  await s.close();
  removeTempDirs();
});

const QUERY = "Could not resolve host";

/** Each record's hit count and expiry, read without a hit. */
async function state(): Promise<Map<string, Pick<ErrorRecordJson, "hits" | "expiresAt">>> {
  const { records } = await s.local.listErrors();
  return new Map(records.map((r) => [r.id, { hits: r.hits, expiresAt: r.expiresAt }]));
}

/** The records of `before` other than `shown` are unchanged; each of `shown` has one hit more. */
async function onlyShownTouched(before: Awaited<ReturnType<typeof state>>, shown: string[]) {
  const after = await state();
  expect(shown).toHaveLength(1);
  for (const [id, b] of before) {
    if (shown.includes(id)) expect(after.get(id)!.hits).toBe(b.hits + 1);
    else expect(after.get(id)).toEqual(b);
  }
}

test("MCP error_memory lookup with an offset: only the record on the page is a hit", async () => {
  const tool = TOOLS.find((t) => t.name === "error_memory")!;
  const all = (await tool.run(s.local, { mode: "lookup", error: QUERY, limit: 4 })).value as {
    hits: { id: string }[];
  };
  expect(all.hits.map((h) => h.id).toSorted()).toEqual(ids.toSorted());
  const before = await state();
  const page = (await tool.run(s.local, { mode: "lookup", error: QUERY, limit: 1, offset: 2 })).value as {
    hits: { id: string }[];
  };
  expect(page.hits.map((h) => h.id)).toEqual([all.hits[2]!.id]);
  await onlyShownTouched(
    before,
    page.hits.map((h) => h.id),
  );

  const past = (await tool.run(s.local, { mode: "lookup", error: QUERY, offset: 4 })).value;
  expect(past).toMatchObject({
    hits: [],
    emptyReason: "offset 4 is past the end: the lookup found no more than 4 records",
  });
});

test("the library's and the HTTP API's searchErrors take an offset, and only the page is a hit", async () => {
  for (const api of [s.local, connectTo(s)]) {
    const all = await api.searchErrors({ query: QUERY, limit: 4 });
    expect(all.hits).toHaveLength(4);
    const before = await state();
    const page = await api.searchErrors({ query: QUERY, limit: 1, offset: 1 });
    expect(page.hits.map((h) => h.id)).toEqual([all.hits[1]!.id]);
    await onlyShownTouched(
      before,
      page.hits.map((h) => h.id),
    );
  }
  const r = await s.fetch("/v1/errors/search", {
    method: "POST",
    body: JSON.stringify({ query: QUERY, offset: -1 }),
  });
  expect(r.status).toBe(400);
  expect(((await r.json()) as { error: { message: string } }).error.message).toContain(
    "offset must be a whole number from 0 to 1000",
  );
});

test("MCP error_memory lookup cut by max_chars: the records left out are no hits; hit false is a look without one", async () => {
  for (const step of ["copy the context", "extract the tarball", "commit the layer"])
    await s.local.recordError({
      tool: "docker",
      error: `failed to ${step}: no space left on device`,
      fix: `free space, then ${step} again: ${"docker image prune -a; ".repeat(150)}`,
    });
  const query = { query: "no space left on device", tool: "docker" };
  const before = await state();
  const peek = await s.local.searchErrors({ ...query, hit: false });
  expect(peek.hits).toHaveLength(3);
  expect(await state()).toEqual(before);

  const tool = TOOLS.find((t) => t.name === "error_memory")!;
  const cut = (await tool.run(s.local, { mode: "lookup", error: query.query, tool: "docker", max_chars: 4000 }))
    .value as { hits: { id: string; hits: number }[]; truncated?: boolean; next_offset?: number };
  expect(cut).toMatchObject({ truncated: true, next_offset: 1 });
  expect(cut.hits.map((h) => [h.id, h.hits])).toEqual([[peek.hits[0]!.id, 1]]);
  await onlyShownTouched(
    before,
    cut.hits.map((h) => h.id),
  );
});
