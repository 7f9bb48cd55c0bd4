// The one secret redaction: provider API keys and tokens, bearer/basic headers, passwords in URLs,
// key=value secrets, private-key blocks, plus the values of the configured key variables. Applied wherever
// memvoy stores or prints text of its own (logs, daemon status, stderr, summary_runs, error memory).

export interface Redaction {
  text: string;
  /** The kinds of secret found, each once. */
  kinds: string[];
  /** The credential-like values the rules took out, to be redacted wherever else they appear (see below). */
  values: SecretValue[];
}

/** A secret a rule found by its context (a URL's password, PGPASSWORD=…), as written, and its kind. */
export interface SecretValue {
  value: string;
  kind: string;
}

interface Rule {
  kind: string;
  re: RegExp;
  /** Replacement; `[REDACTED:kind]` stands for the whole match by default. */
  replace?: (match: string, ...groups: string[]) => string;
}

const mark = (kind: string) => `[REDACTED:${kind}]`;
// Token characters: a match must not start or end inside a longer word.
const B = "(?<![A-Za-z0-9_-])";
const E = "(?![A-Za-z0-9_-])";

/** A generated key or token: long, or letters and digits mixed over 16 characters or more. */
function credentialLike(value: string): boolean {
  return value.length >= 24 || (value.length >= 16 && /[0-9]/.test(value) && /[A-Za-z]/.test(value));
}

/** Values that look like a credential rather than a word: long, or carrying a digit or a symbol. */
function secretLike(value: string): boolean {
  return value.length >= 24 || (value.length >= 6 && /[0-9+/=._~-]/.test(value));
}

/** A name part that makes any value a secret (DB_PASS, SECRET_KEY_BASE, smtp.password). */
const STRONG_SEGMENT = /(?:^|[_.-])(?:pass|password|passwd|pwd|passphrase|secret|credentials?)(?:[_.-]|$)/i;
/** A last name part that makes a credential-like value a secret (ENCRYPTION_KEY, AUTH_TOKEN), not a field (KEY_ID). */
const WEAK_LAST_SEGMENT = /(?:^|[_.-])(?:key|token|apikey)$/i;
/** The shell's working directories (PWD=/home/dev), not passwords (an ODBC string's Pwd=…). */
const workingDir = (name: string, value: string) => /^(?:OLD)?PWD$/.test(name) && value.startsWith("/");

/** Set-Cookie attributes, not cookies. */
const COOKIE_ATTRIBUTES = /^(?:path|domain|expires|max-age|samesite|priority|partitioned)$/i;

