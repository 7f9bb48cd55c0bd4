// memvoy config show|path|check: the effective config, its file, and validation.
import { checkVariables, configPath, configToToml, inspectConfig, maskedConfig } from "../../app/config-info.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { bool, str, type Parsed } from "../args.ts";
import { runCommand, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy config show|path|check [--json]

  show    the effective config (config.toml + MEMVOY_* environment + defaults)
  path    where config.toml lives for this home
  check   validate config.toml; exit 2 naming the file and the key when it is wrong,
          or a MEMVOY_* variable memvoy does not read (a misspelled name)

Environment overrides: MEMVOY_<SECTION>_<KEY>, e.g. MEMVOY_SUMMARY_MODEL,
MEMVOY_LIMITS_MAX_HISTORY_BYTES, MEMVOY_REPLY_LANG.
`;

const spec: CommandSpec = { name: "config", usage };

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, config);
}

async function config(p: Parsed): Promise<number> {
  const [sub = "show", ...rest] = p.positionals;
  if (rest.length)
    throw new CommandUsageError({ problem: "unexpected-argument", command: "config", argument: rest[0]! });
  const home = str(p, "home");
  const json = bool(p, "json");
  if (sub === "path") {
    const path = configPath(home);
    json ? printJson({ path }) : println(path);
    return 0;
  }
  if (sub !== "show" && sub !== "check")
    throw new CommandUsageError({
      problem: "unknown-subcommand",
      command: "config",
      subcommand: sub,
      choices: ["show", "path", "check"],
    });
  const info = inspectConfig(home);
  if (sub === "check") {
    const { checkCronPatterns } = await import("../../daemon/cron-patterns.ts");
    checkCronPatterns(info.config, info.path);
    checkVariables(process.env);
    if (json) printJson({ ok: true, path: info.path, exists: info.exists, overrides: info.overrides });
    else {
      const env = info.overrides.length > 0 ? `, with ${info.overrides.join(", ")} from the environment` : "";
      println(info.exists ? `${info.path}: ok${env}` : `no config.toml at ${info.path}: the defaults are in use${env}`);
    }
    return 0;
  }
  const shown = maskedConfig(info.config);
  json ? printJson(shown) : println(`# ${info.path}\n${configToToml(shown)}`);
  return 0;
}
