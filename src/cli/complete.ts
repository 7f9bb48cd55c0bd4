// Shell completion answers (memvoy __complete CWORD WORDS...): commands, sub-commands, flags, their values, session ids.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { resolveHome } from "../config/home.ts";
import { dirEntries } from "../shared/dir-entries.ts";
import { TOP_FLAGS, type CommandSpec, type FlagValue } from "./command-specs.ts";
import { shellWord } from "./shell-word.ts";

/** Printed alone: the shell completes file or directory names itself. */
export const FILES = "__files__";
export const DIRS = "__dirs__";
export const MAX_SESSIONS = 200;

const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Session ids of a home starting with a prefix, newest first (by history.json's change time), at most MAX_SESSIONS. Only the
 * folder listing is read: no database, no vector store. Symlinks are not followed.
 */
export function sessionIdsForCompletion(home: string, prefix = "", max = MAX_SESSIONS): string[] {
  const found: { id: string; at: number }[] = [];
  for (const d of dirEntries(join(home, "sessions"))) {
    if (!d.isDirectory() || !d.name.startsWith(prefix) || !SESSION_ID.test(d.name)) continue;
    let at = 0;
    try {
      at = lstatSync(join(home, "sessions", d.name, "history.json")).mtimeMs;
    } catch {
      try {
        at = lstatSync(join(home, "sessions", d.name)).mtimeMs;
      } catch {}
    }
    found.push({ id: d.name, at });
  }
  return found
    .sort((a, b) => b.at - a.at || (a.id < b.id ? -1 : 1))
    .slice(0, max)
    .map((f) => f.id);
}

function valueCandidates(kind: FlagValue, home: () => string, prefix: string): string[] {
  if (Array.isArray(kind)) return kind;
  if (kind === "session") return sessionIdsForCompletion(home(), prefix);
  if (kind === "dir") return [DIRS];
  if (kind === "file") return [FILES];
  return [];
}

/**
 * bash splits `--flag=value` at "=" (it is in COMP_WORDBREAKS) into `--flag`, `=`, `value`: join such words
 * again, keeping track of the word being completed.
 */
function joinEquals(words: readonly string[], cword: number): { words: string[]; cword: number } {
  const out: string[] = [];
  let at = cword;
  for (let i = 0; i < words.length; i++) {
    const prev = out.at(-1);
    if (words[i] === "=" && prev?.startsWith("--") && !prev.includes("=")) {
      const value = i + 1 < words.length && i + 1 <= cword ? words[i + 1]! : "";
      out[out.length - 1] = `${prev}=${value}`;
      if (cword === i || cword === i + 1) at = out.length - 1;
      if (value !== "" || (i + 1 < words.length && i + 1 <= cword)) i++;
      continue;
    }
    if (i === cword) at = out.length;
    out.push(words[i]!);
  }
  return { words: out, cword: at };
}

/** The flags in force: the subcommand's own once it is named (errors list), else the command's, else the top ones. */
function flagsFor(command: CommandSpec | undefined, positionals: readonly string[]): ReadonlyMap<string, FlagValue> {
  if (!command) return TOP_FLAGS;
  return (positionals.length > 0 ? command.subcommandFlags[positionals[0]!] : undefined) ?? command.flags;
}

/**
 * Candidates for words[cword] (words[0] is the program), filtered by the typed prefix, except the file and
 * directory markers, which the shell expands itself. For `--flag=value` the candidates are values alone: each
 * completion script puts `--flag=` back where its shell needs it.
 */
export function complete(
  specs: readonly CommandSpec[],
  shellWords: readonly string[],
  shellCword: number,
  env = process.env,
): string[] {
  const { words, cword } = joinEquals(shellWords, shellCword);
  const cur = words[cword] ?? "";
  let homeFlag: string | undefined;
  let command: CommandSpec | undefined;
  let helpTopic = false;
  const positionals: string[] = [];
  let pendingValue: FlagValue | undefined;
  for (let i = 1; i < cword; i++) {
    const w = words[i]!;
    if (pendingValue !== undefined) {
      if (words[i - 1] === "--home") homeFlag = shellWord(w, env);
      pendingValue = undefined;
      continue;
    }
    if (w.startsWith("--home=")) homeFlag = shellWord(w.slice(7), env);
    if (w.startsWith("-")) {
      const flags = flagsFor(command, positionals);
      const kind = flags.get(w);
      if (kind !== undefined && kind !== "none") pendingValue = kind;
      continue;
    }
    if (!command && !helpTopic) {
      if (w === "help") helpTopic = true;
      else command = specs.find((s) => s.name === w);
      if (!command && !helpTopic) return [];
      continue;
    }
    positionals.push(w);
  }
  const home = () => resolveHome(homeFlag, env);
  const pick = (list: readonly string[], prefix = cur) =>
    list.length === 1 && (list[0] === FILES || list[0] === DIRS) ? [...list] : list.filter((c) => c.startsWith(prefix));
  if (pendingValue !== undefined) return pick(valueCandidates(pendingValue, home, cur));
  const flags = flagsFor(command, positionals);
  const inline = /^(--[a-z][a-z-]*)=(.*)$/s.exec(cur);
  if (inline) {
    const kind = flags.get(inline[1]!);
    if (kind === undefined || kind === "none") return [];
    return pick(valueCandidates(kind, home, inline[2]!), inline[2]!);
  }
  if (helpTopic) {
    if (positionals.length === 0) return pick(specs.map((s) => s.name));
    // help errors record: the subcommands that have a help of their own
    const topic = positionals.length === 1 ? specs.find((s) => s.name === positionals[0]) : undefined;
    return topic ? pick(Object.keys(topic.subcommandUsages)) : [];
  }
  if (cur.startsWith("-")) return pick([...flags.keys()].sort());
  if (!command) return pick([...specs.map((s) => s.name), "help"]);
  if (command.subcommands.length > 0 && positionals.length === 0) return pick(command.subcommands);
  if (command.sessionArg && positionals.length === 0) return pick(sessionIdsForCompletion(home(), cur));
  // export a b <TAB>: the sessions not named yet.
  if (command.sessionArgs) return pick(sessionIdsForCompletion(home(), cur).filter((id) => !positionals.includes(id)));
  return [];
}
