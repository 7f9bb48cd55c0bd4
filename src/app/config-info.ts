// Config inspection for front-ends (config show|path|check) without opening the archive.
import { existsSync } from "node:fs";
import { homePaths, resolveHome } from "../config/home.ts";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
export { configToToml } from "../config/format.ts";

export interface ConfigInfo {
  home: string;
  path: string;
  config: Config;
  /** false when there is no config.toml: the defaults (and any MEMVOY_* overrides) are in use. */
  exists: boolean;
}

export function inspectConfig(home?: string, env: Record<string, string | undefined> = process.env): ConfigInfo {
  const paths = homePaths(resolveHome(home, env));
  return { home: paths.home, path: paths.config, config: loadConfig(paths.config, env), exists: existsSync(paths.config) };
}

export function configPath(home?: string, env: Record<string, string | undefined> = process.env): string {
  return homePaths(resolveHome(home, env)).config;
}
