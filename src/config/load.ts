// Load config.toml, apply MEMVOY_* env overrides, validate; errors name the file and the key.
import { accessSync, constants, lstatSync, readlinkSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { parse as parseToml } from "smol-toml";
import * as v from "valibot";
import { errorMessage, namedError } from "../shared/errors.ts";
import { readRegularFile } from "../shared/regular-file.ts";
import { ConfigSchema, type Config } from "./schema.ts";
import { describeIssueFacts, issueFacts, type IssueFact } from "../shared/schema-issues.ts";
import { urlHasCredentials, urlHasPassword } from "./archive-url.ts";
import { arraysForTables, nearestKey, unknownKeys } from "./key-problems.ts";

/** A MEMVOY_* name memvoy does not read, with the one it most likely misspells. */
export interface UnknownVariable {
  name: string;
  near?: string;
}

/** The config cannot be used: unreadable, not TOML, failing the schema, or holding an invalid cron pattern. */
type ConfigProblem =
  | { problem: "unreadable"; file: string; reason: string }
  | { problem: "syntax"; source: string; detail: string; line?: number; column?: number }
  | { problem: "invalid"; source: string; issues: IssueFact[] }
  | { problem: "aliases-differ"; source: string; key: string; value: string; alias: string; aliasValue: string }
  | { problem: "cron"; source: string; key: string; pattern: string; reason: string }
  | { problem: "archive-password"; source: string }
  | { problem: "embedder-credentials"; source: string }
  | { problem: "embedder-no-provider"; source: string; keys: string[] }
  | { problem: "unknown-variables"; source: string; variables: UnknownVariable[] };

export const ConfigError = namedError<ConfigProblem>("ConfigError", "input", (d) => {
  if (d.problem === "unreadable") return `cannot read config ${d.file}: ${d.reason}`;
  return `config error in ${d.source}: ${configProblem(d)}`;
});
export type ConfigError = InstanceType<typeof ConfigError>;

function configProblem(d: Exclude<ConfigProblem, { problem: "unreadable" }>): string {
  switch (d.problem) {
    case "syntax":
      return d.line !== undefined && d.column !== undefined
        ? `TOML syntax error at line ${d.line}, column ${d.column}: ${d.detail}`
        : `TOML syntax error: ${d.detail}`;
    case "invalid":
      return describeIssueFacts(d.issues);
    case "aliases-differ":
      return `${d.key} (${JSON.stringify(d.value)}) and ${d.alias} (${JSON.stringify(d.aliasValue)}) differ: set one of them`;
    case "cron":
      return `${d.key}: invalid cron pattern ${JSON.stringify(d.pattern)}: ${d.reason}`;
    case "archive-password":
      return "archive.url includes a password, which is refused here; set MEMVOY_ARCHIVE_URL or PGPASSWORD instead";
    case "embedder-credentials":
      return "embedder.base_url includes a user, a password or a key in its query, which is refused here; put the key in VOYAGE_API_KEY or OPENAI_API_KEY, or set MEMVOY_EMBEDDER_BASE_URL";
    case "embedder-no-provider":
      return `${d.keys.join(", ")} ${d.keys.length === 1 ? "is" : "are"} set but embedder.provider is not (the builtin embedder, the default, ignores ${d.keys.length === 1 ? "it" : "them"}): set provider = "openai", "ollama" or "voyage", or "builtin"`;
    case "unknown-variables": {
      const names = d.variables.map((u) => (u.near ? `${u.name} (did you mean ${u.near}?)` : u.name));
      const one = d.variables.length === 1;
      return `${names.join(", ")} ${one ? "is not a variable memvoy reads, so it is" : "are not variables memvoy reads, so they are"} ignored`;
    }
  }
}

type Table = Record<string, unknown>;

/**
 * MEMVOY_SUMMARY_MODEL -> summary.model; MEMVOY_REPLY_LANG -> reply_lang. Whole numbers, floats, true/false and
 * TOML arrays are typed; anything else is text.
 */
function envOverrides(env: Record<string, string | undefined>, origins: Map<string, string>): Table {
  const out: Table = {};
  const sections = Object.keys(ConfigSchema.entries).filter(
    (k) =>
      (ConfigSchema.entries as Record<string, { type: string; wrapped?: { type: string } }>)[k]!.wrapped?.type ===
      "strict_object",
  );
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("MEMVOY_") || raw === undefined) continue;
    const key = name.slice(7).toLowerCase();
    if (key === "home") continue;
    const section = sections.find((s) => key.startsWith(s + "_"));
    const value = coerce(raw);
    if (section) {
      const t = (out[section] ??= {}) as Table;
      t[key.slice(section.length + 1)] = value;
      origins.set(`${section}.${key.slice(section.length + 1)}`, name);
    } else if (key in ConfigSchema.entries) {
      out[key] = value;
      origins.set(key, name);
    }
  }
  return out;
}

