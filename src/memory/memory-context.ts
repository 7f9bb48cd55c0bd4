// What every memory operation needs: the home's paths, its config, the database and a clock.
import type { Config } from "../config/schema.ts";
import type { HomePaths } from "../config/home.ts";
import type { Db } from "../storage/sqlite/db.ts";

export interface MemoryContext {
  readonly paths: HomePaths;
  readonly config: Config;
  readonly db: Db;
  /** UTC ns; injectable for tests. */
  readonly now: () => bigint;
  /** Environment for secrets (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL); process.env when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}
