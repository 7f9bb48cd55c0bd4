// SCHEMA_VERSION (what open checks without loading the migrations) is the number of migrations; a new
// database is migrated to it, also when another process makes it meanwhile; a newer one is refused (older ones:
// index-tokens and substring-index tests).
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/storage/sqlite/migrations/index.ts";
import { SCHEMA_VERSION } from "../../src/storage/sqlite/migrations/schema-version.ts";
import { openDatabase, schemaVersion, SchemaTooNewError } from "../../src/storage/sqlite/open-database.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { spyStatements } from "../fixture/statement-spy.ts";

afterAll(removeTempHomes);

test("SCHEMA_VERSION counts the migrations", () => {
  expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
});

test("open: a new database is migrated to SCHEMA_VERSION, opened again as it is; a newer one is refused", () => {
  const path = join(tempHome(), "history.db");
  const db = openDatabase(path);
  expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
  db.close();
  const again = openDatabase(path);
  expect(schemaVersion(again)).toBe(SCHEMA_VERSION);
  again.close();
  const newer = new Database(path);
  newer.run(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  newer.close();
  expect(() => openDatabase(path)).toThrow(SchemaTooNewError);
});

test("open: a new database another process makes right after this one's first read is opened, not refused as another program's", () => {
  const path = join(tempHome(), "history.db");
  // The first read of a new database finds user_version 0; the other maker's tables (and user_version, in the same
  // transaction) are committed before the next statement.
  let firstRead = false;
  let made = false;
  const stop = spyStatements(
    () => true,
    (text) => {
      if (made) return;
      if (!firstRead) {
        firstRead = text.includes("pragma_journal_mode");
        return;
      }
      made = true;
      openDatabase(path).close();
    },
  );
  try {
    const db = openDatabase(path);
    expect(made).toBe(true);
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    db.close();
  } finally {
    stop();
  }
});
