// The schema version a current database has: how many MIGRATIONS there are (a test checks they agree), known
// without loading the migrations' SQL, which only a database behind the current version needs.
export const SCHEMA_VERSION = 14;
