// The MEMVOY_* variables memvoy does not read (MEMVOY_HOEM), each with the name it most likely misspells.
import { nearestName } from "../shared/nearest-name.ts";
import { ConfigError, configOverrideNames, type UnknownVariable } from "./load.ts";
import { ConfigSchema } from "./schema.ts";
import { S3_KEY_VARIABLES } from "./vectors-schema.ts";

/** MEMVOY_* variables read outside config.toml's keys: the home, the object store's keys, the scripts' and tests'. */
const OTHER_VARIABLES = [
  "MEMVOY_HOME",
  ...Object.values(S3_KEY_VARIABLES).map((names) => names[0]),
  "MEMVOY_RUN_SCRIPT",
  "MEMVOY_TOOLS_DIR",
  "MEMVOY_PG_BIN",
  "MEMVOY_LOCOMO_DATA",
  "MEMVOY_TEST_FAULT",
];

interface Node {
  wrapped?: { type: string; entries?: Record<string, unknown> };
}

/** Every config key as its variable: MEMVOY_REPLY_LANG, MEMVOY_SUMMARY_MODEL, ... */
function configVariables(): string[] {
  const out: string[] = [];
  for (const [key, node] of Object.entries(ConfigSchema.entries as Record<string, Node>)) {
    const table = node.wrapped?.type === "strict_object" ? node.wrapped.entries : undefined;
    if (!table) out.push(`MEMVOY_${key.toUpperCase()}`);
    else for (const inner of Object.keys(table)) out.push(`MEMVOY_${key}_${inner}`.toUpperCase());
  }
  return out;
}

/**
 * The MEMVOY_* names of `env` that neither set a config key nor are read elsewhere: a misspelling leaves its
 * setting silently unused (MEMVOY_HOEM leaves the default home in use). A name with a config section's prefix is
 * not here: the config's validation names it as an unknown key.
 */
export function unknownVariables(env: Record<string, string | undefined>): UnknownVariable[] {
  const config = configVariables();
  const overrides = new Set(configOverrideNames(env));
  const known = [...config, ...OTHER_VARIABLES].map((k) => k.slice(7).toLowerCase());
  const out: UnknownVariable[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith("MEMVOY_") || env[name] === undefined) continue;
    if (OTHER_VARIABLES.includes(name) || overrides.has(name)) continue;
    const key = name.slice(7).toLowerCase();
    const near = nearestName(key, known) ?? sectionFor(key, config);
    out.push(near ? { name, near: near.startsWith("MEMVOY_") ? near : `MEMVOY_${near.toUpperCase()}` } : { name });
  }
  return out;
}

/** MEMVOY_MAX_HISTORY_MESSAGES names a key without its section: the one variable that ends with it. */
function sectionFor(key: string, config: readonly string[]): string | undefined {
  const holding = config.filter((c) => c.toLowerCase().endsWith(`_${key}`));
  return holding.length === 1 ? holding[0] : undefined;
}

/** Refuses an environment holding MEMVOY_* names memvoy ignores (config check): exit 2 naming each. */
export function checkVariables(env: Record<string, string | undefined>): void {
  const variables = unknownVariables(env);
  if (variables.length > 0)
    throw new ConfigError({ problem: "unknown-variables", source: "the environment", variables });
}
