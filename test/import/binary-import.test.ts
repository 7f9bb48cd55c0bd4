// The compiled binary, outside the repo: import auto over every source (zstd, the opencode database, zip) and the export round trip.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinaryOnce, makeTempDir, removeTempDirs, runBinary } from "../fixture/binary.ts";
import { writeClaudeProjects } from "../fixture/import/claude-code.ts";
import { writeCodexHome } from "../fixture/import/codex.ts";
import { writeGeminiHome } from "../fixture/import/gemini.ts";
import { writeOpencodeData } from "../fixture/import/opencode.ts";
import { conversation, zip } from "../fixture/import/chatgpt.ts";

let bin = "";
beforeAll(async () => {
  bin = await buildBinaryOnce();
}, 600_000);
afterAll(removeTempDirs);

test("the binary imports every source and round-trips its export", async () => {
  const root = makeTempDir("memvoy-src-");
  writeClaudeProjects(join(root, "claude"));
  writeCodexHome(join(root, "codex"));
  writeOpencodeData(join(root, "xdg"));
  writeGeminiHome(join(root, "gem"));
  writeFileSync(join(root, "export.zip"), zip({ "conversations.json": JSON.stringify([conversation()]) }));
  const env = {
    CLAUDE_CONFIG_DIR: join(root, "claude"),
    CODEX_HOME: join(root, "codex"),
    XDG_DATA_HOME: join(root, "xdg"),
    GEMINI_CLI_HOME: join(root, "gem"),
  };
  const home = makeTempDir("memvoy-home-");
  const auto = await runBinary(bin, ["--home", home, "import", "auto", "--json"], { env, timeoutMs: 60_000 });
  expect(auto.code, auto.stderr).toBe(0);
  const added = JSON.parse(auto.stdout).sources.map((s: { source: string; messages: { added: number } }) => [
    s.source,
    s.messages.added,
  ]);
  expect(added).toEqual([
    ["claude-code", 16],
    ["codex", 8],
    ["opencode", 8],
    ["gemini", 8],
    ["aider", 0],
    ["chatgpt", 0],
  ]);
  const gpt = await runBinary(bin, ["--home", home, "import", "chatgpt", join(root, "export.zip")]);
  expect(gpt.stdout).toContain("added 4 messages");
  const out = join(root, "all.jsonl");
  expect((await runBinary(bin, ["--home", home, "export", "--all", "--output", out])).code).toBe(0);
  const empty = makeTempDir("memvoy-home-");
  expect((await runBinary(bin, ["--home", empty, "import", "jsonl", out])).code).toBe(0);
  const again = await runBinary(bin, ["--home", empty, "export", "--all"]);
  expect(again.stdout).toBe(await Bun.file(out).text());
}, 180_000);
