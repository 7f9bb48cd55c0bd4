// The importable sources by name, and which of them `import auto` looks for.
import type { ImportTarget } from "../app/import-target.ts";
import type { Source } from "./import-types.ts";
import { aider } from "./sources/aider.ts";
import { chatgpt } from "./sources/chatgpt.ts";
import { claudeCode } from "./sources/claude-code.ts";
import { codex } from "./sources/codex.ts";
import { gemini } from "./sources/gemini.ts";
import { opencode, opencodeDefaultPaths } from "./sources/opencode.ts";

export const SOURCE_NAMES = ["claude-code", "codex", "opencode", "gemini", "aider", "chatgpt"] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export function isSourceName(name: string): name is SourceName {
  return (SOURCE_NAMES as readonly string[]).includes(name);
}

export function sourceByName(api: ImportTarget, name: SourceName): Source {
  switch (name) {
    case "claude-code":
      return claudeCode;
    case "codex":
      return codex;
    case "opencode":
      return opencode(api);
    case "gemini":
      return gemini;
    case "aider":
      return aider;
    case "chatgpt":
      return chatgpt;
  }
}

/** Where a source looks without PATH, and the environment variable that moves it; undefined: it has no default. */
export function defaultLocation(
  name: SourceName,
  env: Record<string, string | undefined>,
): { paths: string[]; override: string } | undefined {
  switch (name) {
    case "claude-code":
      return { paths: claudeCode.defaultPaths(env) ?? [], override: "CLAUDE_CONFIG_DIR" };
    case "codex":
      return { paths: codex.defaultPaths(env) ?? [], override: "CODEX_HOME" };
    case "opencode":
      return { paths: opencodeDefaultPaths(env), override: "OPENCODE_DB or XDG_DATA_HOME" };
    case "gemini":
      return { paths: gemini.defaultPaths(env) ?? [], override: "GEMINI_CLI_HOME" };
    default:
      return undefined;
  }
}
