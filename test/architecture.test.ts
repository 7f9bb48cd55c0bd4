// The layering of DESIGN.md: one import direction, each third-party package in one folder, heavy modules lazy.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");
const LAYERS: string[][] = [["shared"], ["config"], ["storage", "llm", "embed"], ["search"], ["memory"], ["app"], ["import"], ["daemon", "tui", "mcp"], ["cli"], ["index.ts", "lib.ts"]];
const PACKAGE_HOME: Record<string, string[]> = {
  "bun:sqlite": ["storage"],
  "@lancedb/lancedb": ["storage"],
  "apache-arrow": ["storage"],
  "@anthropic-ai/sdk": ["llm"],
  croner: ["daemon"],
  blessed: ["tui"],
  "smol-toml": ["config"],
  "opencc-js": ["memory"],
  "wink-porter2-stemmer": ["shared"],
  // valibot validates input at the boundaries: the config file, wire input, LLM answers.
  valibot: ["config", "app", "memory"],
};
const HEAVY = ["@lancedb/lancedb", "apache-arrow", "blessed", "@anthropic-ai/sdk"];

interface Import {
  spec: string;
  dynamic: boolean;
  typeOnly: boolean;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  const out: Import[] = [];
  for (const m of text.matchAll(/(?:^|;)\s*(import|export)\s+(type\s+)?(?:[^'"`;]*?\s+from\s+)?["']([^"']+)["']/gm)) {
    out.push({ spec: m[3]!, dynamic: false, typeOnly: !!m[2] });
  }
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) out.push({ spec: m[1]!, dynamic: true, typeOnly: false });
  for (const m of text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)) out.push({ spec: m[1]!, dynamic: false, typeOnly: false });
  return out;
}

const files = [...new Bun.Glob("**/*.ts").scanSync({ cwd: SRC })].filter((f) => !f.endsWith(".d.ts")).map((f) => join(SRC, f));
const folderOf = (file: string) => relative(SRC, file).split("/")[0]!;
const layerOf = (folder: string) => LAYERS.findIndex((l) => l.includes(folder));
const packageOf = (spec: string) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);

describe("architecture", () => {
  test("every source folder belongs to a layer", () => {
    const unknown = [...new Set(files.map(folderOf))].filter((f) => layerOf(f) < 0);
    expect(unknown).toEqual([]);
  });

  test("imports only go from a layer to itself or layers to its left; siblings never import each other", () => {
    const bad: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      for (const imp of importsOf(file)) {
        if (!imp.spec.startsWith(".")) continue;
        const to = folderOf(resolve(dirname(file), imp.spec));
        if (to === from || to === "..") continue;
        const [lf, lt] = [layerOf(from), layerOf(to)];
        if (lt > lf || (lt === lf && to !== from)) bad.push(`${relative(SRC, file)} -> ${imp.spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("each third-party package is imported by its one folder only", () => {
    const bad: string[] = [];
    for (const file of files) {
      for (const imp of importsOf(file)) {
        if (imp.spec.startsWith(".") || imp.spec.startsWith("node:")) continue;
        const pkg = packageOf(imp.spec);
        const home = PACKAGE_HOME[pkg];
        if (pkg === "bun" || pkg === "bun:ffi" || pkg === "bun:test") continue;
        if (!home) bad.push(`${relative(SRC, file)} imports ${pkg}, which has no declared folder`);
        else if (!home.includes(folderOf(file))) bad.push(`${relative(SRC, file)} imports ${pkg} (allowed in ${home.join(", ")})`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("front-ends reach memory only through the MemoryApi", () => {
    const bad: string[] = [];
    for (const file of files.filter((f) => ["cli", "tui", "daemon", "mcp", "import"].includes(folderOf(f)))) {
      for (const imp of importsOf(file)) {
        if (!imp.spec.startsWith(".")) continue;
        const to = folderOf(resolve(dirname(file), imp.spec));
        if (["storage", "memory", "search", "llm", "embed"].includes(to) && !imp.typeOnly) bad.push(`${relative(SRC, file)} -> ${imp.spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("heavy modules load lazily: the static import graphs of the entry, the CLI and every command hold none of them", () => {
    const seen = new Set<string>();
    const heavy: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const imp of importsOf(file)) {
        if (imp.dynamic || imp.typeOnly) continue;
        if (imp.spec.startsWith(".")) {
          const target = resolve(dirname(file), imp.spec);
          const ts = target.endsWith(".ts") ? target : `${target}.ts`;
          if (files.includes(ts)) visit(ts, [...trail, relative(SRC, ts)]);
        } else if (HEAVY.includes(packageOf(imp.spec))) heavy.push(`${[...trail].join(" -> ")} -> ${imp.spec}`);
      }
    };
    const roots = ["index.ts", "cli/main.ts", ...files.map((f) => relative(SRC, f)).filter((f) => f.startsWith("cli/commands/"))];
    for (const root of roots) visit(join(SRC, root), [root]);
    expect(heavy).toEqual([]);
    // and --version itself imports nothing of ours
    const entry = importsOf(join(SRC, "index.ts")).filter((i) => !i.dynamic && i.spec.startsWith("./"));
    expect(entry).toEqual([]);
  });
});