/** The MEMVOY_* variables of `env` that set a config key, by name. */
export function configOverrideNames(env: Record<string, string | undefined> = process.env): string[] {
  const origins = new Map<string, string>();
  envOverrides(env, origins);
  return [...new Set(origins.values())].sort();
}

/**
 * `decision_model` and `[summary] decision_model` are one setting: an override of either name replaces both in
 * the file (else the file's other name would conflict with it, or keep the model the override turned off).
 */
function overrideBothAliases(over: Table, origins: Map<string, string>): Table {
  const top = over.decision_model;
  const inSummary = (over.summary as Table | undefined)?.decision_model;
  if ((top === undefined) === (inSummary === undefined)) return over;
  const value = top ?? inSummary;
  const name = origins.get("decision_model") ?? origins.get("summary.decision_model")!;
  origins.set("decision_model", name).set("summary.decision_model", name);
  return {
    ...over,
    decision_model: value,
    summary: { ...((over.summary as Table | undefined) ?? {}), decision_model: value },
  };
}

function coerce(raw: string): unknown {
  // Spaces or a line end around a number or a boolean (an env file written on Windows: "16\r") are no part of it.
  const t = raw.trim();
  if (/^-?\d+$/.test(t)) return Number(t);
  if (t === "true" || t === "false") return t === "true";
  // A float (search.min_score) or a TOML array (import.sources); anything else stays text.
  if (/^[+-]?(?:\d+\.\d+|\d+(?:\.\d+)?[eE][+-]?\d+)$/.test(t)) return Number(t);
  if (raw.trimStart().startsWith("[")) {
    try {
      return (parseToml(`value = ${raw}`) as { value: unknown }).value;
    } catch {
      // not a TOML array: the schema names the key
    }
  }
  return raw;
}

function merge(base: Table, over: Table): Table {
  const out: Table = { ...base };
  for (const [k, val] of Object.entries(over)) {
    const cur = out[k];
    out[k] =
      cur && typeof cur === "object" && !Array.isArray(cur) && val && typeof val === "object"
        ? merge(cur as Table, val as Table)
        : val;
  }
  return out;
}

/**
 * Every problem of a config, each as `key.path: what`, on one line; a key set from the environment is named with
 * its variable (`http.enabled (MEMVOY_HTTP_ENABLED): ...`), as that is where its value came from.
 */
export function validateConfig(raw: unknown, source: string, origins?: ReadonlyMap<string, string>): Config {
  const result = v.safeParse(ConfigSchema, raw);
  const arrays = arraysForTables(ConfigSchema, raw);
  if (!result.success || arrays.length > 0) {
    // A table given as an array ([[summary]]) is one problem, not an unknown key per element.
    const inArray = (path?: string) => arrays.some((a) => path === a || path?.startsWith(`${a}.`));
    const issues: IssueFact[] = arrays.map((path) => ({
      path,
      problem: `expected a table ([${path}]), not an array`,
    }));
    const found = result.success
      ? []
      : issueFacts(result.issues.map(dateNamed), { unknown: "unknown key", topLevel: "(top level)" });
    issues.push(...found.filter((f) => !inArray(f.path)));
    // valibot names only the first unknown key of a table: the others are added here.
    for (const path of unknownKeys(ConfigSchema, raw)) {
      if (!issues.some((f) => f.path === path && f.problem === "unknown key"))
        issues.push({ path, problem: "unknown key" });
    }
    const named = issues.map((f) => {
      const key = [...(origins?.keys() ?? [])].find((k) => f.path === k || f.path?.startsWith(`${k}.`));
      const origin = key && origins!.get(key);
      const problem = f.problem === "unknown key" && f.path ? unknownKey(f.path, origin) : f.problem;
      return origin ? { path: `${f.path} (${origin})`, problem } : { ...f, problem };
    });
    throw new ConfigError({ problem: "invalid", source, issues: named });
  }
  return resolveAliases(result.output, source);
}

