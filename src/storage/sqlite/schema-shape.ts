// What of the schema the code must know before it writes SQL against it (the keyword index's session column,
// messages.index_tokens, the substring index and its tables): read in one statement, kept per connection while the schema
// version stays the same (another process may swap the keyword index or migrate the database meanwhile).
import type { Database } from "bun:sqlite";
import { scoped } from "./write-stamp.ts";

export interface SchemaShape {
  /** messages_fts has the session column (fts-upgrade.ts). */
  readonly ftsSession: boolean;
  /** messages has index_tokens (index-tokens.ts). */
  readonly tokenColumn: boolean;
  /** The substring index exists (substring-index.ts). */
  readonly trigramIndex: boolean;
  /** The substring index has a table per tier (substring-index.ts). */
  readonly trigramSplit: boolean;
  /** Long messages' starts are kept apart (message_starts, ranked-text.ts). */
  readonly messageStarts: boolean;
  /** Whether messages may hold İ or the Kelvin sign is kept (folded_letters, folded-letters.ts). */
  readonly foldedLetters: boolean;
}

// Each a column of one statement that also reads schema_version: the shape and its version are read together.
const PROBES = `s.schema_version AS version,
  EXISTS (SELECT 1 FROM pragma_table_xinfo('messages_fts') WHERE name = 'sess') AS fts_session,
  EXISTS (SELECT 1 FROM pragma_table_xinfo('messages') WHERE name = 'index_tokens') AS token_column,
  EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'trigram_build') AS trigram_index,
  EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'trigram_split') AS trigram_split,
  EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'message_starts') AS message_starts,
  EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'folded_letters') AS folded_letters`;

type ProbeRow = {
  version: bigint | number;
  fts_session: bigint | number;
  token_column: bigint | number;
  trigram_index: bigint | number;
  trigram_split: bigint | number;
  message_starts: bigint | number;
  folded_letters: bigint | number;
};

const known = new WeakMap<Database, { version: bigint; shape: SchemaShape }>();

function remember(db: Database, r: ProbeRow): SchemaShape {
  const shape = {
    ftsSession: Number(r.fts_session) === 1,
    tokenColumn: Number(r.token_column) === 1,
    trigramIndex: Number(r.trigram_index) === 1,
    trigramSplit: Number(r.trigram_split) === 1,
    messageStarts: Number(r.message_starts) === 1,
    foldedLetters: Number(r.folded_letters) === 1,
  };
  known.set(db, { version: BigInt(r.version), shape });
  return shape;
}

/** The schema's shape, probed again only when the schema version has moved since it was last read. */
export function schemaShape(db: Database): SchemaShape {
  return scoped(db, "schemaShape", () => {
    const version = (db.query("PRAGMA schema_version").get() as { schema_version: bigint | number }).schema_version;
    const k = known.get(db);
    if (k && k.version === BigInt(version)) return k.shape;
    return remember(db, db.query(`SELECT ${PROBES} FROM pragma_schema_version s`).get() as ProbeRow);
  });
}

/**
 * A new connection's first read: the journal mode and user_version, with the schema's shape (kept for
 * schemaShape) in the same statement, so that opening a home costs one statement where it cost several.
 */
export function openingRead(db: Database): { journalMode: string; userVersion: number } {
  const r = db
    .query(
      `SELECT j.journal_mode AS journal_mode, u.user_version AS user_version, ${PROBES} FROM pragma_journal_mode j, pragma_user_version u, pragma_schema_version s`,
    )
    .get() as ProbeRow & { journal_mode: string; user_version: bigint | number };
  remember(db, r);
  return { journalMode: r.journal_mode, userVersion: Number(r.user_version) };
}
