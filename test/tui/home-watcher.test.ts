// The home watcher's watch of session folders: the shown one (followed when it is removed and made again), and those not adopted yet.
import { afterAll, expect, test } from "bun:test";
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

test("a home whose sessions/ and .store/ are made after the start: their making and the writes in them are noticed", async () => {
  const home = tempHome("memvoy-watch-");
  const paths = homeWatchPaths(home);
  let changes = 0;
  const watcher = new HomeWatcher(paths, () => changes++, 10, 0);
  watcher.start();
  try {
    mkdirSync(join(home, ".store"));
    await until(() => changes > 0);
    let before = changes;
    writeFileSync(`${paths.db}-wal`, "x");
    await until(() => changes > before);
    mkdirSync(paths.sessions);
    before = changes;
    mkdirSync(join(paths.sessions, "s2"));
    await until(() => changes > before);
  } finally {
    watcher.close();
  }
});

test("a home made after the start is watched from the next rewatch (Ctrl-L) on", async () => {
  const home = join(tempHome("memvoy-watch-"), "later");
  const paths = homeWatchPaths(home);
  let changes = 0;
  const watcher = new HomeWatcher(paths, () => changes++, 10, 0);
  watcher.start();
  try {
    mkdirSync(join(home, ".store"), { recursive: true });
    mkdirSync(paths.sessions);
    expect(watcher.rewatch()).toBe(true);
    writeFileSync(`${paths.db}-wal`, "x");
    await until(() => changes > 0);
    const before = changes;
    mkdirSync(join(paths.sessions, "s2"));
    await until(() => changes > before);
    expect(watcher.rewatch()).toBe(false);
  } finally {
    watcher.close();
  }
});