/**
 * A TOML date or time where another type belongs: valibot names what it received by its class, which is
 * smol-toml's TomlDate (or a minified name such as "w" in the built binary); it is named as the date it is.
 */
function dateNamed<I extends { input: unknown; received?: string; message: string }>(issue: I): I {
  if (!(issue.input instanceof Date) || issue.received === undefined) return issue;
  const message = issue.message.replace(
    `received ${issue.received}`,
    `received a TOML date or time (${issue.input.toISOString()})`,
  );
  return { ...issue, message };
}

/** `unknown key (did you mean summary.model?)`, or with the variable to set when the key came from one. */
function unknownKey(path: string, origin: string | undefined): string {
  const near = nearestKey(ConfigSchema, path);
  if (!near) return "unknown key";
  return `unknown key (did you mean ${origin ? `MEMVOY_${near.replace(".", "_").toUpperCase()}` : near}?)`;
}

/**
 * An HTTP embedder's settings without `provider` (forgotten, or misspelled in a variable): the builtin embedder,
 * the default, would silently stand in for the server they describe.
 */
function checkEmbedderProvider(raw: Table, config: Config, source: string, origins?: ReadonlyMap<string, string>) {
  if ((raw.embedder as Table | undefined)?.provider !== undefined) return;
  const e = config.embedder;
  const set = [e.base_url.trim() && "base_url", e.model.trim() && "model", e.dimensions > 0 && "dimensions"];
  const keys = set
    .filter((k): k is string => !!k)
    .map((k) => {
      const origin = origins?.get(`embedder.${k}`);
      return origin ? `embedder.${k} (${origin})` : `embedder.${k}`;
    });
  if (keys.length > 0) throw new ConfigError({ problem: "embedder-no-provider", source, keys });
}

/** `[summary].decision_model` and the top-level `decision_model` are one setting: both hold the value in effect. */
function resolveAliases(config: Config, source: string): Config {
  const inSummary = config.summary.decision_model.trim();
  const top = config.decision_model.trim();
  if (inSummary && top && inSummary !== top) {
    throw new ConfigError({
      problem: "aliases-differ",
      source,
      key: "summary.decision_model",
      value: inSummary,
      alias: "decision_model",
      aliasValue: top,
    });
  }
  const model = inSummary || top;
  return { ...config, decision_model: model, summary: { ...config.summary, decision_model: model } };
}

/** Where and what from a smol-toml syntax error; a redefinition names the table or key defined twice. */
function tomlSyntax(err: unknown, text: string): { detail: string; line?: number; column?: number } {
  const e = err as { message?: unknown; line?: unknown; column?: unknown };
  let detail = String(e.message ?? err)
    .split("\n")[0]!
    .replace(/^Invalid TOML document:\s*/, "");
  if (typeof e.line !== "number" || typeof e.column !== "number") return { detail };
  const lineText = text.split(/\r?\n/)[e.line - 1] ?? "";
  const twice = /^trying to redefine an already defined table or value/.test(detail) && definedName(lineText);
  if (twice) detail = `${twice} is defined twice (each table and key may be defined once)`;
  // The newline that ends a line inside a string is what smol-toml reports: the string was never closed.
  if (/^control characters are not allowed in strings/.test(detail) && e.column > lineText.length)
    detail = "a string is not closed on its line (a quote is missing)";
  return { detail, line: e.line, column: e.column };
}

