// history.db that SQLite refuses outright: not a database (wrong or missing header), or a malformed image.
import { lstatSync } from "node:fs";
import { namedError } from "../../shared/errors.ts";

/**
 * history.db cannot be used: SQLite says it is not a database, or that its image is malformed; or (`foreign`)
 * it is another program's database, such as the archive of an Agenvoy home.
 */
export const BrokenDatabaseError = namedError<{ path: string; detail: string; foreign?: boolean }>(
  "BrokenDatabaseError",
  "runtime",
  (d) =>
    d.foreign
      ? `${d.path} is not memvoy's archive (${d.detail}): run \`memvoy doctor\` to see what it holds, then \`memvoy doctor --repair\` to adopt its messages into a new archive`
      : `${d.path} is broken (${d.detail}): run \`memvoy doctor\` to see what can be saved, then \`memvoy doctor --repair\` to rebuild it`,
);
export type BrokenDatabaseError = InstanceType<typeof BrokenDatabaseError>;

export function isBrokenDatabase(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = String((err as { code?: unknown }).code ?? "");
  if (code === "SQLITE_NOTADB" || /file is not a database/i.test(err.message))
    return "not an SQLite database: the header is wrong or missing";
  if (code.startsWith("SQLITE_CORRUPT") || /malformed/i.test(err.message))
    return "the database image is malformed (truncated or garbled)";
  return undefined;
}

/** history.db with no byte and no WAL holding its pages: SQLite would read it as a sound, empty database. */
export function emptiedDatabase(path: string): boolean {
  const size = (f: string) => lstatSync(f, { throwIfNoEntry: false })?.size ?? 0;
  return size(path) === 0 && size(`${path}-wal`) === 0;
}
