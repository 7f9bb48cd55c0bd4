// The handle of the home's SQLite database, as the rest of the code names it.
import type { Database } from "bun:sqlite";

export type Db = Database;
