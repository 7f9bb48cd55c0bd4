// The library's public types compile in an outside project with tsc --strict (the package as a consumer
// installs it: src and package.json, its dependencies beside it), and src/public.d.ts matches src/lib.ts.
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as Public from "memvoy";
import * as lib from "../../src/lib.ts";
import { removeTempDirs, repoRoot, tempDir } from "./support.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempDirs);

// Compile-time: what lib.ts exports satisfies the declarations a consumer sees.
const implementation: Pick<
  typeof Public,
  | "openMemory"
  | "connectMemory"
  | "InputError"
  | "UsageError"
  | "RuntimeFailure"
  | "RemoteError"
  | "MemvoyError"
  | "describeError"
> = lib;
void implementation;

// Run-time: lib.ts exports exactly the values public.d.ts declares (a value exported beside them would be
// reachable from JavaScript while a typed consumer is told it does not exist).
test("the library exports exactly the functions and classes src/public.d.ts declares", () => {
  const declared = [
    ...readFileSync(join(repoRoot, "src/public.d.ts"), "utf8").matchAll(
      /^export declare (?:abstract )?(?:function|class|const) (\w+)/gm,
    ),
  ].map((m) => m[1]!);
  expect(Object.keys(lib).sort()).toEqual(declared.sort());
});

const CONSUMER = `
import { openMemory, connectMemory, InputError, RemoteError, type MemoryApi, type MessageInput, type SearchResultJson, type ErrorRecordJson } from "memvoy";
const api: MemoryApi = openMemory({ home: "/tmp/memvoy-consumer" });
const message: MessageInput = { role: "user", content: "hello", sender: "ann", idempotencyKey: "turn-1" };
const { ids } = await api.add("s", [message]);
const found: SearchResultJson = await api.search({ query: "hello", match: "keyword", limit: 5 });
const when: string | undefined = found.hits[0]?.sendAt;
const records: ErrorRecordJson[] = (await api.listErrors({ limit: 10 })).records;
const remote = connectMemory({ url: "http://127.0.0.1:1", token: "t" });
try {
  await remote.sessions();
} catch (e) {
  if (e instanceof RemoteError || e instanceof InputError) console.log(e.exitCode);
}
console.log(ids.length, when, records.length);
await api.close();
`;

/** A project with memvoy installed in its node_modules, as a package manager puts it there. */
function consumerProject(): string {
  const dir = tempDir("memvoy-consumer-");
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "memvoy"), { recursive: true });
  cpSync(join(repoRoot, "src"), join(modules, "memvoy", "src"), { recursive: true });
  cpSync(join(repoRoot, "package.json"), join(modules, "memvoy", "package.json"));
  // An install hoists the dependencies beside the package.
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry !== "memvoy" && !entry.startsWith("."))
      symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" })); // as bun init writes it
  return dir;
}

const CONFIGS: Record<string, object> = {
  "plain --strict, no skipLibCheck": {
    strict: true,
    target: "ESNext",
    module: "Preserve",
    moduleResolution: "bundler",
    noEmit: true,
    types: ["bun"],
  },
  // What `tsc --init` writes: imports resolved as Node.js resolves ES modules, every relative path with its extension.
  "tsc --init's nodenext": {
    strict: true,
    target: "ES2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    noEmit: true,
    types: ["bun"],
  },
  "bun's template, stricter still": {
    lib: ["ESNext"],
    target: "ESNext",
    module: "Preserve",
    moduleDetection: "force",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    exactOptionalPropertyTypes: true,
    noPropertyAccessFromIndexSignature: true,
    types: ["bun"],
  },
};

for (const [name, compilerOptions] of Object.entries(CONFIGS)) {
  test(`a consumer project typechecks with tsc (${name})`, async () => {
    const dir = consumerProject();
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["index.ts"] }));
    writeFileSync(join(dir, "index.ts"), CONSUMER);
    const proc = Bun.spawn([join(repoRoot, "node_modules/.bin/tsc"), "-p", dir], {
      cwd: dir,
      stdout: "pipe",
      stderr: "pipe",
    });
    const { stdout: out, stderr: err, code } = await processOutput(proc);
    expect(out + err).toBe("");
    expect(code).toBe(0);
  }, 120_000);
}

// The README's example, run by Bun from the consumer's project: the package's code runs from node_modules,
// where Bun refuses macros.
test("the README's library example runs in a consumer project", async () => {
  const dir = consumerProject();
  const home = join(dir, "home");
  writeFileSync(
    join(dir, "index.ts"),
    `import { openMemory } from "memvoy";
const memory = openMemory({ home: ${JSON.stringify(home)} });
await memory.add("support-42", { role: "user", content: "the deploy failed", sender: "ann" });
const { hits } = await memory.search({ query: "deploy", match: "keyword", session: "support-42" });
const turn = await memory.context("support-42", "what did we decide?");
console.log(JSON.stringify([hits.map((h) => h.content), turn.messages.length]));
await memory.close();
`,
  );
  const proc = Bun.spawn([process.execPath, "index.ts"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    stdout: "pipe",
    stderr: "pipe",
  });
  const { stdout: out, stderr: err, code } = await processOutput(proc);
  expect(err).toBe("");
  expect(out.trim()).toBe(JSON.stringify([["the deploy failed"], 2]));
  expect(code).toBe(0);
}, 120_000);

test("the package's bin serves MCP from a consumer project's node_modules", async () => {
  const dir = consumerProject();
  const proc = Bun.spawn([process.execPath, "node_modules/memvoy/src/index.ts", "mcp", "--home", join(dir, "home")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  proc.stdin.write(`${JSON.stringify(initialize)}\n`);
  proc.stdin.end();
  const { stdout: text, stderr: err } = await processOutput(proc);
  expect(err).toBe("");
  const answer = JSON.parse(text.split("\n")[0]!) as { id: number; result: { serverInfo: { name: string } } };
  expect(answer.id).toBe(1);
  expect(answer.result.serverInfo.name).toBe("memvoy");
}, 120_000);
