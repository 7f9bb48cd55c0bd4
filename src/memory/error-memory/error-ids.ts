// Short error-record ids (8 lowercase hex digits) and git-style lookup by any unique prefix.
import { InputError } from "../../shared/errors.ts";
import type { Db } from "../../storage/sqlite/db.ts";
import { findByIdPrefix, idTaken, type ErrorRow } from "../../storage/sqlite/error-memory-repo.ts";

export const ERROR_ID_LENGTH = 8;

export class UnknownErrorIdError extends InputError {}
export class AmbiguousErrorIdError extends InputError {}

export function newErrorId(db: Db): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(ERROR_ID_LENGTH / 2));
    const id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    if (!idTaken(db, id)) return id;
  }
}

/** The one live record whose id starts with `prefix`; a clear InputError for none or several. */
export function resolveErrorId(db: Db, prefix: string, now: bigint): ErrorRow {
  const p = typeof prefix === "string" ? prefix.trim().toLowerCase() : "";
  if (!/^[0-9a-f]{1,64}$/.test(p)) {
    const shown = typeof prefix === "string" ? JSON.stringify(prefix.length > 20 ? prefix.slice(0, 20) + "…" : prefix) : String(prefix);
    throw new UnknownErrorIdError(`${shown} is not an error id: ids are hex, like 3f9a01c2 (see memvoy errors list)`);
  }
  const rows = p.length > ERROR_ID_LENGTH ? [] : findByIdPrefix(db, p, now, 6);
  if (rows.length === 0) throw new UnknownErrorIdError(`no error record with id ${JSON.stringify(p)} (see memvoy errors list)`);
  if (rows.length > 1) {
    const shown = rows.slice(0, 5).map((r) => `${r.id} (${r.tool})`).join(", ");
    throw new AmbiguousErrorIdError(`error id prefix ${JSON.stringify(p)} is ambiguous: ${shown}${rows.length > 5 ? ", …" : ""}; give more characters`);
  }
  return rows[0]!;
}
