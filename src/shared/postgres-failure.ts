// A PostgreSQL client error (Bun.sql's PostgresError) in words, named as the archive's failure.

/** The client's connection failures in plain words (its own texts say only "Failed to connect"). */
export const PG_CONNECTION_REASONS: Readonly<Record<string, string>> = {
  ERR_POSTGRES_CONNECTION_REFUSED: "connection refused (is the server running, and the host and port right?)",
  ERR_POSTGRES_CONNECTION_TIMEOUT: "the connection timed out",
  ERR_POSTGRES_CONNECTION_CLOSED: "the server closed the connection",
};

// SQLSTATEs of a server that cannot take the work now: class 08 (connection exception), 53300 (too many
// connections), 57P01-57P03 (shut down by an administrator or a crash, or still starting up).
const UNAVAILABLE_STATE = /^(08|53300$|57P0[123]$)/;

/**
 * Whether a thrown value (or one of its causes) says the PostgreSQL archive cannot be reached or is not taking
 * work now (down, restarting, out of connections), rather than that the request went wrong: a client may retry.
 */
export function postgresUnavailable(err: unknown): boolean {
  let e = err as { code?: unknown; errno?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 8; depth++, e = e.cause as typeof e) {
    const code = typeof e.code === "string" ? e.code : "";
    if (code.startsWith("ERR_POSTGRES_CONNECTION_") || code === "ERR_POSTGRES_IDLE_TIMEOUT") return true;
    if (code.startsWith("ERR_POSTGRES_") && typeof e.errno === "string" && UNAVAILABLE_STATE.test(e.errno)) return true;
  }
  return false;
}

/** The reason a PostgreSQL client error gives, or undefined for any other value. */
export function postgresReason(err: unknown): string | undefined {
  const e = err as { name?: unknown; code?: unknown; errno?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return undefined;
  const code = typeof e.code === "string" ? e.code : "";
  if (e.name !== "PostgresError" && !code.startsWith("ERR_POSTGRES_")) return undefined;
  const text = String(e.message ?? "")
    .split("\n")[0]!
    .trim();
  if (e.errno === "53300") return tooManyConnections(text);
  if (e.errno === "42P05" || e.errno === "26000")
    return `${text}: a connection pooler in transaction mode (PgBouncer before 1.21, or with max_prepared_statements = 0) mixes its clients' prepared statements; add ?prepare=false to the archive URL`;
  if (text === "query_wait_timeout")
    return "the connection pooler had no server connection free (query_wait_timeout): raise its pool size (default_pool_size); a memvoy command holding a session lock uses two at once";
  // The client's words when every attempt until its connection timeout failed: a host that drops the packets (a
  // firewall, an address nothing answers at) as much as a port whose service hangs up, neither "closed" by a server.
  if (code === "ERR_POSTGRES_CONNECTION_FAILED" && /closed before the connection was established/i.test(text))
    return "no connection could be made (nothing answered until the client gave up, or whatever listens at the port hung up at once): check the host and port, and that no firewall drops the connection";
  return PG_CONNECTION_REASONS[code] ?? (text || code);
}

/**
 * SQLSTATE 53300: the server refused a new connection at a limit ("sorry, too many clients already" and the slots
 * reserved for superusers are max_connections; a role's or a database's CONNECTION LIMIT names itself).
 */
function tooManyConnections(text: string): string {
  const limit = / for role /.test(text)
    ? "the role's CONNECTION LIMIT (ALTER ROLE)"
    : / for database /.test(text)
      ? "the database's CONNECTION LIMIT (ALTER DATABASE)"
      : "max_connections on the server";
  return `the server has no connection free (${text || "too many connections"}): raise ${limit}, or run fewer memvoy processes at once`;
}
