// Loopback safety on every request: the Host must name this server (DNS rebinding), a browser Origin must
// be ours, and the bearer token must match (compared in constant time). /v1/health needs no token.
import { createHash, timingSafeEqual } from "node:crypto";

export type Refusal = { status: 401 | 403; message: string };

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

export function hostAllowed(host: string | null, port: number): boolean {
  if (host === null) return false;
  const h = host.toLowerCase();
  // On port 80, http's default, clients leave the port out of Host (and a URL out of Origin).
  return LOOPBACK_NAMES.some((n) => h === `${n}:${port}` || (port === 80 && h === n));
}

export function originAllowed(origin: string | null, port: number): boolean {
  if (origin === null) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  return u.protocol === "http:" && hostAllowed(u.host, port);
}

const digest = (s: string) => createHash("sha256").update(s).digest();

export function tokenMatches(header: string | null, token: string): boolean {
  const m = header === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  // Hashing first makes both sides the same length, so the comparison time says nothing about the token.
  return timingSafeEqual(digest(m ? m[1]! : ""), digest(token)) && m !== null;
}

/** Why a request is refused, or undefined when it may go on. */
export function refusal(req: Request, port: number, token: string, needsToken: boolean): Refusal | undefined {
  if (!hostAllowed(req.headers.get("host"), port))
    return { status: 403, message: "forbidden: the Host header must name this loopback server" };
  if (!originAllowed(req.headers.get("origin"), port))
    return { status: 403, message: "forbidden: cross-origin requests are not allowed" };
  if (needsToken && !tokenMatches(req.headers.get("authorization"), token)) {
    return {
      status: 401,
      // Worded so that no secret pattern matches it: redacted as an Authorization header, it would read as a mask.
      message:
        "unauthorized: send the token of <home>/http.json in an Authorization header, as Bearer followed by the token",
    };
  }
  return undefined;
}
