// doctor on vectors in an object store (a shared home, and an embedded home with [vectors] uri): a store that
// lost the message vectors the archive says were made is named; and a message-vector table an earlier memvoy made (row ids are addresses) with its vector index built keeps removed messages'
// vectors in its files; doctor names it, and a removal says so, as on the home's own folder, until reindex
// rebuilds it.
import { beforeAll, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadLanceDb } from "../../src/storage/lance/load-lancedb.ts";
import { openMessageVectors } from "../../src/storage/ports/vector-port.ts";
import { cli } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend, type SharedEnv } from "../fixture/shared-backend.ts";

const describe = describePostgres();
const EMBEDDER = "builtin:v1:384";

describe("doctor on vectors in an object store", () => {
  const shared = sharedBackend();
  let env: SharedEnv;

  beforeAll(async () => {
    env = await shared.env("doctor_vectors");
  });

  /** Rewrite the prefix's message table as an earlier memvoy made it (no stable row ids), index built; its name. */
  async function asEarlierTable(prefix: string): Promise<string> {
    const location = shared.s3.location(prefix);
    if (location.kind !== "s3") throw new Error("not an S3 location");
    const store = await openMessageVectors(location);
    const name = (await store.tables([EMBEDDER]))[0]!.name;
    store.close();
    const { lancedb, arrow } = await loadLanceDb();
    const conn = await lancedb.connect(location.uri, { storageOptions: location.storageOptions });
    const old = await conn.openTable(name);
    const rows = await old.query().toArrow();
    const schema = await old.schema();
    old.close();
    await conn.dropTable(name);
    const metadata = new Map([...schema.metadata].filter(([k]) => k !== "memvoy.stable_row_ids"));
    const t = await conn.createEmptyTable(name, new arrow.Schema(schema.fields, metadata));
    await t.add(rows);
    await t.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine" }) });
    t.close();
    return name;
  }

  const notes = (tag: string) =>
    Array.from({ length: 60 }, (_, i) => JSON.stringify({ role: "user", content: `${tag} note ${i} on the deploy` }));

  for (const mode of ["shared", "embedded"] as const) {
    test(`${mode} home: doctor and a removal name the earlier memvoy's table in the bucket until reindex`, async () => {
      const prefix = `earlier-${mode}`;
      const home = shared.home(prefix);
      const on = mode === "shared" ? env : shared.s3.env;
      expect((await cli(["add", "s"], { home, env: on, stdin: notes(mode).join("\n") })).code).toBe(0);
      expect((await cli(["reindex"], { home, env: on })).code).toBe(0);
      const before = await cli(["doctor"], { home, env: on });
      expect({ code: before.code, last: before.stdout.trim().split("\n").at(-1) }).toEqual({
        code: 0,
        last: "all good",
      });
      const name = await asEarlierTable(prefix);
      const problem = `vector table ${name} was made by an earlier memvoy: removed messages' vectors stay in its files; memvoy reindex rebuilds it with stable row ids`;
      const text = await cli(["doctor"], { home, env: on });
      expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 1, stderr: "" });
      expect(text.stdout).toContain(`\n${problem}\n`);
      const json = await cli(["doctor", "--json"], { home, env: on });
      expect(JSON.parse(json.stdout).findings).toContainEqual({ problem, manual: true });
      // A removal says so too, as on the home's own folder.
      const id = (await cli(["history", "s", "--json"], { home, env: on }).then((r) => JSON.parse(r.stdout)))
        .messages[3].id;
      const rm = await cli(["rm-message", id], { home, env: on });
      expect({ code: rm.code, stderr: rm.stderr }).toEqual({
        code: 0,
        stderr:
          "memvoy: the vector table was made by an earlier memvoy: its data file keeps the removed messages' vectors (not their text) until `memvoy reindex` rebuilds it\n",
      });
      expect((await cli(["reindex"], { home, env: on })).code).toBe(0);
      const after = await cli(["doctor"], { home, env: on });
      expect({ code: after.code, last: after.stdout.trim().split("\n").at(-1) }).toEqual({ code: 0, last: "all good" });
    }, 180_000);
  }

  for (const mode of ["shared", "embedded"] as const) {
    test(`${mode} home: doctor names a bucket prefix that lost the message vectors, until reindex`, async () => {
      const prefix = `lost-${mode}`;
      const home = shared.home(prefix);
      const on = mode === "shared" ? await shared.env("lost_vectors") : shared.s3.env;
      expect((await cli(["add", "s"], { home, env: on, stdin: notes(mode).join("\n") })).code).toBe(0);
      expect((await cli(["reindex"], { home, env: on })).code).toBe(0);
      expect((await cli(["doctor"], { home, env: on })).code).toBe(0);
      rmSync(join(shared.s3.dir, shared.s3.bucket, prefix), { recursive: true, force: true });
      const problem = `the vectors at s3://${shared.s3.bucket}/${prefix} hold no message vectors of the configured embedder (${EMBEDDER}), but 60 recent message(s) were embedded: semantic search finds nothing until memvoy reindex runs`;
      const r = await cli(["doctor", "--json"], { home, env: on });
      expect({ code: r.code, findings: JSON.parse(r.stdout).findings }).toEqual({
        code: 1,
        findings: [{ problem, manual: true }],
      });
      expect((await cli(["reindex"], { home, env: on })).code).toBe(0);
      const after = await cli(["doctor"], { home, env: on });
      expect({ code: after.code, last: after.stdout.trim().split("\n").at(-1) }).toEqual({ code: 0, last: "all good" });
    }, 180_000);
  }

  for (const mode of ["shared", "embedded"] as const) {
    test(`${mode} home: doctor names a bucket prefix that lost the error-memory vectors, until reindex`, async () => {
      const prefix = `lost-errors-${mode}`;
      const home = shared.home(prefix);
      const on = mode === "shared" ? await shared.env("lost_errors") : shared.s3.env;
      const rec = [
        "errors",
        "record",
        "--tool",
        "make",
        "--error",
        "missing separator in line 12",
        "--fix",
        "use tabs",
      ];
      expect((await cli(rec, { home, env: on })).code).toBe(0);
      expect((await cli(["doctor"], { home, env: on })).code).toBe(0);
      const store = join(shared.s3.dir, shared.s3.bucket, prefix);
      for (const name of readdirSync(store).filter((n) => n.startsWith("error_memory_")))
        rmSync(join(store, name), { recursive: true, force: true });
      const problem = `the vectors at s3://${shared.s3.bucket}/${prefix} hold no error-memory vectors of ${EMBEDDER}, but 1 error record(s) were embedded: errors search matches by keyword only until memvoy reindex runs`;
      // A lookup does not embed it again.
      expect((await cli(["errors", "search", "make says a separator is missing"], { home, env: on })).code).toBe(0);
      const r = await cli(["doctor", "--json"], { home, env: on });
      expect({ code: r.code, findings: JSON.parse(r.stdout).findings }).toEqual({
        code: 1,
        findings: [{ problem, manual: true }],
      });
      expect((await cli(["reindex"], { home, env: on })).code).toBe(0);
      const after = await cli(["doctor"], { home, env: on });
      expect({ code: after.code, last: after.stdout.trim().split("\n").at(-1) }).toEqual({ code: 0, last: "all good" });
    }, 180_000);
  }
});
