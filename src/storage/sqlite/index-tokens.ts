// Each message's length in keyword-index tokens, kept on its row (messages.index_tokens, 009-v0.5.sql): the
// body column of its FTS5 docsize record, which ranking needs for every row of a match window. Writers count
// the rows they index; the rows written before are counted by a background build (index-tokens-build.ts).
import type { Database } from "bun:sqlite";
import { schemaShape } from "./schema-shape.ts";

/** Whether messages has the column (a read-only connection to a home not yet migrated has not). */
export function hasTokenColumn(db: Database): boolean {
  return schemaShape(db).tokenColumn;
}

/** The first varint of a docsize record (the body column's token count); undefined for no record. */
export function bodyTokens(sz: Uint8Array | null | undefined): number | undefined {
  if (!sz || sz.length === 0) return undefined;
  let v = 0;
  for (let i = 0; i < sz.length && i < 9; i++) {
    const byte = sz[i]!;
    if (i === 8) return v * 256 + byte;
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) return v;
  }
  return v;
}

/**
 * Sets a row's count from its docsize record in messages_fts, right after the writer indexed it (FTS5 writes
 * docsize at once, unlike its terms); call inside the write transaction. A no-op on a home without the column.
 */
export function tokenCountWriter(db: Database): (seq: bigint) => void {
  if (!hasTokenColumn(db)) return () => {};
  const read = db.query("SELECT sz FROM messages_fts_docsize WHERE id = ?");
  const write = db.query("UPDATE messages SET index_tokens = ? WHERE seq = ?");
  return (seq) => {
    const n = bodyTokens((read.get(seq) as { sz: Uint8Array } | null)?.sz);
    write.run(n ?? null, seq);
  };
}

/**
 * SQL for a window row's length in index tokens, every column (what FTS5's docsize sums), from the row `m`:
 * its count plus the session column's one token once the index has it, or its docsize record (a blob the
 * caller sums) while the count is missing. Without the column, the docsize record. `inline`: SQL true for the
 * rows whose count is read from the row; the others' docsize is read (the count is stored after the text, past a
 * long text's overflow pages).
 */
export function windowTokensSql(db: Database, sessionColumn: boolean, inline?: string): string {
  const docsize = "(SELECT sz FROM messages_fts_docsize WHERE id = m.seq)";
  if (!hasTokenColumn(db)) return docsize;
  const count = `coalesce(m.index_tokens + ${sessionColumn ? 1 : 0}, ${docsize})`;
  return inline ? `CASE WHEN ${inline} THEN ${count} ELSE ${docsize} END` : count;
}
