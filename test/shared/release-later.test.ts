// A file replaced by a staged write with releaseReplacedLater: held across the rename, closed off the writer's
// thread (the I/O pool first, then the worker), never left behind under any name.
import { afterAll, expect, test } from "bun:test";
import { fstatSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stageFileAtomic } from "../../src/shared/atomic-write.ts";
import { holdFile, releaseLater } from "../../src/shared/release-later.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

/** Descriptors of this process on files removed from `dir` (Linux: /proc/self/fd names them "PATH (deleted)"). */
function heldRemoved(dir: string): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const to = readlinkSync(`/proc/self/fd/${fd}`);
      return to.startsWith(`${dir}/`) && to.endsWith(" (deleted)") ? [to] : [];
    } catch {
      return []; // closed meanwhile
    }
  });
}

test("holdFile holds a regular file (a FIFO without waiting for a writer), and nothing through a link or at a missing path", () => {
  const dir = tempHome();
  const file = join(dir, "doc.json");
  writeFileSync(file, "x");
  const fd = holdFile(file);
  expect(fd).toBeNumber();
  expect(fstatSync(fd!).ino).toBe(statSync(file).ino);
  releaseLater(fd!);
  symlinkSync(file, join(dir, "link.json"));
  expect(holdFile(join(dir, "link.json"))).toBeUndefined();
  expect(holdFile(join(dir, "missing.json"))).toBeUndefined();
  Bun.spawnSync(["mkfifo", join(dir, "fifo")]);
  const f = holdFile(join(dir, "fifo")); // opened without waiting for a writer
  expect(f).toBeNumber();
  releaseLater(f!);
});

test.if(process.platform === "linux")(
  "every replaced file is closed in the background, and none is left in the folder",
  async () => {
    const dir = tempHome();
    const target = join(dir, "doc.json");
    writeFileSync(target, "v0");
    for (let i = 1; i <= 6; i++) {
      stageFileAtomic(target, `v${i}`, { releaseReplacedLater: true }).commit();
      expect(readFileSync(target, "utf8")).toBe(`v${i}`);
      expect(readdirSync(dir)).toEqual(["doc.json"]);
      await Bun.sleep(20); // the second release starts the worker: later ones go to it once it runs
    }
    // The worker runs at the lowest priority: on a loaded machine it may wait its turn a while.
    for (let i = 0; i < 3000 && heldRemoved(dir).length > 0; i++) await Bun.sleep(10);
    expect(heldRemoved(dir)).toEqual([]);
  },
);

test("without the option, or with no file to replace, nothing is held", () => {
  const dir = tempHome();
  const target = join(dir, "doc.json");
  stageFileAtomic(target, "first", { releaseReplacedLater: true }).commit();
  stageFileAtomic(target, "second").commit();
  expect(readFileSync(target, "utf8")).toBe("second");
  expect(heldRemoved(dir)).toEqual([]);
});
