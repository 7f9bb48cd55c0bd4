// <home>/http.json: the running daemon's URL and bearer token, 0600, written atomically at start and
// removed at a clean stop. The one secret file of a home.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { writeFileAtomic } from "../shared/atomic-write.ts";

export interface HttpFile {
  url: string;
  port: number;
  pid: number;
  token: string;
  startedAt: string;
}

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function writeHttpFile(path: string, f: HttpFile): void {
  writeFileAtomic(path, JSON.stringify(f, null, 2) + "\n");
}

export function readHttpFile(path: string): HttpFile | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const f = JSON.parse(readFileSync(path, "utf8")) as HttpFile;
    return typeof f.url === "string" && typeof f.token === "string" ? f : undefined;
  } catch {
    return undefined;
  }
}

export function removeHttpFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * The default port of a home: derived from its path (FNV-1a) into 20000-29999, below the ephemeral range,
 * so that daemons on two homes do not collide.
 */
export function derivedPort(home: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(home)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 20_000 + (h % 10_000);
}
