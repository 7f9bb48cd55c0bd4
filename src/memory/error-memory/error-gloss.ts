// Plain words for the jargon of common error messages: people describe an error by what happened ("the
// disk is full", "nothing answers on that port"), tools print codes and terms ("ENOSPC", "ECONNREFUSED").
// Added to a record's words for the word-level match; general knowledge of error classes, not of records.
const GLOSS: [RegExp, string][] = [
  [
    /permission denied|eacces|eperm|access denied|forbidden|\b403\b|not permitted/i,
    "access refused allowed rights forbidden",
  ],
  [/no space left|enospc|disk (is )?full|quota exceeded/i, "disk full storage space"],
  [/connection refused|econnrefused|failed to connect/i, "nothing listening answers server down port unreachable"],
  [/timed? ?out|etimedout|deadline exceeded/i, "slow took too long no answer waiting timeout"],
  [/command not found|not recognized as .*command|executable file not found/i, "program not installed missing unknown"],
  [
    /no such file|enoent|not found|does not exist|doesn't exist|cannot find|could not find|missing/i,
    "missing absent nonexistent",
  ],
  [/out of memory|oomkilled|heap|memory limit|exit code 137|cannot allocate/i, "memory ram exhausted killed limit"],
  [/certificate|ssl|tls|x509|handshake/i, "https secure trust expired verify"],
  [
    /expired|token|credential|unauthori[sz]ed|\b401\b|login|authenticat/i,
    "login credentials authentication session expired password",
  ],
  [/lock|locked|in use by another|resource busy|ebusy/i, "locked held blocked another process concurrent"],
  [/already (in use|allocated|exists)|eaddrinuse|address in use|duplicate/i, "taken occupied already exists twice"],
  [
    /syntax error|unexpected token|parse error|invalid syntax|missing separator/i,
    "syntax typo malformed grammar parse",
  ],
  [
    /relation .* does not exist|no such table|unknown table|undefined table/i,
    "table database schema missing migration",
  ],
  [
    /no module named|modulenotfound|cannot find module|module not found|importerror/i,
    "import package module library installed",
  ],
  [/unbound variable|undefined variable|is not defined|referenceerror|undeclared/i, "variable undefined unset name"],
  [/borrow|lifetime|moved value/i, "reference ownership mutable rust"],
  [/region|availability zone/i, "location datacenter zone"],
  [/up to date|nothing to be done/i, "rebuild nothing changed skip"],
  [/\\r|crlf|line ending/i, "windows carriage return newline"],
  [
    /version|incompatible|mismatch|requires|conflict|eresolve|peer dep/i,
    "version compatibility conflict dependency upgrade",
  ],
  [/segmentation fault|sigsegv|core dumped|panic/i, "crash crashed died"],
  [/killed|terminated|back-off restarting|crashloop/i, "restarting dies crash loop killed"],
  [
    /dns|name resolution|could not resolve|getaddrinfo|enotfound|unknown host/i,
    "hostname lookup address network resolve",
  ],
  [/rate limit|too many requests|\b429\b|throttl/i, "too many requests limit slow down quota"],
  [/too many (open files|connections|clients)|emfile/i, "limit exhausted too many"],
  [/merge conflict|non-fast-forward|rejected|diverged/i, "push rejected behind remote conflict"],
  [/type error|typeerror|is not assignable|type mismatch/i, "type wrong types mismatch"],
];

/** Plain words that describe the error classes the text shows. */
export function errorGloss(text: string): string {
  const out: string[] = [];
  for (const [re, words] of GLOSS) if (re.test(text)) out.push(words);
  return out.join(" ");
}
