// The layering of DESIGN.md: one import direction, each third-party package in one folder, heavy modules lazy, no cycles.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { checkArchitecture, readTree, resolveImport, type SourceTree } from "./fixture/architecture-rules.ts";

const SRC = resolve(import.meta.dir, "../src");
const tree = readTree(SRC);

describe("architecture of src/", () => {
  test("the checker sees the tree: files are found and known imports are parsed and resolved", () => {
    expect(tree.files.length).toBeGreaterThan(100);
    const imports = (file: string) =>
      tree.imports.get(join(SRC, file))!.map((i) => resolveImport(tree, join(SRC, file), i.spec));
    expect(imports("app/memory-api.ts")).toContain(join(SRC, "memory/write-path.ts"));
    expect(imports("cli/main.ts")).toContain(join(SRC, "cli/format-error.ts"));
    expect(imports("cli/main.ts")).toContain(join(SRC, "cli/commands/add.ts"));
    expect(tree.imports.get(join(SRC, "daemon/scheduler.ts"))!.map((i) => i.spec)).toContain("croner");
    const lazy = tree.imports.get(join(SRC, "cli/main.ts"))!.filter((i) => i.dynamic);
    expect(lazy.length).toBeGreaterThan(0);
  });

  test("front-ends never reach into the home's paths or config through the API object", () => {
    const bad: string[] = [];
    for (const file of tree.files.filter((f) => /\/src\/(cli|tui|mcp|http)\//.test(f))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\bapi\.(paths|config)\b/g)) bad.push(`${file}: api.${m[1]}`);
    }
    expect(bad).toEqual([]);
  });

  test("the library's public surface is the MemoryApi port: no home internals are exported", () => {
    const lib = readFileSync(join(SRC, "lib.ts"), "utf8");
    for (const internal of ["HomeMemory", "MaintenanceApi", "open-memory.ts", "memory/", "storage/"])
      expect(lib).not.toContain(internal);
  });

  const results = checkArchitecture(tree);
  for (const [rule, violations] of Object.entries(results)) {
    test(`${rule}: none`, () => expect(violations).toEqual([]));
  }
});

// Each rule must fail on a tree that breaks it: a minimal valid tree, then one planted violation at a time.
const BASE: Record<string, string> = {
  "src/index.ts": `// entry\nif (process.argv[2] === "--version") console.log("0");\nelse await import("./cli/main.ts");\n`,
  "src/cli/main.ts": `// cli\nimport { parse } from "./args.ts";\nparse();\nawait import("./commands/add.ts");\n`,
  "src/cli/args.ts": `// args\nexport function parse() {}\n`,
  "src/cli/commands/add.ts": `// add\nimport { openMemory } from "../../app/open-memory.ts";\nopenMemory();\n`,
  "src/app/open-memory.ts": `// open\nimport { append } from "../memory/write-path.ts";\nexport function openMemory() { append(); }\n`,
  "src/app/memory-api.ts": `// api\nexport type { Row } from "../storage/rows.ts";\n`,
  "src/memory/write-path.ts": `// write\nimport { insert } from "../storage/rows.ts";\nexport function append() { insert(); }\n`,
  "src/storage/rows.ts": `// rows\nimport { Database } from "bun:sqlite";\nexport type Row = { id: number };\nexport function insert() { return Database; }\n`,
  "src/daemon/scheduler.ts": `// scheduler\nimport { Cron } from "croner";\nexport const c = Cron;\n`,
  "src/daemon/daemon.ts": `// daemon\nexport async function run() { return import("./scheduler.ts"); }\n`,
  "src/llm/client.ts": `// llm\nexport function warn(): string { return "w"; }\n`,
  "src/tui/status.ts": `// tui\nexport function show(text: string) { return text; }\n`,
  "test/helper.ts": `// test helper\nexport const x = 1;\n`,
};

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function plant(extra: Record<string, string>): SourceTree {
  const root = mkdtempSync(join(tmpdir(), "memvoy-arch-"));
  made.push(root);
  for (const [path, text] of Object.entries({ ...BASE, ...extra })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return readTree(join(root, "src"));
}

const failing = (results: Record<string, string[]>) => Object.keys(results).filter((k) => results[k]!.length > 0);

describe("architecture checker on planted trees", () => {
  test("the minimal tree keeps every rule", () => {
    expect(checkArchitecture(plant({}))).toEqual(
      Object.fromEntries(Object.keys(checkArchitecture(tree)).map((k) => [k, []])),
    );
  });

  const cases: [string, Record<string, string>, string[]][] = [
    [
      "a two-file import cycle",
      {
        "src/memory/a.ts": `// a\nimport { b } from "./b.ts";\nexport const a = () => b;\n`,
        "src/memory/b.ts": `// b\nimport { a } from "./a.ts";\nexport const b = () => a;\n`,
      },
      ["importCycles", "cyclesPerFolder"],
    ],
    [
      "a type-only import cycle inside a subfolder",
      {
        "src/memory/summary/a.ts": `// a\nimport type { B } from "./b.ts";\nexport type A = { b?: B };\n`,
        "src/memory/summary/b.ts": `// b\nimport type { A } from "./a.ts";\nexport type B = { a?: A };\n`,
      },
      ["importCycles", "cyclesPerFolder"],
    ],
    ["a .tsx file", { "src/tui/view.tsx": `// view\nexport const v = 1;\n` }, ["nonTypeScriptSources"]],
    [
      "a .tsx file that breaks the layering",
      {
        "src/storage/view.tsx": `// view\nimport { openMemory } from "../app/open-memory.ts";\nexport const v = openMemory;\n`,
      },
      ["nonTypeScriptSources", "layerViolations"],
    ],
    [
      "a relative import of a package file outside its folder",
      {
        "src/memory/sdk.ts": `// sdk\nimport { x } from "../../node_modules/croner/dist/croner.js";\nexport const y = x;\n`,
      },
      ["packageViolations"],
    ],
    [
      "a src -> test import",
      { "src/memory/uses-test.ts": `// bad\nimport { x } from "../../test/helper.ts";\nexport const y = x;\n` },
      ["importsLeavingTree"],
    ],
    [
      "a command statically pulling in croner",
      {
        "src/cli/commands/daemon.ts": `// daemon command\nimport { c } from "../../daemon/scheduler.ts";\nexport const d = c;\n`,
      },
      ["eagerHeavyImports"],
    ],
    [
      "a type-only import from a front-end into memory",
      {
        "src/cli/commands/errors.ts": `// errors\nimport type { Row } from "../../storage/rows.ts";\nexport const r: Row | undefined = undefined;\n`,
      },
      ["frontEndBypasses"],
    ],
    [
      "a type-only import from a front-end into storage",
      {
        "src/daemon/jobs.ts": `// jobs\nimport type { Row } from "../storage/rows.ts";\nexport const r: Row[] = [];\n`,
      },
      ["frontEndBypasses"],
    ],
    [
      "an import up the layers",
      { "src/storage/up.ts": `// up\nimport { append } from "../memory/write-path.ts";\nexport const u = append;\n` },
      ["layerViolations"],
    ],
    [
      "a sibling import",
      { "src/llm/side.ts": `// side\nimport { insert } from "../storage/rows.ts";\nexport const s = insert;\n` },
      ["layerViolations"],
    ],
    [
      "a package outside its folder",
      { "src/memory/cron.ts": `// cron\nimport { Cron } from "croner";\nexport const c = Cron;\n` },
      ["packageViolations"],
    ],
    ["a folder in no layer", { "src/extras/x.ts": `// x\nexport const x = 1;\n` }, ["unknownFolders"]],
    [
      "console use in the llm layer",
      { "src/llm/client.ts": `// llm\nexport function warn() { console.warn("w"); }\n` },
      ["llmWrites"],
    ],
    [
      "stderr writes in the llm layer",
      { "src/llm/client.ts": `// llm\nexport function warn() { process.stderr.write("w"); }\n` },
      ["llmWrites"],
    ],
    [
      "first-line error formatting in the TUI",
      { "src/tui/status.ts": `// tui\nexport function show(err: Error) { return err.message.split("\\n")[0]; }\n` },
      ["tuiFirstLineErrors"],
    ],
    [
      "Bun's PostgreSQL client outside storage/postgres",
      { "src/memory/pg.ts": `// pg\nimport { SQL } from "bun";\nexport const db = new SQL("postgres://x@y/z");\n` },
      ["sqlOutsidePostgres"],
    ],
    [
      "Bun.sql used outside storage/postgres",
      { "src/storage/rows2.ts": `// rows2\nexport const q = () => Bun.sql\`SELECT 1\`;\n` },
      ["sqlOutsidePostgres"],
    ],
    [
      "the entry importing our code statically",
      { "src/index.ts": `// entry\nimport "./cli/main.ts";\n` },
      ["entryStaticImports"],
    ],
  ];
  for (const [name, files, rules] of cases) {
    test(`fails on ${name}`, () => expect(failing(checkArchitecture(plant(files)))).toEqual(rules));
  }
});
