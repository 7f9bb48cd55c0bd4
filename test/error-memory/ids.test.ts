import { afterAll, describe, expect, test } from "bun:test";
import { AmbiguousErrorIdError, UnknownErrorIdError } from "../../src/memory/error-memory/error-ids.ts";
import { InputError } from "../../src/lib.ts";
import { ErrorVectorStore } from "../../src/storage/lance/error-vectors.ts";
import { join } from "node:path";
import { removeTempHomes } from "../fixture/home.ts";
import { errorHome, loadFixture } from "./error-home.ts";

afterAll(removeTempHomes);

describe("short ids", () => {
  test("ids are 8 hex digits, unique; any unique prefix finds the record, in any case", async () => {
    const { api } = errorHome();
    const ids = [...(await loadFixture(api)).values()];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    for (const id of ids.slice(0, 10)) {
      const unique = [...Array(8).keys()]
        .map((n) => id.slice(0, n + 1))
        .find((p) => ids.filter((x) => x.startsWith(p)).length === 1)!;
      expect(api.getError(unique).id).toBe(id);
      expect(api.getError(unique.toUpperCase()).id).toBe(id);
      expect(api.getError(id).id).toBe(id);
    }
    api.close();
  }, 30_000);

  test("an unknown id and an ambiguous prefix give clear input errors, and rm changes nothing then", async () => {
    const { api } = errorHome();
    const ids = [...(await loadFixture(api)).values()];
    // 60+ ids over 16 hex digits: some first digit is shared.
    const shared = [...new Set(ids.map((i) => i[0]!))].find((c) => ids.filter((i) => i.startsWith(c)).length > 1)!;
    const unknown = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
      .flatMap((a) =>
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"].map((b) => a + b),
      )
      .find((p) => !ids.some((i) => i.startsWith(p)))!;

    expect(() => api.getError(unknown)).toThrow(UnknownErrorIdError);
    expect(() => api.getError(unknown)).toThrow(`no error record with id "${unknown}"`);
    expect(() => api.getError(shared)).toThrow(AmbiguousErrorIdError);
    expect(() => api.getError(shared)).toThrow(
      new RegExp(`error id prefix "${shared}" is ambiguous: ${shared}[0-9a-f]{7} \\(`),
    );
    expect(() => api.getError("not-hex")).toThrow(/is not an error id/);
    expect(() => api.getError(ids[0]! + "0")).toThrow(UnknownErrorIdError);
    for (const bad of [unknown, shared, "zz"]) {
      await expect(api.removeError(bad)).rejects.toBeInstanceOf(InputError);
    }
    expect(api.listErrors().total).toBe(ids.length);
    api.close();
  }, 30_000);

  test("rm deletes one record and its vector", async () => {
    const { api, home } = errorHome();
    const a = await api.recordError({ tool: "git", error: "fatal: not a git repository", fix: "cd to the repo" });
    const b = await api.recordError({
      tool: "git",
      error: "fatal: refusing to merge unrelated histories",
      fix: "--allow-unrelated-histories",
    });
    const r = await api.removeError(a.record.id.slice(0, 7));
    expect(r.removed.id).toBe(a.record.id);
    expect(r.notes).toEqual([]);
    expect(api.listErrors().records.map((x) => x.id)).toEqual([b.record.id]);
    expect((await api.searchErrors({ query: "not a git repository" })).hits.map((h) => h.record.id)).not.toContain(
      a.record.id,
    );
    const store = await ErrorVectorStore.open(join(home, ".store", "lance"));
    const [table] = await store.tables();
    expect(await store.ids(table!.embedderId)).toEqual([b.record.id]);
    store.close();
    api.close();
  }, 30_000);
});
