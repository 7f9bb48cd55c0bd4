// Render a config as TOML (for `config show`).
import { stringify } from "smol-toml";
import type { Config } from "./schema.ts";

export function configToToml(config: Config): string {
  return stringify(config);
}
