// loadConfig for every command: the Config that a config.toml loaded to last time, when its text is the
// same and no MEMVOY_* setting applies, read from <home>/.store/config-cache.json; otherwise (and then saved)
// what loadConfig returns. A one-shot command then loads neither the TOML parser nor the schema.
import { closeSync, constants, lstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FILE_MODE } from "../shared/atomic-write.ts";
import { readRegularFile } from "../shared/regular-file.ts";
import type { Config } from "./schema.ts";

// The compiled binary carries the fingerprint as a literal (build.ts defines it). From source it is taken when
// first needed: a Bun macro would be refused in a consumer's node_modules, where the library runs from.
declare const MEMVOY_CONFIG_FINGERPRINT: string | undefined;
let fingerprint: string | undefined;
function currentFingerprint(): string {
  fingerprint ??=
    typeof MEMVOY_CONFIG_FINGERPRINT === "string"
      ? MEMVOY_CONFIG_FINGERPRINT
      : (require("./config-fingerprint.ts") as typeof import("./config-fingerprint.ts")).configFingerprint();
  return fingerprint;
}

interface CacheFile {
  fingerprint: string;
  /** config.toml's text; null: there was none (the defaults). */
  text: string | null;
  config: Config;
}

const loader = () => require("./load.ts") as typeof import("./load.ts");

/** Whether the environment sets anything that loadConfig reads (MEMVOY_* other than MEMVOY_HOME). */
function hasOverrides(env: Record<string, string | undefined>): boolean {
  for (const name of Object.keys(env)) if (name.startsWith("MEMVOY_") && name !== "MEMVOY_HOME") return true;
  return false;
}

function readText(file: string): string | null | undefined {
  try {
    return readRegularFile(file);
  } catch (err) {
    // A link to nothing is refused by loadConfig, never read as no config.
    return (err as NodeJS.ErrnoException).code === "ENOENT" && lstatSync(file, { throwIfNoEntry: false }) === undefined
      ? null
      : undefined;
  }
}

function cached(path: string, text: string | null): Config | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW); // a link in the home is never followed
    const c = JSON.parse(readFileSync(fd, "utf8")) as CacheFile;
    return c.fingerprint === currentFingerprint() && c.text === text ? c.config : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Saved beside the database, when the home has one; a failure only costs the next command the full load. */
function save(path: string, text: string | null, config: Config): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const body: CacheFile = { fingerprint: currentFingerprint(), text, config };
    writeFileSync(tmp, JSON.stringify(body), { mode: FILE_MODE, flag: "wx" }); // never through a planted link
    renameSync(tmp, path);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // a read-only home: nothing was written
    }
  }
}

/** loadConfig(file, env), the same Config or the same error. */
export function loadConfigCached(file: string, env: Record<string, string | undefined> = process.env): Config {
  if (hasOverrides(env)) return loader().loadConfig(file, env);
  const text = readText(file);
  if (text === undefined) return loader().loadConfig(file, env); // unreadable: its error
  const path = join(dirname(file), ".store", "config-cache.json");
  const hit = cached(path, text);
  if (hit) return hit;
  const config = loader().loadConfig(file, env);
  // Only what was read here is saved: a file changed meanwhile is loaded again by the next command.
  if (readText(file) === text) save(path, text, config);
  return config;
}
