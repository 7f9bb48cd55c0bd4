// A failure to reach or open the PostgreSQL archive, named by host, port, database and user (never the password).
import { lookup } from "node:dns/promises";
import { errorMessage, namedError } from "../../shared/errors.ts";
import { postgresReason } from "../../shared/postgres-failure.ts";
import { pgUrlParts } from "../../shared/postgres-url.ts";

export const PgConnectError = namedError<{ where: string; reason: string }>(
  "PgConnectError",
  "runtime",
  (d) => `cannot open the PostgreSQL archive at ${d.where}: ${d.reason}`,
);

/** The server refused who or what the URL names (a user, password or database it does not know): a config error. */
export const PgAccessError = namedError<{ where: string; reason: string }>(
  "PgAccessError",
  "usage",
  (d) =>
    `cannot open the PostgreSQL archive at ${d.where}: ${d.reason} (check the user, database and password: [archive] url, MEMVOY_ARCHIVE_URL or PGPASSWORD)`,
);

/** The user may connect but not use the database (SQLSTATE 42501): a config error, no retry mends it. */
export const PgPrivilegeError = namedError<{ where: string; reason: string; user: string }>(
  "PgPrivilegeError",
  "usage",
  (d) =>
    `cannot open the PostgreSQL archive at ${d.where}: ${d.reason} (memvoy creates and migrates its own tables: connect as the database's owner, or grant ${d.user || "the user"} CREATE on its schema and the privileges on memvoy's tables)`,
);

/** A URL the client refuses before connecting (an option it does not take, a bad value): a config error. */
export const PgUrlError = namedError<{ where: string; reason: string }>(
  "PgUrlError",
  "usage",
  (d) => `the PostgreSQL archive URL (${d.where}) is not valid: ${d.reason}`,
);

/** user@host:port/db of an archive URL. */
export function describeTarget(url: string): string {
  try {
    const p = pgUrlParts(url);
    return `${p.user ? `${p.user}@` : ""}${p.host}:${p.port}/${p.database}`;
  } catch {
    return "the configured URL";
  }
}

function urlUser(url: string): string {
  try {
    return pgUrlParts(url).user;
  } catch {
    return "";
  }
}

export function pgConnectError(url: string, err: unknown): Error {
  const e = err as { code?: string; errno?: string; message?: string };
  const reason = postgresReason(err) || e.message || String(err);
  // SQLSTATE class 28 (invalid authorization: no such role, wrong password) and 3D000 (no such database).
  const state = String(e.errno ?? "");
  if (state.startsWith("28") || state === "3D000")
    return new PgAccessError({ where: describeTarget(url), reason }, { cause: err });
  if (state === "42501")
    return new PgPrivilegeError({ where: describeTarget(url), reason, user: urlUser(url) }, { cause: err });
  return new PgConnectError({ where: describeTarget(url), reason }, { cause: err });
}

/**
 * pgConnectError, with a host name that does not resolve named as such: the client calls that "connection
 * refused" (ERR_POSTGRES_CONNECTION_REFUSED), which sends a user to look for a server that is down.
 */
export async function pgOpenError(url: string, err: unknown): Promise<Error> {
  if ((err as { code?: unknown } | null)?.code === "ERR_POSTGRES_CONNECTION_REFUSED") {
    let host: string | undefined;
    try {
      host = pgUrlParts(url).host;
    } catch {
      host = undefined;
    }
    if (host && !host.startsWith("/")) {
      // An IPv6 literal is written in brackets in a URL; the resolver takes the bare address.
      const unknown = await lookup(host.replace(/^\[(.*)\]$/, "$1")).then(
        () => false,
        (e: { code?: string }) => e.code === "ENOTFOUND",
      );
      if (unknown)
        return new PgConnectError(
          { where: describeTarget(url), reason: `the host name ${host} does not resolve (check the host in the URL)` },
          { cause: err },
        );
    }
  }
  return pgConnectError(url, err);
}

export function pgUrlError(url: string, err: unknown): Error {
  const reason = err instanceof URIError ? "a %-escape in it is malformed (write % as %25)" : errorMessage(err);
  return new PgUrlError({ where: describeTarget(url), reason }, { cause: err });
}
