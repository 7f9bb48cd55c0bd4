// The home watcher's watch of session folders: the shown one (followed when it is removed and made again), and those not adopted yet.
import { afterAll, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomeWatcher, homeWatchPaths } from "../../src/tui/live/home-watcher.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

/** Resolves once `check` holds; fails after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("a history.json written in the shown session's folder after that folder was made again is noticed", async () => {
  const home = tempHome("memvoy-watch-");
  const paths = homeWatchPaths(home);
  const folder = join(paths.sessions, "s");
  mkdirSync(folder, { recursive: true });
  mkdirSync(join(home, ".store"), { recursive: true });
  let changes = 0;
  const watcher = new HomeWatcher(paths, () => changes++, 10, 0);
  watcher.start();
  watcher.watchSession(folder);
  try {
    writeFileSync(join(folder, "history.json"), "[]");
    await until(() => changes > 0);
    rmSync(folder, { recursive: true });
    mkdirSync(folder);
    await until(() => changes > 1);
    // Past the change that the folder's return caused: a write inside it alone must be noticed.
    const before = changes;
    writeFileSync(join(folder, "history.json"), "[]");
    await until(() => changes > before);
  } finally {
    watcher.close();
  }
});

test("a history.json written in the folder of a session not adopted yet is noticed", async () => {
  const home = tempHome("memvoy-watch-");
  const paths = homeWatchPaths(home);
  const folder = join(paths.sessions, "new");
  mkdirSync(folder, { recursive: true });
  mkdirSync(join(home, ".store"), { recursive: true });
  let changes = 0;
  const watcher = new HomeWatcher(paths, () => changes++, 10, 0);
  watcher.start();
  watcher.watchUnadopted([folder]);
  try {
    writeFileSync(join(folder, "history.json"), "[]");
    await until(() => changes > 0);
  } finally {
    watcher.close();
  }
});