const RULES: Rule[] = [
  {
    kind: "private-key",
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
  },
  {
    // The password runs to the authority's last @, as URL parsers read it: a raw @ in it (P@ssw0rd) is part of it.
    kind: "url-password",
    re: /\b([a-z][a-z0-9+.-]{1,30}:\/\/)([^\s:@/?#]*):([^\s/?#]+)@/gi,
    replace: (_m, scheme, user) => `${scheme}${user}:${mark("url-password")}@`,
  },
  {
    // A password holding a raw /, ? or # (a base64 secret's /) ends no authority a parser reads: the rule above
    // finds none, so such a password runs to the last @ of the URL. Not a port (host:8080/path/me@example.com).
    kind: "url-password",
    re: /\b([a-z][a-z0-9+.-]{1,30}:\/\/)([^\s:@/?#]{0,256}):(?!\d*[/?#])([^\s@/?#]{0,256}[/?#]\S{0,256}?)@(?!\S{0,256}@)/gi,
    replace: (_m, scheme, user) => `${scheme}${user}:${mark("url-password")}@`,
  },
  {
    kind: "auth-header",
    re: /\b((?:proxy-)?authorization\s*[:=]\s*["']?)(bearer|basic|token|bot|digest|apikey)\s+[^\s"',;]+/gi,
    replace: (_m, head, scheme) => `${head}${scheme} ${mark("auth-header")}`,
  },
  {
    kind: "bearer-token",
    re: /\b(bearer\s+)([A-Za-z0-9._~+/-]+=*)/gi,
    replace: (m, head, value) => (secretLike(value) || value.length >= 16 ? `${head}${mark("bearer-token")}` : m),
  },
  {
    kind: "api-key-header",
    re: /\b((?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key|x-figma-token)\s*:\s*)(?!\[REDACTED)([^\s"',;]+)/gi,
    replace: (_m, head) => `${head}${mark("api-key-header")}`,
  },
  {
    // A signed URL's signature grants what its key would until it expires: an Azure SAS (sig=), an S3 or GCS
    // presigned URL (X-Amz-Signature=, X-Goog-Signature=), a CloudFront signed URL (Signature=).
    kind: "url-signature",
    re: /([?&](?:sig|signature|x-amz-signature|x-goog-signature)=)(?!\[REDACTED)([^&\s#"'<>]+)/gi,
    replace: (_m, head) => `${head}${mark("url-signature")}`,
  },
  {
    // A session cookie is a login: the values of a Cookie or Set-Cookie header (Set-Cookie's attributes stay).
    kind: "cookie",
    re: /\b((?:set-)?cookie\s*:[ \t]*)([^\r\n]+)/gi,
    replace: (_m, head, pairs: string) =>
      head +
      pairs.replace(/(^|;\s*)([^=;\s]+)=([^;]*)/g, (p, sep, name, value) =>
        COOKIE_ATTRIBUTES.test(name) || value === "" || value.startsWith("[REDACTED")
          ? p
          : `${sep}${name}=${mark("cookie")}`,
      ),
  },
  {
    // Incoming-webhook URLs carry their secret in the path.
    kind: "webhook-url",
    re: /\b(https?:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)|(?:[a-z]+\.)?discord(?:app)?\.com\/api\/webhooks)\/)[A-Za-z0-9_/-]{8,}/gi,
    replace: (_m, head) => `${head}${mark("webhook-url")}`,
  },
  { kind: "anthropic-key", re: new RegExp(`${B}sk-ant-[A-Za-z0-9_-]{8,}`, "g") },
  { kind: "openai-key", re: new RegExp(`${B}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`, "g") },
  { kind: "github-token", re: new RegExp(`${B}(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})${E}`, "g") },
  { kind: "slack-token", re: new RegExp(`${B}(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}`, "g") },
  {
    kind: "aws-access-key",
    re: new RegExp(`${B}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}${E}`, "g"),
  },
  { kind: "google-api-key", re: new RegExp(`${B}AIza[0-9A-Za-z_-]{35}`, "g") },
  { kind: "google-oauth-token", re: new RegExp(`${B}ya29\\.[0-9A-Za-z_-]{20,}`, "g") },
  { kind: "gitlab-token", re: new RegExp(`${B}(?:glpat|gldt|glrt|glptt|glcbt)-[0-9A-Za-z_-]{20,}`, "g") },
  { kind: "npm-token", re: new RegExp(`${B}npm_[A-Za-z0-9]{30,}${E}`, "g") },
  { kind: "stripe-key", re: new RegExp(`${B}(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}${E}`, "g") },
  { kind: "stripe-webhook-secret", re: new RegExp(`${B}whsec_[0-9A-Za-z]{20,}${E}`, "g") },
  { kind: "huggingface-token", re: new RegExp(`${B}hf_[A-Za-z0-9]{30,}${E}`, "g") },
  { kind: "pypi-token", re: new RegExp(`${B}pypi-[A-Za-z0-9_-]{40,}`, "g") },
  { kind: "sendgrid-key", re: new RegExp(`${B}SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}`, "g") },
  { kind: "groq-key", re: new RegExp(`${B}gsk_[A-Za-z0-9]{20,}${E}`, "g") },
  { kind: "xai-key", re: new RegExp(`${B}xai-[A-Za-z0-9]{40,}${E}`, "g") },
  // Voyage's prefix is short: a key is long and mixes upper and lower case and digits, unlike a hyphenated name.
  {
    kind: "voyage-key",
    re: new RegExp(`${B}pa-(?=[\\w-]*[A-Z])(?=[\\w-]*[a-z])(?=[\\w-]*[0-9])[A-Za-z0-9_-]{40,}${E}`, "g"),
  },
  { kind: "replicate-token", re: new RegExp(`${B}r8_[A-Za-z0-9]{20,}${E}`, "g") },
  { kind: "digitalocean-token", re: new RegExp(`${B}do[opr]_v1_[A-Za-z0-9]{20,}${E}`, "g") },
  { kind: "perplexity-key", re: new RegExp(`${B}pplx-[A-Za-z0-9]{20,}${E}`, "g") },
  { kind: "shopify-token", re: new RegExp(`${B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${E}`, "g") },
  { kind: "atlassian-token", re: new RegExp(`${B}ATATT3[A-Za-z0-9_=-]{30,}`, "g") },
  { kind: "linear-key", re: new RegExp(`${B}lin_(?:api|oauth)_[A-Za-z0-9]{30,}${E}`, "g") },
  { kind: "notion-token", re: new RegExp(`${B}(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})${E}`, "g") },
  { kind: "databricks-token", re: new RegExp(`${B}dapi[a-f0-9]{32}(?:-\\d+)?${E}`, "g") },
  { kind: "heroku-key", re: new RegExp(`${B}HRKU-[A-Za-z0-9_-]{20,}${E}`, "g") },
  { kind: "mailgun-key", re: new RegExp(`${B}key-[a-f0-9]{32}${E}`, "g") },
  // A Google OAuth refresh token (1//0…), as gcloud and the client libraries print it.
  { kind: "google-refresh-token", re: /(?<![A-Za-z0-9_/:-])1\/\/0[A-Za-z0-9_-]{30,}/g },
  { kind: "jwt", re: new RegExp(`${B}eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*`, "g") },
  {
    // PGPASSWORD=…, db_password: "…", aws_secret_access_key = …, ?access_token=…
    kind: "secret-value",
    re: /\b([A-Za-z0-9_.-]{0,64}(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|account[_-]?key|credentials?))(["']?\s*(=|:)\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;&'"<>)\]}]+)/gi,
    replace: (m, key, sep, op, value) => {
      const bare = value.replace(/^["']|["']$/g, "");
      if (bare === "" || bare.startsWith("[REDACTED") || workingDir(key, bare)) return m;
      // "token: expired" is prose; "token=abc" or a quoted value is an assignment.
      if (op === ":" && !/^["']/.test(value) && !secretLike(bare)) return m;
      return `${key}${sep}${mark("secret-value")}`;
    },
  },
  {
    // .env and shell lines: DB_PASS=…, ENCRYPTION_KEY=…, SECRET_KEY_BASE=… (a name with a secret word in it).
    kind: "secret-value",
    re: /\b([A-Za-z][A-Za-z0-9]{0,63}(?:[_.-][A-Za-z0-9]{1,63}){0,7})(\s*=\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;&'"<>)\]}]+)/g,
    replace: (m, name, sep, value) => {
      const bare = value.replace(/^["']|["']$/g, "");
      if (bare.startsWith("[REDACTED") || workingDir(name, bare) || !secretLike(bare)) return m;
      // A password is any value; a key or token name also names ordinary fields (sort_key=name-2024-01).
      const strong = STRONG_SEGMENT.test(name);
      if (!strong && !(WEAK_LAST_SEGMENT.test(name) && credentialLike(bare))) return m;
      return `${name}${sep}${mark("secret-value")}`;
    },
  },
  {
    // .npmrc's _auth (base64 of user:password) and _password.
    kind: "secret-value",
    re: /((?:^|[\s:])_(?:auth|password)\s*=\s*)(?!\[REDACTED)([^\s"']+)/gm,
    replace: (_m, head) => `${head}${mark("secret-value")}`,
  },
  {
    kind: "secret-flag",
    // curl -u user:password (not docker's -u 1000:1000)
    re: /((?:^|\s)(?:-u|--user)[ \t]+[^\s:@]+:)(?!\[REDACTED)([^\s@]+)(?=\s|$)/gm,
    replace: (m, head, value) => (/^\d+$/.test(value) ? m : `${head}${mark("secret-flag")}`),
  },
  {
    // mysql -u root -pS3cret (the password glued to -p; a lone -p asks for it), sshpass -p S3cret, and
    // docker/podman/helm registry login -p S3cret (ssh -p 22, mkdir -p and cp -p are other options).
    kind: "secret-flag",
    re: /(\b(?:(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?[ \t]-p|\bsshpass[ \t]+-p[ \t]*|\b(?:docker|podman|nerdctl|buildah|skopeo|registry|oras)[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]+))(?!\[REDACTED)([^\s-]\S*)/g,
    replace: (_m, head) => `${head}${mark("secret-flag")}`,
  },
  {
    kind: "secret-flag",
    re: /(--(?:password|passwd|token|api-key|secret|access-key|client-secret)[ \t]+)(?!-)(\S+)/gi,
    replace: (m, flag, value) => (value.startsWith("[REDACTED") ? m : `${flag}${mark("secret-flag")}`),
  },
];

/** Environment variables whose values are secrets: the provider keys and anything named like a key. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;
const KEY_VARIABLES = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VOYAGE_API_KEY", "PGPASSWORD"];

/** The values of every configured key variable (and of any variable named like one) in `env`. */
export function secretValues(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const v = value.trim();
    if (v.length >= 6 && (KEY_VARIABLES.includes(name) || SECRET_NAME.test(name))) out.add(v);
  }
  // Longest first, so a value that contains another is replaced whole.
  return [...out].sort((a, b) => b.length - a.length);
}

const MARK = /\[REDACTED:[a-z0-9-]+\]/;

/** The parts of `match` that `out` replaced with marks (`out` keeps the rest of `match` as it was). */
function removedParts(match: string, out: string): string[] {
  const kept = out.split(MARK);
  if (kept.length < 2 || !match.startsWith(kept[0]!)) return [];
  const parts: string[] = [];
  let pos = kept[0]!.length;
  for (let i = 1; i < kept.length; i++) {
    const seg = kept[i]!;
    const end = i === kept.length - 1 ? match.length - seg.length : match.indexOf(seg, pos);
    if (end < pos) break;
    parts.push(match.slice(pos, end));
    pos = end + seg.length;
  }
  return parts;
}

/**
 * A found secret to take out of the rest of the text too: credential-like (see secretLike), or a short password
 * that mixes letters with digits or symbols (Pw0rd). A plain word ("postgres") or a bare number ("1234") would take
 * that word or number out everywhere.
 */
function worthRedactingAgain(value: string): boolean {
  if (value.length >= 6) return secretLike(value);
  return value.length >= 4 && /[A-Za-z]/.test(value) && /[^A-Za-z\s]/.test(value);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Every other appearance of a secret a rule found by its context: the password of a URL repeated in prose
 * ("password 'hunter2' in url") has no context of its own. Only values worthRedactingAgain, and whole tokens.
 */
function redactAgain(text: string, values: readonly SecretValue[], kinds: string[]): string {
  let out = text;
  for (const { value, kind } of [...values].sort((a, b) => b.value.length - a.value.length)) {
    if (!out.includes(value)) continue;
    const re = new RegExp(`${B}${escapeRegExp(value)}${E}`, "g");
    const next = out.replace(re, mark(kind));
    if (next === out) continue;
    out = next;
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return out;
}

/**
 * Redact `input`: every rule below, then every value in `extraValues` wherever it appears: a string (the
 * configured keys, see secretValues) anywhere, a SecretValue (found in another field of the same record) as a
 * whole token. The values the rules found are also redacted wherever else `input` holds them.
 */
export function redactSecrets(input: string, extraValues: readonly (string | SecretValue)[] = []): Redaction {
  let text = input;
  const kinds: string[] = [];
  const found: SecretValue[] = [];
  for (const value of extraValues) {
    if (typeof value !== "string" || value.length < 6 || !text.includes(value)) continue;
    text = text.split(value).join(mark("configured-key"));
    if (!kinds.includes("configured-key")) kinds.push("configured-key");
  }
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    if (!rule.re.test(text)) continue;
    rule.re.lastIndex = 0;
    let hit = false;
    text = text.replace(rule.re, (...args: unknown[]) => {
      const match = args[0] as string;
      const offsetAt = args.findIndex((a, i) => i > 0 && typeof a === "number");
      const groups = args.slice(1, offsetAt).map((g) => (g as string | undefined) ?? "");
      const out = rule.replace ? rule.replace(match, ...groups) : mark(rule.kind);
      if (out === match) return out;
      hit = true;
      for (const part of removedParts(match, out)) {
        const value = part.replace(/^["']|["']$/g, "");
        if (worthRedactingAgain(value) && !found.some((f) => f.value === value)) found.push({ value, kind: rule.kind });
      }
      return out;
    });
    if (hit && !kinds.includes(rule.kind)) kinds.push(rule.kind);
  }
  const others = extraValues.filter((v): v is SecretValue => typeof v !== "string");
  text = redactAgain(text, [...found, ...others.filter((o) => !found.some((f) => f.value === o.value))], kinds);
  return { text, kinds, values: found };
}

/** Query parameters whose values are credentials. */
const SECRET_PARAM = /(key|token|secret|password|passwd|pwd|signature|sig|auth|credential|session)/i;

/** Whether a URL query parameter of this name carries a credential (redactUrl masks its value). */
export function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name);
}

/**
 * A URL fit to print: the password in its userinfo and the values of token-like query parameters become
 * `***`. Text that is not a URL goes through redactSecrets.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return redactSecrets(url).text;
  }
  if (u.password !== "") u.password = "***";
  else if (u.username !== "") u.username = "***"; // a lone userinfo is usually a token
  for (const name of [...u.searchParams.keys()]) if (SECRET_PARAM.test(name)) u.searchParams.set(name, "***");
  let out = u.toString().replaceAll("%2A%2A%2A", "***");
  if (!url.endsWith("/") && out.endsWith("/") && u.pathname === "/" && u.search === "" && u.hash === "")
    out = out.slice(0, -1);
  return out;
}
