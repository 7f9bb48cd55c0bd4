// The session folders of a home: every valid id under sessions/, or only those whose names the archive lacks.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { MemoryContext } from "./memory-context.ts";

const SESSION_DIR = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Session folders on disk whose names `unknown` keeps (of all the names in sessions/, those the archive has
 * no row for): only the names are listed and those few looked at, far cheaper than a typed listing.
 */
export function unknownSessionDirs(
  ctx: Pick<MemoryContext, "paths">,
  unknown: (names: string[]) => string[],
): string[] {
  try {
    return unknown(readdirSync(ctx.paths.sessions)).filter(
      (name) =>
        SESSION_DIR.test(name) &&
        lstatSync(join(ctx.paths.sessions, name), { throwIfNoEntry: false })?.isDirectory() === true,
    );
  } catch {
    return [];
  }
}

/** Session folders on disk (valid ids only). */
export function sessionDirs(ctx: Pick<MemoryContext, "paths">): string[] {
  try {
    return readdirSync(ctx.paths.sessions, { withFileTypes: true })
      .filter((d) => d.isDirectory() && SESSION_DIR.test(d.name))
      .map((d) => d.name);
  } catch {
    return [];
  }
}
