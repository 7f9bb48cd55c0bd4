// Temp homes for error-memory tests: the library on a movable clock, the fixture loaded, raw file scans.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { openMemory, type HomeMemory } from "../../src/app/open-memory.ts";
import { validateConfig } from "../../src/config/load.ts";
import { NS_PER_DAY } from "../../src/shared/time.ts";
import { tempHome } from "../fixture/home.ts";
import { RECORDS } from "./fixture.ts";

export const DAY = NS_PER_DAY;
/** 2027-01-15T08:00:00Z */
export const T0 = 1_799_971_200_000_000_000n;

export interface ErrorHome {
  home: string;
  api: HomeMemory;
  clock: { now: bigint };
}

export function errorHome(config: Record<string, unknown> = {}, home = tempHome("memvoy-errors-")): ErrorHome {
  const clock = { now: T0 };
  const api = openMemory({ home, env: {}, config: validateConfig(config, "test config"), now: () => clock.now });
  return { home, api, clock };
}

/** Record every fixture record; returns fixture key -> record id. */
export async function loadFixture(api: HomeMemory): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const { key, ...rec } of RECORDS) {
    const r = await api.recordError(rec);
    if (r.merged) throw new Error(`fixture record ${key} merged into another`);
    ids.set(key, r.record.id);
  }
  return ids;
}

/** Every file under `dir` whose bytes contain `needle` (the database, its WAL, the vector store…). */
export function filesContaining(dir: string, needle: string): string[] {
  const out: string[] = [];
  const want = Buffer.from(needle);
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (readFileSync(p).includes(want)) out.push(p);
    }
  };
  walk(dir);
  return out;
}
