// Secret redaction, applied to every text before it is stored, indexed or embedded: provider API keys and
// tokens, bearer/basic headers, passwords in URLs, key=value secrets and private-key blocks.

export interface Redaction {
  text: string;
  /** The kinds of secret found, each once. */
  kinds: string[];
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

/** Values that look like a credential rather than a word: long, or carrying a digit or a symbol. */
function secretLike(value: string): boolean {
  return value.length >= 24 || (value.length >= 6 && /[0-9+/=._~-]/.test(value));
}

const RULES: Rule[] = [
  {
    kind: "private-key",
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
  },
  {
    kind: "url-password",
    re: /\b([a-z][a-z0-9+.-]{1,30}:\/\/)([^\s:@/?#]*):([^\s@/?#]+)@/gi,
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
    replace: (m, head, value) => (secretLike(value) ? `${head}${mark("bearer-token")}` : m),
  },
  {
    kind: "api-key-header",
    re: /\b((?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key|x-figma-token)\s*:\s*)(?!\[REDACTED)([^\s"',;]+)/gi,
    replace: (_m, head) => `${head}${mark("api-key-header")}`,
  },
  { kind: "anthropic-key", re: new RegExp(`${B}sk-ant-[A-Za-z0-9_-]{8,}`, "g") },
  { kind: "openai-key", re: new RegExp(`${B}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`, "g") },
  { kind: "github-token", re: new RegExp(`${B}(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})${E}`, "g") },
  { kind: "slack-token", re: new RegExp(`${B}(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}`, "g") },
  { kind: "aws-access-key", re: new RegExp(`${B}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}${E}`, "g") },
  { kind: "google-api-key", re: new RegExp(`${B}AIza[0-9A-Za-z_-]{35}`, "g") },
  { kind: "google-oauth-token", re: new RegExp(`${B}ya29\\.[0-9A-Za-z_-]{20,}`, "g") },
  { kind: "gitlab-token", re: new RegExp(`${B}(?:glpat|gldt|glrt|glptt|glcbt)-[0-9A-Za-z_-]{20,}`, "g") },
  { kind: "npm-token", re: new RegExp(`${B}npm_[A-Za-z0-9]{30,}${E}`, "g") },
  { kind: "stripe-key", re: new RegExp(`${B}(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}${E}`, "g") },
  { kind: "stripe-webhook-secret", re: new RegExp(`${B}whsec_[0-9A-Za-z]{20,}${E}`, "g") },
  { kind: "huggingface-token", re: new RegExp(`${B}hf_[A-Za-z0-9]{30,}${E}`, "g") },
  { kind: "pypi-token", re: new RegExp(`${B}pypi-[A-Za-z0-9_-]{40,}`, "g") },
  { kind: "sendgrid-key", re: new RegExp(`${B}SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}`, "g") },
  { kind: "jwt", re: new RegExp(`${B}eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*`, "g") },
  {
    // PGPASSWORD=…, db_password: "…", aws_secret_access_key = …, ?access_token=…
    kind: "secret-value",
    re: /\b([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?))(["']?\s*(=|:)\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;&'"<>)\]}]+)/gi,
    replace: (m, key, sep, op, value) => {
      const bare = value.replace(/^["']|["']$/g, "");
      if (bare === "" || bare.startsWith("[REDACTED")) return m;
      // "token: expired" is prose; "token=abc" or a quoted value is an assignment.
      if (op === ":" && !/^["']/.test(value) && !secretLike(bare)) return m;
      return `${key}${sep}${mark("secret-value")}`;
    },
  },
  {
    kind: "secret-flag",
    re: /(--(?:password|passwd|token|api-key|secret|access-key|client-secret)[ \t]+)(?!-)(\S+)/gi,
    replace: (m, flag, value) => (value.startsWith("[REDACTED") ? m : `${flag}${mark("secret-flag")}`),
  },
];

export function redactSecrets(input: string): Redaction {
  let text = input;
  const kinds: string[] = [];
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
      if (out !== match) hit = true;
      return out;
    });
    if (hit && !kinds.includes(rule.kind)) kinds.push(rule.kind);
  }
  return { text, kinds };
}
