// A failure to reach or open the PostgreSQL archive, named by host, port, database and user (never the password).
import { namedError } from "../../shared/errors.ts";

export const PgConnectError = namedError<{ where: string; reason: string }>(
  "PgConnectError",
  "runtime",
  (d) => `cannot open the PostgreSQL archive at ${d.where}: ${d.reason}`,
);

const REASONS: Record<string, string> = {
  ERR_POSTGRES_CONNECTION_REFUSED: "connection refused (is the server running, and the host and port right?)",
  ERR_POSTGRES_CONNECTION_TIMEOUT: "the connection timed out",
  ERR_POSTGRES_CONNECTION_CLOSED: "the server closed the connection",
};

/** user@host:port/db of an archive URL. */
export function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : "";
    return `${user}${u.hostname || "localhost"}:${u.port || "5432"}${u.pathname || "/"}`;
  } catch {
    return "the configured URL";
  }
}

export function pgConnectError(url: string, err: unknown): Error {
  const e = err as { code?: string; errno?: string; message?: string };
  const reason = (e.code && REASONS[e.code]) || e.message || String(err);
  return new PgConnectError({ where: describeTarget(url), reason }, { cause: err });
}
