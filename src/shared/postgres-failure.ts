// A PostgreSQL client error (Bun.sql's PostgresError) in words, named as the archive's failure.

/** The client's connection failures in plain words (its own texts say only "Failed to connect"). */
export const PG_CONNECTION_REASONS: Readonly<Record<string, string>> = {
  ERR_POSTGRES_CONNECTION_REFUSED: "connection refused (is the server running, and the host and port right?)",
  ERR_POSTGRES_CONNECTION_TIMEOUT: "the connection timed out",
  ERR_POSTGRES_CONNECTION_CLOSED: "the server closed the connection",
};

/** The reason a PostgreSQL client error gives, or undefined for any other value. */
export function postgresReason(err: unknown): string | undefined {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return undefined;
  const code = typeof e.code === "string" ? e.code : "";
  if (e.name !== "PostgresError" && !code.startsWith("ERR_POSTGRES_")) return undefined;
  return (
    PG_CONNECTION_REASONS[code] ??
    (String(e.message ?? "")
      .split("\n")[0]!
      .trim() ||
      code)
  );
}
