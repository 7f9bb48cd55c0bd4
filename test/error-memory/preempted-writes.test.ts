// A write to the error-vector table that another process preempted, or a write or search whose version's files
// another process's errors rm dropped, is made again on the latest version; a file of the latest version that stays
// gone is not.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorVectorStore, preempted, retryPreempted } from "../../src/storage/lance/error-vectors.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const TABLE = "/h/.store/lance/error_memory_builtin_v1_384_5cf0679f.lance";
// LanceDB's own words, read from runs of errors record beside an errors rm.
const DROPPED = [
  `lance error: Not found: Wrapped error: Not found: ${TABLE}/data/100010100011101111011101f4bde94497a3b4d693ca728527.lance`,
  `lance error: Not found: ${TABLE}/_versions/18446744073709551583.manifest`,
  `lance error: Not found: ${TABLE}/_transactions/31-5a1f0c.txn`,
  `lance error: Not found: ${TABLE}/_deletions/12-40-8812737.arrow`,
  "lance error: Invalid range 0..825 for object of size 691 bytes",
  "lance error: Retryable commit conflict for version 29: This Rewrite transaction was preempted by concurrent transaction Rewrite at version 29. Please retry.",
];

test("a version's manifest, transaction, data or deletion file gone, or a preempted commit, is made again", () => {
  for (const message of DROPPED) expect(preempted(new Error(message)), message).toBe(true);
  expect(preempted(new Error("lance error: Invalid user input: Schema error: field vector has 3 dimensions"))).toBe(
    false,
  );
});

test("a commit whose version's data file went is made again until it holds; one that stays gone is thrown", async () => {
  let calls = 0;
  const done = await retryPreempted(async () => {
    if (++calls < 3) throw new Error(DROPPED[0]);
    return "stored";
  });
  expect([done, calls]).toEqual(["stored", 3]);

  let tries = 0;
  const gone = retryPreempted(async () => {
    tries++;
    throw new Error(DROPPED[0]);
  });
  await expect(gone).rejects.toThrow("data/100010100011101111011101");
  expect(tries).toBe(6);
});

test("searches made while another process removes records (dropping the older versions) never find a file gone", async () => {
  const dir = mkdtempSync(join(tmpdir(), "memvoy-errvec-"));
  dirs.push(dir);
  const store = await ErrorVectorStore.open(dir);
  const vector = (i: number) => Float32Array.from([1, Math.sin(i), Math.cos(i) + 1.5]);
  const ids = Array.from({ length: 100 }, (_, i) => `r${i}`);
  await store.upsert(
    "e:1:3",
    3,
    ids.map((id, i) => ({ id, vector: vector(i) })),
    { replace: false },
  );
  const remover = Bun.spawn(
    ["bun", join(import.meta.dir, "../fixture/vector-purger-main.ts"), "errors", dir, "e:1:3", "40"],
    { stdout: "pipe", stderr: "pipe" },
  );
  const failures: string[] = [];
  const reader = async () => {
    for (let i = 0; remover.exitCode === null; i++)
      for (const read of [
        () => store.search("e:1:3", vector(i), 5),
        () => store.search("e:1:3", vector(i), 5, ids.slice(0, 3)),
        () => store.sample("e:1:3", 50),
      ])
        await read().catch((err: Error) => failures.push(err.message));
  };
  await Promise.all([reader(), reader(), reader()]);
  expect(await remover.exited, await new Response(remover.stderr).text()).toBe(0);
  expect(failures).toEqual([]);
  expect((await store.ids("e:1:3")).sort()).toEqual(ids.toSorted());
  store.close();
}, 180_000);
