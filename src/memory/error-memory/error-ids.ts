// Short error-record ids (8 lowercase hex digits) and git-style lookup by any unique prefix.
import { namedError } from "../../shared/errors.ts";
import type { Db } from "../../storage/sqlite/db.ts";
import { findByIdPrefix, idTaken, type ErrorRow } from "../../storage/sqlite/error-memory-repo.ts";

export const ERROR_ID_LENGTH = 8;

/** `id` is shown as given; `malformed` when it is not hex at all. */
export const UnknownErrorIdError = namedError<{ id: string; malformed: boolean }>(
  "UnknownErrorIdError",
  "input",
  (d) =>
    d.malformed
      ? `${d.id} is not an error id: ids are hex, like 3f9a01c2 (see memvoy errors list)`
      : `no error record with id ${JSON.stringify(d.id)} (see memvoy errors list)`,
);
export type UnknownErrorIdError = InstanceType<typeof UnknownErrorIdError>;
export const AmbiguousErrorIdError = namedError<{ prefix: string; matches: { id: string; tool: string }[] }>(
  "AmbiguousErrorIdError",
  "input",
  (d) => {
    const shown = d.matches
      .slice(0, 5)
      .map((r) => `${r.id} (${r.tool})`)
      .join(", ");
    return `error id prefix ${JSON.stringify(d.prefix)} is ambiguous: ${shown}${d.matches.length > 5 ? ", …" : ""}; give more characters`;
  },
);
export type AmbiguousErrorIdError = InstanceType<typeof AmbiguousErrorIdError>;

export function newErrorId(db: Db): string {
  for (;;) {
    const id = randomErrorId();
    if (!idTaken(db, id)) return id;
  }
}

/** A random id (the caller checks that it is free). */
export function randomErrorId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(ERROR_ID_LENGTH / 2));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The one live record whose id starts with `prefix`; a clear InputError for none or several. */
export function resolveErrorId(db: Db, prefix: string, now: bigint): ErrorRow {
  const p = errorIdPrefix(prefix);
  return oneErrorRow(p, p.length > ERROR_ID_LENGTH ? [] : findByIdPrefix(db, p, now, 6));
}

/** The prefix as ids are written (lower-case hex), or UnknownErrorIdError when it is not hex. */
export function errorIdPrefix(prefix: string): string {
  const p = typeof prefix === "string" ? prefix.trim().toLowerCase() : "";
  if (!/^[0-9a-f]{1,64}$/.test(p)) {
    const shown =
      typeof prefix === "string"
        ? JSON.stringify(prefix.length > 20 ? prefix.slice(0, 20) + "…" : prefix)
        : String(prefix);
    throw new UnknownErrorIdError({ id: shown, malformed: true });
  }
  return p;
}

/** The one row a prefix found; a clear InputError for none or several. */
export function oneErrorRow(p: string, rows: readonly ErrorRow[]): ErrorRow {
  if (rows.length === 0) throw new UnknownErrorIdError({ id: p, malformed: false });
  if (rows.length > 1)
    throw new AmbiguousErrorIdError({ prefix: p, matches: rows.map((r) => ({ id: r.id, tool: r.tool })) });
  return rows[0]!;
}