/** The table header (`[summary]`) or key (`model`) a line of TOML defines, never its value. */
function definedName(lineText: string): string | undefined {
  const source = lineText.trim();
  const header = /^\[\[?[^\]]*\]\]?/.exec(source)?.[0];
  const key = /^([^=#]+?)\s*=/.exec(source)?.[1];
  const name = header ?? key;
  return name && name.length <= 80 ? name : undefined;
}

/**
 * Why config.toml cannot be read. A file where the home's folder belongs (--home naming config.toml itself, or a
 * file under which the home would lie) is named, which ENOTDIR's own text does not do.
 */
/** Where `file` links to when it is a symbolic link to nothing; undefined otherwise. */
function danglingLink(file: string): string | undefined {
  try {
    if (!lstatSync(file).isSymbolicLink() || statSync(file, { throwIfNoEntry: false })) return undefined;
    return readlinkSync(file);
  } catch {
    return undefined; // no such file (a home not made yet), or a loop of links (named by its ELOOP)
  }
}

function unreadableReason(file: string, err: unknown): string {
  if ((err as NodeJS.ErrnoException).code === "ELOOP")
    return "it is a symbolic link that leads back to itself (a loop)";
  if ((err as NodeJS.ErrnoException).code === "ENOTDIR")
    for (let p = dirname(file); p !== dirname(p); p = dirname(p)) {
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(p, { throwIfNoEntry: false });
      } catch {
        continue; // ENOTDIR: the file is further up
      }
      if (st && !st.isDirectory())
        return p === dirname(file)
          ? `the home ${p} is a file, not a folder`
          : `${p} is a file, not a folder, and the home ${dirname(file)} would lie under it`;
    }
  return errorMessage(err);
}

/** For a denied read of config.toml: the highest folder above it this user may not enter, else the file itself. */
function deniedOn(file: string, err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== "EACCES" && code !== "EPERM") return undefined;
  let denied = file;
  for (let p = dirname(file); p !== dirname(p); p = dirname(p)) {
    try {
      accessSync(p, constants.X_OK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EACCES") denied = p;
    }
  }
  return denied;
}

export function loadConfig(file: string, env: Record<string, string | undefined> = process.env): Config {
  const origins = new Map<string, string>();
  const overrides = overrideBothAliases(envOverrides(env, origins), origins);
  const overridden = Object.keys(overrides).length > 0;
  let fromFile: Table = {};
  let text: string | undefined;
  try {
    text = readRegularFile(file);
  } catch (err) {
    // A config.toml linked to a file not there (a dotfiles checkout or a disk missing) is no config to ignore.
    const target = danglingLink(file);
    if (target !== undefined)
      throw new ConfigError({
        problem: "unreadable",
        file,
        reason: `it is a symbolic link to ${target}, which does not exist (a dotfiles folder or a disk not there?)`,
      });
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      const denied = deniedOn(file, err);
      // A denial named here, without the errno as its cause (describeError would add "permission denied:" first).
      if (denied) throw new ConfigError({ problem: "unreadable", file, reason: `permission denied on ${denied}` });
      throw new ConfigError({ problem: "unreadable", file, reason: unreadableReason(file, err) }, { cause: err });
    }
  }
  if (text !== undefined) {
    // Windows PowerShell's `>` writes UTF-16: TOML is UTF-8, and smol-toml would only find an "illegal character".
    if (/^(\ufffd\ufffd|\ufeff?[^\0]?\0)/.test(text))
      throw new ConfigError({
        problem: "syntax",
        source: file,
        detail: "the file is not UTF-8 (UTF-16?): save it as UTF-8",
      });
    try {
      fromFile = parseToml(text) as Table;
    } catch (err) {
      throw new ConfigError({ problem: "syntax", source: file, ...tomlSyntax(err, text) }, { cause: err });
    }
    const checked = validateConfig(fromFile, file);
    if (urlHasPassword(checked.archive.url)) throw new ConfigError({ problem: "archive-password", source: file });
    if (urlHasCredentials(checked.embedder.base_url))
      throw new ConfigError({ problem: "embedder-credentials", source: file });
    // Without overrides the file's validation is the config's: it runs once.
    if (!overridden) {
      checkEmbedderProvider(fromFile, checked, file);
      return checked;
    }
  }
  const raw = merge(fromFile, overrides);
  // With no config.toml, only the environment can be wrong: the file is not named (it would be looked for in vain).
  const source = !overridden
    ? file
    : text === undefined
      ? "the MEMVOY_* environment"
      : `${file} + MEMVOY_* environment`;
  const config = validateConfig(raw, source, origins);
  checkEmbedderProvider(raw, config, source, origins);
  return config;
}
