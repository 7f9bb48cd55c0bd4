// The importable sources by name, and which of them `import auto` looks for.
import type { ImportTarget } from "../app/import-target.ts";
import type { Source } from "./import-types.ts";
import { aider } from "./sources/aider.ts";
import { chatgpt } from "./sources/chatgpt.ts";
import { claudeCode } from "./sources/claude-code.ts";
import { codex } from "./sources/codex.ts";
import { gemini } from "./sources/gemini.ts";
import { opencode, opencodeDefaultPaths, opencodeFiles } from "./sources/opencode.ts";

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

/**
 * Whether an import of `source` (a source's name or auto) would read no file, so would write nothing: nothing at
 * its PATHs, or at the default locations (every source's, for auto). A memvoy export (jsonl) is read to know.
 */
export function readsNoFile(
  source: string,
  paths: readonly string[],
  env: Record<string, string | undefined>,
): boolean {
  if (source === "jsonl") return false;
  const names = source === "auto" ? SOURCE_NAMES : SOURCE_NAMES.filter((n) => n === source);
  return names.every((name) =>
    (paths.length > 0 ? paths : (defaultLocation(name, env)?.paths ?? [])).every((path) => {
      try {
        return (name === "opencode" ? opencodeFiles(path) : STATIC_SOURCES[name].files(path)).length === 0;
      } catch {
        return true; // not there, or not readable: the import reports it, and reads nothing either
      }
    }),
  );
}

const STATIC_SOURCES = { "claude-code": claudeCode, codex, gemini, aider, chatgpt };
