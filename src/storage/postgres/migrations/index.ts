// Ordered PostgreSQL schema migrations; memvoy_schema.version holds how many have run. Append only.
import archive from "./001-archive.sql" with { type: "text" };
import v04 from "./002-v0.4.sql" with { type: "text" };
import v05 from "./003-v0.5.sql" with { type: "text" };
// 004: the append in time linear in its batch, and the count of tombstone writes (one migration for both).
import v06 from "./004-v0.6.sql" with { type: "text" };
// 005: a trigram index for the substring match over the recent tier, when pg_trgm can be created.
import v07 from "./005-v0.7.sql" with { type: "text" };
// 006: the senders' index, and a trigram index for the symbol match over the archived tier (when pg_trgm can be created).
import v08 from "./006-v0.8.sql" with { type: "text" };

export const PG_MIGRATIONS: readonly string[] = [archive, v04, v05, v06, v07, v08];
