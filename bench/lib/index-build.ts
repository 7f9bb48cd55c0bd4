// Bench homes built before the search index upgrades get them here, timed (what `memvoy doctor --migrate`
// does), with the substring index's size once built.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { log, type BenchRow } from "./report.ts";
import { fmtMs } from "./stats.ts";

export async function upgradeIndexes(home: string, what: string, rows: BenchRow[]): Promise<void> {
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    if (api.indexUpgrade().done) return;
    log(`upgrading the search indexes of the ${what} home`);
    const r = await api.upgradeIndex();
    rows.push({
      name: `search index upgrades (doctor --migrate), ${what} home: ${r.copied} rows indexed`,
      value: `${(r.ms / 1000).toFixed(1)} s, longest write ${fmtMs(r.longestStepMs)}`,
    });
  } finally {
    api.close();
  }
}

/** Bytes of the substring index (every page of its tables) and of the whole database. */
export function substringIndexSize(home: string): { index: number; db: number } {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    const sum = (where: string) =>
      Number((db.query(`SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE ${where}`).get() as { n: number }).n);
    return { index: sum("name LIKE 'messages_trigram%'"), db: sum("1") };
  } finally {
    db.close();
  }
}
