// A home on a read-only file system (a tmpfs remounted read-only; root only, skipped with the reason otherwise):
// every command says that the archive's folder is read-only, naming the file, instead of SQLite's bare
// "unable to open database file" or an error removing a config-cache temp file.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli } from "../fixture/home.ts";
import { mountTmpfs, tmpfsAvailable, type Tmpfs } from "./tmpfs.ts";

const available = tmpfsAvailable();
let fs: Tmpfs | undefined;
afterAll(() => fs?.unmount());

describe.skipIf(!available)("read-only home", () => {
  test("each command names history.db and the read-only file system, with exit code 1", async () => {
    fs = mountTmpfs(4 * 1024);
    const home = join(fs.dir, "home");
    expect((await cli(["add", "s1", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
    const remount = Bun.spawnSync(["mount", "-o", "remount,ro", fs.dir]);
    expect(remount.exitCode).toBe(0);
    for (const args of [["add", "s1", "--role", "user", "--content", "x"], ["history", "s1"], ["sessions"]]) {
      const r = await cli(args, { home });
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr.trim()).toBe(
        `memvoy: cannot open ${join(home, ".store", "history.db")}: its folder is on a read-only file system; memvoy writes to its home, even to read it`,
      );
    }
  });
});
