import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempHomes);

let bin: string;
let home: string;
const ids = Array.from({ length: 205 }, (_, i) => `sess-${String(i).padStart(3, "0")}`);

beforeAll(() => {
  // memvoy on PATH, as the completion scripts call it.
  bin = tempHome("memvoy-bin-");
  writeFileSync(
    join(bin, "memvoy"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, "src/index.ts")}" "$@"\n`,
  );
  chmodSync(join(bin, "memvoy"), 0o755);
  // A home of session folders only: sess-204 is the newest, sess-000 the oldest.
  home = tempHome();
  for (const [i, id] of ids.entries()) {
    mkdirSync(join(home, "sessions", id), { recursive: true });
    const file = join(home, "sessions", id, "history.json");
    writeFileSync(file, "[]");
    const t = 1_700_000_000 + i * 60;
    utimesSync(file, t, t);
  }
  // A second home inside HOME, for --home ~/other.
  mkdirSync(join(home, "other", "sessions", "other-only"), { recursive: true });
});

async function shell(cmd: string[], script: string): Promise<string[]> {
  const proc = Bun.spawn([...cmd, script], {
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: home, MEMVOY_HOME: home, TZ: "UTC", LANG: "C.UTF-8" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const { stdout: out, stderr: err, code } = await processOutput(proc);
  if (code !== 0) throw new Error(`${cmd[0]} exited ${code}: ${err}`);
  return out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t")[0]!);
}

const newest = ids.slice().reverse().slice(0, 200);

// compadd, compset and _files are the completion system's builtins; stand-ins print what they are given, sorted
// as zsh shows them unless compadd is told to keep the order (-V group).
const ZSH_STANDINS = `compdef() {}; compset() {}; compadd() { local keep=0; while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -V ]] && { keep=1; shift; }; shift; done; [[ $1 == -- ]] && shift; if (( keep )); then print -l -- "$@"; else print -l -- \${(o)@}; fi; }; _files() { print -- "FILES $*"; }`;

describe("shell completion", () => {
  test("memvoy completion prints a script per shell; an unknown shell is a usage error", async () => {
    for (const sh of ["bash", "zsh", "fish"]) {
      const r = await cli(["completion", sh]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("__complete");
    }
    const bad = await cli(["completion", "tcsh"]);
    expect(bad.code).toBe(2);
  });

  test("memvoy completion SHELL --json prints one JSON document: the shell and its script", async () => {
    for (const sh of ["bash", "zsh", "fish"]) {
      const script = (await cli(["completion", sh])).stdout;
      const r = await cli(["completion", sh, "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ shell: sh, script });
    }
  });

  test("bash: commands, flags, flag values, session ids newest first (at most 200), directories for --home", async () => {
    const run = (words: string[]) =>
      shell(
        ["bash", "-c"],
        `source <(memvoy completion bash)\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _memvoy; printf '%s\\n' "\${COMPREPLY[@]}"`,
      );
    expect(await run(["memvoy", "se"])).toEqual(["sessions", "search"]);
    expect(await run(["memvoy", "search", "--s"])).toEqual(["--sender", "--session", "--since"]);
    expect(await run(["memvoy", "search", "--match", ""])).toEqual(["keyword", "semantic", "hybrid"]);
    expect(await run(["memvoy", "history", ""])).toEqual(newest);
    expect(await run(["memvoy", "search", "x", "--session", "sess-00"])).toEqual(ids.slice(0, 10).reverse());
    expect(await run(["memvoy", "errors", "l"])).toEqual(["list"]);
    expect(await run(["memvoy", "errors", "s"])).toEqual(["search", "show", "sweep"]);
    expect(await run(["memvoy", "help", "comp"])).toEqual(["completion"]);
    expect(await run(["memvoy", "import", "c"])).toEqual(["claude-code", "codex", "chatgpt"]);
    expect(await run(["memvoy", "--home", join(home, "sess")])).toEqual([join(home, "sessions")]);
  });

  test("bash: file and folder names are completed as file names (a space escaped, a folder ending in /)", async () => {
    const dir = tempHome("memvoy-files-");
    mkdirSync(join(dir, "my dir"));
    writeFileSync(join(dir, "a file.txt"), "");
    // compopt acts only under readline: a stand-in prints the options the function asks for.
    const run = (words: string[]) =>
      shell(
        ["bash", "-c"],
        `source <(memvoy completion bash)\ncompopt() { echo "compopt $1 $2"; }\ncd '${dir}'\n` +
          `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _memvoy; printf '%s\\n' "\${COMPREPLY[@]}"`,
      );
    expect(await run(["memvoy", "--home", "my"])).toEqual(["compopt -o filenames", "my dir"]);
    expect(await run(["memvoy", "export", "s", "--output", "a"])).toEqual(["compopt -o filenames", "a file.txt"]);
    expect(await run(["memvoy", "se"])).toEqual(["sessions", "search"]);
  });

  test("zsh: the completion function offers the same candidates", async () => {
    const run = (words: string[]) =>
      shell(
        ["zsh", "-f", "-c"],
        `${ZSH_STANDINS}\n` +
          `source <(memvoy completion zsh)\nwords=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; _memvoy`,
      );
    expect(await run(["memvoy", "sum"])).toEqual(["summary", "summarize"]);
    expect(await run(["memvoy", "history", "--r"])).toEqual(["--role"]);
    expect(await run(["memvoy", "history", "--role", ""])).toEqual(["user", "assistant"]);
    expect(await run(["memvoy", "reset", ""])).toEqual(newest);
    expect(await run(["memvoy", "--home", ""])).toEqual(["FILES -/"]);
  });

  test("fish: complete -C lists the candidates in order", async () => {
    const run = (line: string) =>
      shell(["fish", "--no-config", "-c"], `memvoy completion fish | source\ncomplete -C '${line}'`);
    expect(await run("memvoy comp")).toEqual(["completion"]);
    expect(await run("memvoy search --ra")).toEqual(["--range"]);
    expect(await run("memvoy config ")).toEqual(["show", "path", "check"]);
    expect(await run("memvoy errors ")).toEqual(["record", "search", "list", "show", "rm", "sweep"]);
    expect(await run("memvoy daemon ")).toEqual(["status", "stop"]);
    expect(await run("memvoy import ")).toEqual([
      "claude-code",
      "codex",
      "opencode",
      "gemini",
      "aider",
      "chatgpt",
      "jsonl",
      "auto",
    ]);
    expect(await run("memvoy context ")).toEqual(newest);
    // export takes any number of sessions: each further one completes too, those named already left out.
    expect(await run("memvoy export sess-204 sess-203 sess-20")).toEqual(newest.slice(2, 5));
    expect(await run("memvoy history sess-204 ")).toEqual([]);
  });

  test("--flag=value and --home ~/DIR complete in every shell", async () => {
    // bash splits --flag=value at "=" (COMP_WORDBREAKS): --session = sess-20
    const bash = (words: string[]) =>
      shell(
        ["bash", "-c"],
        `source <(memvoy completion bash)\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _memvoy; printf '%s\\n' "\${COMPREPLY[@]}"`,
      );
    expect(await bash(["memvoy", "search", "x", "--session", "=", "sess-20"])).toEqual(newest.slice(0, 5));
    expect(await bash(["memvoy", "search", "--match", "="])).toEqual(["keyword", "semantic", "hybrid"]);
    expect(await bash(["memvoy", "--home", "=", join(home, "other"), "history", ""])).toEqual(["other-only"]);
    expect(await bash(["memvoy", "--home", "~/other", "rm", "o"])).toEqual(["other-only"]);
    const zsh = (words: string[]) =>
      shell(
        ["zsh", "-f", "-c"],
        `${ZSH_STANDINS}\n` +
          `source <(memvoy completion zsh)\nwords=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; _memvoy`,
      );
    expect(await zsh(["memvoy", "history", "--role=a"])).toEqual(["assistant"]);
    expect(await zsh(["memvoy", "--home", "~/other", "context", ""])).toEqual(["other-only"]);
    const fish = (line: string) =>
      shell(["fish", "--no-config", "-c"], `memvoy completion fish | source\ncomplete -C '${line}'`);
    expect(await fish("memvoy search --range=3")).toEqual(["--range=30d"]);
    expect(await fish("memvoy search --session=sess-20")).toEqual(newest.slice(0, 5).map((id) => `--session=${id}`));
    expect(await fish("memvoy --home=~/other reset ")).toEqual(["other-only"]);
  });

  test("--home as typed on the command line: quoted, escaped or from a variable, in every shell", async () => {
    // The shells hand the words over as typed: quotes, backslashes and $NAME are still in them.
    mkdirSync(join(home, "my home", "sessions", "spaced-only"), { recursive: true });
    const bash = (words: string[]) =>
      shell(
        ["bash", "-c"],
        `source <(memvoy completion bash)\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _memvoy; printf '%s\\n' "\${COMPREPLY[@]}"`,
      );
    expect(await bash(["memvoy", "--home", `"${home}/my home"`, "history", ""])).toEqual(["spaced-only"]);
    expect(await bash(["memvoy", "--home", `${home}/my\\ home`, "rm", "s"])).toEqual(["spaced-only"]);
    expect(await bash(["memvoy", "--home", "=", `"$HOME/my home"`, "reset", ""])).toEqual(["spaced-only"]);
    expect(await bash(["memvoy", "--home", `\${HOME}/other`, "context", ""])).toEqual(["other-only"]);
    const zsh = (words: string[]) =>
      shell(
        ["zsh", "-f", "-c"],
        `${ZSH_STANDINS}\n` +
          `source <(memvoy completion zsh)\nwords=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; _memvoy`,
      );
    expect(await zsh(["memvoy", "--home", '"$HOME/my home"', "history", ""])).toEqual(["spaced-only"]);
    const fish = (line: string) =>
      shell(["fish", "--no-config", "-c"], `memvoy completion fish | source\ncomplete -C '${line}'`);
    expect(await fish("memvoy --home $HOME/other reset ")).toEqual(["other-only"]);
  });

  test("flag values named in a usage line complete, hyphenated ones and those of a subcommand's own help included", async () => {
    const values = async (...words: string[]) =>
      (
        await cli(["__complete", String(words.length + 1), "memvoy", ...words, ""], { env: { MEMVOY_HOME: home } })
      ).stdout
        .trim()
        .split("\n");
    expect(await values("mcp", "--print-config")).toEqual(["claude-code", "codex", "opencode", "gemini"]);
    expect(await values("errors", "list", "--outcome")).toEqual(["resolved", "failed", "abandoned"]);
    expect(await values("errors", "record", "--outcome")).toEqual(["resolved", "failed", "abandoned"]);
  });

  test("a subcommand's flags are its own: errors list offers no --fix, errors record no --limit", async () => {
    const flags = async (...words: string[]) =>
      (
        await cli(["__complete", String(words.length + 1), "memvoy", ...words, "--"], { env: { MEMVOY_HOME: home } })
      ).stdout
        .trim()
        .split("\n");
    expect(await flags("errors", "list")).toEqual(["--help", "--home", "--json", "--limit", "--outcome", "--tool"]);
    expect(await flags("errors", "show", "ab12")).toEqual(["--help", "--home", "--json"]);
    expect(await flags("errors", "record")).toEqual([
      "--cause",
      "--error",
      "--fix",
      "--help",
      "--home",
      "--json",
      "--keywords",
      "--local",
      "--outcome",
      "--tool",
    ]);
    // the value of a subcommand's own flag is skipped like any other: --tool takes the next word
    expect(await flags("errors", "search", "--tool", "git", "x")).toContain("--other-tools");
  });

  test("help errors completes the subcommands that have a help of their own", async () => {
    const words = async (...w: string[]) =>
      (await cli(["__complete", String(w.length), "memvoy", ...w], { env: { MEMVOY_HOME: home } })).stdout
        .trim()
        .split("\n")
        .filter((l) => l !== "");
    expect(await words("help", "errors", "")).toEqual(["record", "search", "list", "show", "rm", "sweep"]);
    expect(await words("help", "errors", "s")).toEqual(["search", "show", "sweep"]);
    expect(await words("help", "errors", "record", "")).toEqual([]);
  });

  test("session ids come from the folder listing alone: no database is opened", async () => {
    const r = await cli(["__complete", "2", "memvoy", "rm", "sess-20"], { env: { MEMVOY_HOME: home } });
    expect(r.stdout.trim().split("\n")).toEqual(["sess-204", "sess-203", "sess-202", "sess-201", "sess-200"]);
    expect(existsSync(join(home, ".store"))).toBe(false);
  });
});
