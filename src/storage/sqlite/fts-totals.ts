// FTS5's own running totals of an index table (its averages record), and the SQLite varints they are kept in.
import type { Database } from "bun:sqlite";
import { scoped } from "./write-stamp.ts";

/** Rows in an FTS5 table and their mean length in tokens (the averages record, row 1 of its %_data table). */
export function ftsTotals(db: Database, table = "messages_fts"): { rows: number; avgTokens: number } {
  const r = scoped(db, `ftsTotals:${table}`, () => db.query(`SELECT block FROM ${table}_data WHERE id = 1`).get()) as {
    block: Uint8Array;
  } | null;
  if (!r) return { rows: 0, avgTokens: 1 };
  const v = varints(r.block);
  const rows = v[0] ?? 0;
  const tokens = v.slice(1).reduce((a, b) => a + b, 0);
  return { rows, avgTokens: rows > 0 ? Math.max(1, tokens / rows) : 1 };
}

/** SQLite varints (big-endian, 7 bits a byte, a 9th byte of 8 bits). */
export function varints(b: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < b.length) {
    let v = 0;
    for (let n = 0; i < b.length; n++) {
      const byte = b[i++]!;
      if (n === 8) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    out.push(v);
  }
  return out;
}

/** A row's length in index tokens: counted already, or the sum of its docsize record's varints (one-byte varints, the usual case, are summed as they are). */
export function docTokens(sz: Uint8Array | bigint | number | null): number {
  if (typeof sz === "bigint" || typeof sz === "number") return Number(sz);
  if (!sz) return 0;
  let sum = 0;
  // An indexed loop: an iterator per row costs more in a fresh process, which runs it unoptimised.
  for (let i = 0; i < sz.length; i++) {
    const b = sz[i]!;
    if (b & 0x80) return varints(sz).reduce((a, x) => a + x, 0);
    sum += b;
  }
  return sum;
}
