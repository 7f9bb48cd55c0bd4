// Common error classes and the words people and tools use for them ("access was refused" and "EACCES",
// "runs out of RAM" and "OOMKilled"): a text that names a class gets its concept, on the query and the
// record side alike, so the word-level match sees the two as the same thing. General knowledge of error
// messages, not of any record.
const CONCEPTS: [name: string, pattern: RegExp][] = [
  [
    "permission",
    /\b(permission|permissions|permitted|denied|forbidden|eacces|eperm|not allowed|privileges?|prohibited|403|unauthorized operation|access|chmod|chown)\b/,
  ],
  ["execute", /\b(exec|execs|execv\w*|execut\w*|spawn\w*|chmod x)\b/],
  [
    "credentials",
    /\b(authenticat\w*|credentials?|login|log in|logged in|passwords?|passphrase|unauthorized|401|tokens?|sign in|sso)\b/,
  ],
  [
    "missing",
    /\b(not found|no such|missing|does not exist|doesn t exist|not exist|cannot find|could not find|can t find|enoent|404|nonexistent|absent|never (created|defined|installed))\b/,
  ],
  ["not installed", /\b(command not found|not installed|executable file not found|not recognized as)\b/],
  [
    "memory",
    /\b(memory|ram|oom|oom ?killed|heap|out of memory|allocation failed|cannot allocate|memoryerror|enomem)\b/,
  ],
  ["disk", /\b(disk|disks|no space|space left|enospc|storage|disk full|disk quota)\b/],
  [
    "timeout",
    /\b(timeout|timeouts|timed out|etimedout|deadline exceeded|hangs?|hanging|hung|no response|never (answers|responds|replies)|too long)\b/,
  ],
  [
    "refused",
    /\b(connection refused|econnrefused|failed to connect|could not connect|cannot connect|can t connect|not listening|(nothing|nobody|no one) (is )?(listening|answers|answering|responds|responding)|unreachable)\b/,
  ],
  [
    "dropped",
    /\b(reset by peer|econnreset|broken pipe|disconnect\w*|closed by remote|connection closed|drops?|dropped)\b/,
  ],
  [
    "name lookup",
    /\b(resolve host\w*|hostname|dns|getaddrinfo|enotfound|name or service not known|name resolution|look(ed)? up|lookup)\b/,
  ],
  ["certificate", /\b(certificates?|cert|certs|ssl|tls|x509|ca bundle|issuer|handshake)\b/],
  ["lock", /\b(lock|locks|locked|held|holds|busy|ebusy|in use by another|another process)\b/],
  [
    "taken",
    /\b(already in use|already allocated|address in use|eaddrinuse|already bound|occupied|port is already|already listens)\b/,
  ],
  ["exists", /\b(already exists|already owned|eexist|file exists|duplicate|exists already|already created)\b/],
  [
    "crash",
    /\b(crash|crashes|crashed|crashing|panic|panics|panicked|segmentation fault|segfault|sigsegv|core dumped|died|dies|killed|aborts?|aborted)\b/,
  ],
  ["rate limit", /\b(throttl\w*|rate exceeded|rate limit\w*|too many requests|429|slow(s)? (us )?down)\b/],
  [
    "version",
    /\b(versions?|releases?|incompatible|too old|outdated|newer|older|upgrade|downgrade|requires python|requires rustc)\b/,
  ],
  ["syntax", /\b(syntax|parse|parsing|unexpected token|malformed|invalid format|typo|indentation|indent)\b/],
  ["compiler", /\b(compiler|compile|compiling|gcc|clang|cc|toolchain|linker|link|linking|build essential)\b/],
  ["dependency", /\b(dependency|dependencies|packages?|modules?|librar(y|ies)|requirements?|crates?|imports?)\b/],
  ["variable", /\b(variables?|env|environment|unset|unbound|undefined|not defined|undeclared)\b/],
  ["restart", /\b(restart\w*|back off|crashloop\w*|start limit|repeated too quickly|keeps restarting)\b/],
  ["encoding", /\b(encoding|utf ?8|utf ?16|codec|decode|unicode|charset|ascii)\b/],
  ["too large", /\b(too large|too big|entity too large|413|size limit|max size|body size|payload too large)\b/],
  ["resources", /\b(insufficient|cpu|cpus|processor|resources|capacity|not enough)\b/],
  ["concurrency", /\b(race|data race|concurrent\w*|deadlock|simultaneous\w*|at (the same time|once))\b/],
  ["line endings", /\b(crlf|carriage returns?|line endings?|dos2unix|\\r)/],
  ["conflict", /\b(conflicts?|conflicting|diverged|divergent|non fast forward)\b/],
  ["expired", /\b(expired?|expires|expiry|expiration|stale|no longer valid)\b/],
  ["table", /\b(tables?|relations?|columns?|schemas?|rows?)\b/],
  ["region", /\b(regions?|availability zones?|datacenters?|data centers?|data centres?)\b/],
  ["reference", /\b(borrow|borrows|borrowed|borrowing|references?|pointers?)\b/],
  ["mutability", /\b(mutable|immutable|mutate|mutates|mutating|mutation|read only|readonly)\b/],
  // Names of common systems and the words their errors show instead.
  ["postgres", /\b(postgres\w*|psql|pg|pg \w+|libpq\w*|psycopg\w*)\b/],
  ["kubernetes", /\b(kubernetes|k8s|kubectl|kubelet|pods?)\b/],
  ["python", /\b(python\d*|pip\d*|pypi|venv|virtualenv|wheel)\b/],
  ["node", /\b(node|nodejs|npm|npx|node modules|javascript|yarn|pnpm)\b/],
  ["rust", /\b(rust|rustc|rustup|cargo|crates?)\b/],
];

