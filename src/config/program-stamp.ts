// What a process answers searches with: this build of memvoy (its version, the executable file as it is now,
// the entry module) and the effective Config. Two processes with the same stamp answer a search alike.
import { statSync } from "node:fs";
import pkg from "../../package.json" with { type: "json" };
import type { Config } from "./schema.ts";

export function programStamp(config: Config): string {
  let exe = "";
  try {
    const s = statSync(process.execPath);
    exe = `${s.size}:${s.mtimeMs}:${s.ino}`; // a binary replaced in place (an upgrade) is another program
  } catch {
    // no executable to stat: the version and the entry still tell builds apart
  }
  const identity = JSON.stringify([pkg.version, process.execPath, exe, Bun.main, config]);
  return Bun.hash(identity).toString(36);
}
