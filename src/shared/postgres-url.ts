// The parts of a postgres:// URL as PostgreSQL's clients read it: the host may be empty (a socket folder given in
// ?host=) or a %-encoded socket path, and host, port, user and dbname in the query win over the URL's own.

export interface PgUrlParts {
  user: string;
  host: string;
  port: string;
  database: string;
}

/** Throws (TypeError, URIError) when the URL cannot be read, or a %-escape in it is malformed. */
export function pgUrlParts(url: string): PgUrlParts {
  // An empty host (postgresql://user@/db?host=/run/postgresql) is valid there, not for the URL parser. A URL whose
  // userinfo has an empty user (postgres://:pw@host/db) has a host: the ":" there does not start a port.
  const u = new URL(
    url.trim().replace(/^(postgres(?:ql)?:\/\/(?:[^/?#@]*@|(?![^/?#]*@)))(?=[:/?#]|$)/i, "$1localhost"),
  );
  const q = u.searchParams;
  decodeURIComponent(u.password);
  return {
    user: q.get("user") ?? decodeURIComponent(u.username),
    host: q.get("host") || decodeURIComponent(u.hostname) || "localhost",
    port: q.get("port") || u.port || "5432",
    database: q.get("dbname") ?? decodeURIComponent(u.pathname.slice(1)),
  };
}
