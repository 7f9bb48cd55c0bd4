// Config inspection for front-ends (config show|path|check) without opening the archive.
import { existsSync } from "node:fs";
import { homePaths, resolveHome } from "../config/home.ts";
import { configOverrideNames, loadConfig } from "../config/load.ts";
import { unknownVariables } from "../config/env-names.ts";
import type { Config } from "../config/schema.ts";
import { redactSecrets, redactUrl } from "../shared/redact.ts";
export { configToToml } from "../config/format.ts";
export { checkVariables } from "../config/env-names.ts";

export interface ConfigInfo {
  home: string;
  path: string;
  config: Config;
  /** false when there is no config.toml: the defaults (and any MEMVOY_* overrides) are in use. */
  exists: boolean;
  /** The MEMVOY_* variables that set a key, by name. */
  overrides: string[];
}

export function inspectConfig(home?: string, env: Record<string, string | undefined> = process.env): ConfigInfo {
  const paths = homePaths(resolveHome(home, env));
  return {
    home: paths.home,
    path: paths.config,
    config: loadConfig(paths.config, env),
    exists: existsSync(paths.config),
    overrides: configOverrideNames(env),
  };
}

/** The config fit to print: every URL in it with its userinfo and token-like query values masked. */
export function maskedConfig(config: Config): Config {
  const mask = (v: unknown): unknown => {
    if (typeof v === "string") return /^[a-z][a-z0-9+.-]*:\/\//i.test(v.trim()) ? redactUrl(v) : redactSecrets(v).text;
    if (Array.isArray(v)) return v.map(mask);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x)]));
    return v;
  };
  return mask(config) as Config;
}

export function configPath(home?: string, env: Record<string, string | undefined> = process.env): string {
  return homePaths(resolveHome(home, env)).config;
}

/** The MEMVOY_* variables of `env` memvoy ignores, as doctor findings' text (MEMVOY_HOEM leaves the default home in use). */
export function ignoredVariables(env: Record<string, string | undefined> = process.env): string[] {
  return unknownVariables(env).map(
    (u) =>
      `${u.name} is set, but memvoy reads no such variable and ignores it${u.near ? `: did you mean ${u.near}?` : ""}`,
  );
}
