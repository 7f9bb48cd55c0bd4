// doctor's look at file modes: memvoy keeps every file it makes 0600 and every folder 0700, but a home copied or
// restored under another umask (cp -r, tar, a sync tool) can leave the archive and the sessions readable by other
// users. --repair takes the group and other bits off; links are left alone (named elsewhere, never followed).
import { chmodSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { dirEntries } from "../shared/dir-entries.ts";
import type { DoctorFinding } from "./doctor-finding.ts";
import type { MemoryContext } from "./memory-context.ts";

/** What memvoy makes in the home (the home itself and config.toml are the user's choice). */
const OWN = ["sessions", ".store", "daemon.log", "daemon.lock", "daemon.state.json", "http.json", "tui.log"];

/** The paths memvoy made that other users may read or write. */
function openToOthers(ctx: Pick<MemoryContext, "paths">): { path: string; mode: number }[] {
  const out: { path: string; mode: number }[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push({ path, mode: st.mode & 0o777 });
    if (st.isDirectory()) for (const e of dirEntries(path)) visit(join(path, e.name));
  };
  for (const name of OWN) visit(join(ctx.paths.home, name));
  return out;
}

export function modeFindings(ctx: Pick<MemoryContext, "paths">, repair: boolean): DoctorFinding[] {
  const open = openToOthers(ctx);
  if (open.length === 0) return [];
  const first = open[0]!;
  const f: DoctorFinding = {
    problem: `${open.length} file(s) or folder(s) in the home are open to other users (${first.path} is ${first.mode.toString(8).padStart(4, "0")}); memvoy keeps files 0600 and folders 0700`,
  };
  if (!repair) return [f];
  const foreign: string[] = []; // another user's (a home restored as root): only its owner or root may change it
  for (const { path, mode } of open) {
    try {
      chmodSync(path, mode & 0o700);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EPERM" && code !== "EACCES") throw err;
      foreign.push(path);
    }
  }
  const left = openToOthers(ctx).length - foreign.length; // a file system without Unix permissions (FAT, some network mounts)
  if (left === 0 && foreign.length === 0)
    f.repaired = `took the group and other permissions off ${open.length} file(s) or folder(s)`;
  else {
    if (foreign.length > 0)
      f.problem += `; ${foreign.length} belong to another user (${foreign[0]}), whose modes only that user or root can change: chown them to the user running memvoy`;
    if (left > 0)
      f.problem += `; the file system keeps no permissions, ${left} are still open: move the home to one that does`;
    f.manual = true;
  }
  return [f];
}
