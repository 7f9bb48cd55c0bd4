// The saved config (<home>/.store/config-cache.json): the same Config or the same error as loadConfig, used only
// for the exact config.toml text it was made from and never with MEMVOY_* settings.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfigCached } from "../../src/config/load-cached.ts";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

function home(text?: string): { file: string; cache: string } {
  const dir = tempHome();
  mkdirSync(join(dir, ".store"), { recursive: true });
  const file = join(dir, "config.toml");
  if (text !== undefined) writeFileSync(file, text);
  return { file, cache: join(dir, ".store", "config-cache.json") };
}

/** Replace the saved Config (keeping its text and fingerprint), to see whether it is read. */
function forge(cache: string, maxHistoryMessages: number): void {
  const saved = JSON.parse(readFileSync(cache, "utf8"));
  saved.config.limits.max_history_messages = maxHistoryMessages;
  writeFileSync(cache, JSON.stringify(saved));
}

test("the first load saves what loadConfig returns; the next one reads it back", () => {
  const { file, cache } = home("[limits]\nmax_history_messages = 40\n");
  const first = loadConfigCached(file, {});
  expect(first).toEqual(loadConfig(file, {}));
  expect(existsSync(cache)).toBe(true);
  expect(loadConfigCached(file, {})).toEqual(first);
  forge(cache, 41);
  expect(loadConfigCached(file, {}).limits.max_history_messages).toBe(41);
});

test("a saved config that is a symbolic link is not followed: the file is loaded in full", () => {
  const { file, cache } = home("[limits]\nmax_history_messages = 40\n");
  loadConfigCached(file, {});
  forge(cache, 41);
  const elsewhere = join(tempHome(), "forged.json");
  renameSync(cache, elsewhere);
  symlinkSync(elsewhere, cache);
  expect(loadConfigCached(file, {}).limits.max_history_messages).toBe(40);
});

test("a changed config.toml is loaded again, and a broken one fails as loadConfig fails", () => {
  const { file, cache } = home("[limits]\nmax_history_messages = 40\n");
  loadConfigCached(file, {});
  writeFileSync(file, "[limits]\nmax_history_messages = 50\n");
  expect(loadConfigCached(file, {}).limits.max_history_messages).toBe(50);
  writeFileSync(file, "[limits]\nmax_history_messages = 0\n");
  expect(() => loadConfigCached(file, {})).toThrow(ConfigError);
  expect(() => loadConfigCached(file, {})).toThrow(/limits\.max_history_messages/);
  writeFileSync(file, "[limits\n");
  expect(() => loadConfigCached(file, {})).toThrow(/TOML syntax error/);
  expect(JSON.parse(readFileSync(cache, "utf8")).text).toBe("[limits]\nmax_history_messages = 50\n");
});

test("MEMVOY_* settings bypass the saved config; MEMVOY_HOME does not", () => {
  const { file, cache } = home("[limits]\nmax_history_messages = 40\n");
  loadConfigCached(file, {});
  forge(cache, 41);
  expect(loadConfigCached(file, { MEMVOY_LIMITS_MAX_HISTORY_MESSAGES: "60" }).limits.max_history_messages).toBe(60);
  expect(loadConfigCached(file, { MEMVOY_OTHER: "x" }).limits.max_history_messages).toBe(40);
  expect(loadConfigCached(file, { MEMVOY_HOME: "/elsewhere" }).limits.max_history_messages).toBe(41);
});

test("no config.toml: the defaults, saved as such; a config.toml written later is read", () => {
  const { file, cache } = home();
  expect(loadConfigCached(file, {})).toEqual(loadConfig(file, {}));
  expect(JSON.parse(readFileSync(cache, "utf8")).text).toBeNull();
  writeFileSync(file, "");
  forge(cache, 41);
  expect(loadConfigCached(file, {}).limits.max_history_messages).toBe(16);
});

test("a saved config of another build, or an unreadable one, is not used", () => {
  const { file, cache } = home("[limits]\nmax_history_messages = 40\n");
  loadConfigCached(file, {});
  const saved = JSON.parse(readFileSync(cache, "utf8"));
  saved.fingerprint = "0000000000000000";
  saved.config.limits.max_history_messages = 41;
  writeFileSync(cache, JSON.stringify(saved));
  expect(loadConfigCached(file, {}).limits.max_history_messages).toBe(40);
  writeFileSync(cache, "{not json");
  expect(loadConfigCached(file, {}).limits.max_history_messages).toBe(40);
});

test("a folder with no .store gets no saved config", () => {
  const { file, cache } = home("[limits]\nmax_history_messages = 40\n");
  rmSync(join(file, "..", ".store"), { recursive: true });
  expect(loadConfigCached(file, {}).limits.max_history_messages).toBe(40);
  expect(existsSync(cache)).toBe(false);
  expect(existsSync(join(file, "..", ".store"))).toBe(false);
});

test("the CLI: a config.toml edited between two commands takes effect, an invalid one exits 2", async () => {
  const { file } = home("[limits]\nmax_history_messages = 40\n");
  const dir = join(file, "..");
  expect((await cli(["sessions", "--json"], { home: dir })).code).toBe(0);
  writeFileSync(file, "[limits]\nmax_history_messages = 0\n");
  const r = await cli(["sessions", "--json"], { home: dir });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("limits.max_history_messages");
});
