// A config URL's secret part: a password in the userinfo or as a `password=` query parameter.

export function urlHasPassword(url: string): boolean {
  if (!url) return false;
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url);
  if (m && m[1]!.includes(":")) return true;
  return /[?&]password=/i.test(url);
}

/** A user (a token) or password in the URL's userinfo, or a `password=` query parameter. */
export function urlHasCredentials(url: string): boolean {
  return urlHasPassword(url) || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url.trim());
}
