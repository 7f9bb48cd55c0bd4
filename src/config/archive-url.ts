// A config URL's secret part: a password in the userinfo or as a `password=` query parameter.
import { isSecretParam } from "../shared/redact.ts";

export function urlHasPassword(url: string): boolean {
  return userinfoHasPassword(url) || queryKeys(url).some((k) => PASSWORD_KEYS.has(k));
}

/** The login password the URL itself gives (user:password@ or ?password=): it wins over PGPASSWORD, as with libpq. */
export function urlGivesLoginPassword(url: string): boolean {
  return userinfoHasPassword(url) || queryKeys(url).includes("password");
}

function userinfoHasPassword(url: string): boolean {
  const m = /^\s*[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url);
  return !!m && m[1]!.includes(":");
}

/** Query parameters that carry a password to PostgreSQL (the client decodes their names, so this does too). */
const PASSWORD_KEYS = new Set(["password", "sslpassword"]);

/** The query's parameter names, percent-decoded and in lower case (`pass%77ord` is `password`). */
function queryKeys(url: string): string[] {
  const q = url.indexOf("?");
  if (q < 0) return [];
  return url
    .slice(q + 1)
    .split("#")[0]!
    .split("&")
    .map((pair) => {
      const key = pair.split("=")[0]!.replace(/\+/g, " ");
      try {
        return decodeURIComponent(key).toLowerCase();
      } catch {
        return key.toLowerCase();
      }
    });
}

/**
 * A user (a token) or password in the URL's userinfo, or a query parameter that carries a credential
 * (`api_key=`, `token=`, `password=`: those config show masks).
 */
export function urlHasCredentials(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url.trim()) || queryKeys(url).some(isSecretParam);
}
