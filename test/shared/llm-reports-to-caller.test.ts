// The llm layer writes nothing itself: no console, no stderr, no swapped console.warn; it reports to its caller.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const LLM = resolve(import.meta.dir, "../../src/llm");

test("src/llm has no console. or process.stderr use", () => {
  const files = [...new Bun.Glob("**/*.ts").scanSync({ cwd: LLM })];
  expect(files.length).toBeGreaterThan(0);
  expect(files).toContain("anthropic-client.ts");
  const bad: string[] = [];
  for (const f of files) {
    const lines = readFileSync(join(LLM, f), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/\bconsole\s*\.|process\s*\.\s*(stderr|stdout)\b/.test(line)) bad.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(bad).toEqual([]);
});