/**
 * The text in the form the concepts and the word-level match read: camelCase and snake_case split into
 * words ("OOMKilled" gives "OOM Killed", "user_id" gives "user id"), the original word kept beside them.
 */
export function splitIdentifiers(text: string): string {
  return text.replace(/[\p{L}\p{N}_]+/gu, (w) => {
    const parts = w
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
      .replace(/_+/g, " ")
      .trim();
    return parts === w || parts === "" ? w : `${w} ${parts}`;
  });
}

/** What a file's extension says it is, in words ("deploy.sh" is a shell script). */
const EXTENSIONS: Record<string, string> = {
  sh: "shell script",
  bash: "shell script",
  zsh: "shell script",
  ps1: "powershell script",
  py: "python script",
  rb: "ruby script",
  pl: "perl script",
  js: "javascript file",
  mjs: "javascript file",
  cjs: "javascript file",
  ts: "typescript file",
  go: "go source file",
  rs: "rust source file",
  java: "java source file",
  c: "c source file",
  cc: "c++ source file",
  cpp: "c++ source file",
  h: "c header file",
  hpp: "c++ header file",
  o: "object file",
  so: "shared library",
  a: "static library",
  dll: "shared library",
  json: "json config file",
  yaml: "yaml config file",
  yml: "yaml config file",
  toml: "toml config file",
  ini: "config file",
  conf: "config file",
  cfg: "config file",
  env: "environment file",
  lock: "lock file",
  log: "log file",
  sql: "sql file",
  md: "markdown document",
  txt: "text file",
  csv: "csv data file",
  zip: "archive",
  gz: "compressed archive",
  tar: "archive",
  pem: "certificate key file",
  crt: "certificate file",
  key: "key file",
  whl: "python wheel package",
  jar: "java archive",
  service: "systemd unit",
};

/** File names in `text` followed by what their extensions say they are. */
export function describeFileNames(text: string): string {
  return text.replace(/[\w-]*\.([A-Za-z][A-Za-z0-9]{0,4})\b/g, (m, ext: string) => {
    const words = EXTENSIONS[ext.toLowerCase()];
    return words ? `${m} (${words})` : m;
  });
}

/** The error classes `text` names. */
export function errorConcepts(text: string): string[] {
  const s = ` ${text
    .toLowerCase()
    .replace(/\+x\b/g, "x")
    .replace(/[^\p{L}\p{N}\\]+/gu, " ")
    .replace(/\s+/g, " ")} `;
  const out: string[] = [];
  for (const [name, re] of CONCEPTS) if (re.test(s)) out.push(name);
  return out;
}
