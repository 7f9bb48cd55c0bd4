import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ErrorVectorStore } from "../../src/storage/lance/error-vectors.ts";
import { removeTempHomes } from "../fixture/home.ts";
import { errorHome } from "./error-home.ts";

afterAll(removeTempHomes);

test("reset, reset --all and rm of any session leave error memory intact", async () => {
  const { api, home } = errorHome();
  for (const s of ["alpha", "beta", "gamma"]) {
    api.add(s, [
      { role: "user", content: `deploy ${s} failed with index.lock` },
      { role: "assistant", content: "remove the stale lock" },
    ]);
  }
  const a = await api.recordError({
    tool: "git",
    error: "fatal: Unable to create '.git/index.lock': File exists.",
    fix: "rm .git/index.lock",
  });
  const b = await api.recordError({
    tool: "docker",
    error: "Bind for 0.0.0.0:8080 failed: port is already allocated",
    fix: "stop the other container",
  });
  const before = api.listErrors();

  api.reset("alpha");
  api.reset("beta", { all: true });
  api.remove("gamma");
  expect(
    api
      .sessions()
      .map((s) => s.id)
      .sort(),
  ).toEqual(["alpha", "beta"]);
  expect((await api.search({ query: "index.lock" })).hits).toEqual([]);

  const after = api.listErrors();
  expect(after.records.map((r) => [r.id, r.fix, r.occurrences])).toEqual(
    before.records.map((r) => [r.id, r.fix, r.occurrences]),
  );
  expect((await api.searchErrors({ query: "index.lock File exists" })).hits.map((h) => h.record.id)).toEqual([
    a.record.id,
  ]);
  const store = await ErrorVectorStore.open(join(home, ".store", "lance"));
  const [table] = await store.tables();
  expect((await store.ids(table!.embedderId)).sort()).toEqual([a.record.id, b.record.id].sort());
  store.close();
  api.close();
});
