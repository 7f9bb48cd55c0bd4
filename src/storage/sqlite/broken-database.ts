// history.db that SQLite refuses outright: not a database (wrong or missing header), or a malformed image.
import { RuntimeFailure } from "../../shared/errors.ts";

/** history.db cannot be used: SQLite says it is not a database, or that its image is malformed. */
export class BrokenDatabaseError extends RuntimeFailure {
  constructor(
    readonly path: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${path} is broken (${detail}): run \`memvoy doctor\` to see what can be saved, then \`memvoy doctor --repair\` to rebuild it`,
      options,
    );
  }
}

export function isBrokenDatabase(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = String((err as { code?: unknown }).code ?? "");
  if (code === "SQLITE_NOTADB" || /file is not a database/i.test(err.message))
    return "not an SQLite database: the header is wrong or missing";
  if (code.startsWith("SQLITE_CORRUPT") || /malformed/i.test(err.message))
    return "the database image is malformed (truncated or garbled)";
  return undefined;
}
