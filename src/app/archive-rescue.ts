// The rescue of a broken history.db for front-ends (doctor), without opening the archive.
import { homePaths, resolveHome } from "../config/home.ts";
import { planRescue, rescueArchive, type RescuePlan, type RescueReport } from "../memory/archive-rescue.ts";
import { nowNs } from "../shared/time.ts";
import { lockHeldElsewhere } from "../shared/file-lock.ts";
import { join } from "node:path";
export { BrokenDatabaseError } from "../storage/sqlite/broken-database.ts";
export type { RescuePlan, RescueReport };

export function planArchiveRescue(
  problem: string,
  home?: string,
  env: Record<string, string | undefined> = process.env,
): RescuePlan {
  return planRescue(homePaths(resolveHome(home, env)), problem);
}

export function rescueBrokenArchive(
  problem: string,
  home?: string,
  env: Record<string, string | undefined> = process.env,
): RescueReport | undefined {
  return rescueArchive(homePaths(resolveHome(home, env)), problem, nowNs());
}

/** Whether a rescue would wait now: another process holds the home's writer lock (another rescue, a writer). */
export function rescueWouldWait(home?: string, env: Record<string, string | undefined> = process.env): boolean {
  return lockHeldElsewhere(join(homePaths(resolveHome(home, env)).store, "write.lock"));
}
