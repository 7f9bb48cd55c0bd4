// writeOut: every byte of the text reaches stdout in order, UTF-8, whether fd 1 takes it in one write or not.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { repoRoot } from "../fixture/home.ts";

const script = (body: string) =>
  `import { writeOut } from ${JSON.stringify(join(repoRoot, "src/shared/stdout.ts"))};\n${body}`;

async function stdoutOf(body: string): Promise<Uint8Array> {
  const proc = Bun.spawn(["bun", "-e", script(body)], { stdout: "pipe", stderr: "pipe" });
  const out = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
  expect(await proc.exited).toBe(0);
  return out;
}

describe("writeOut", () => {
  test("a short text with characters beyond ASCII, as UTF-8", async () => {
    const out = await stdoutOf(`writeOut("héllo 世界 🦉\\n"); writeOut("second\\n");`);
    expect(new TextDecoder().decode(out)).toBe("héllo 世界 🦉\nsecond\n");
  });

  test("texts far larger than a pipe holds, then more, arrive whole and in order", async () => {
    // 4 MiB and more of multi-byte text: the pipe fills, so writes come up short or would block.
    const out = await stdoutOf(
      `const big = "é世🦉x".repeat(400_000); writeOut(big); writeOut("|after|"); writeOut(big.slice(0, 1001));`,
    );
    const big = "é世🦉x".repeat(400_000);
    expect(new TextDecoder().decode(out)).toBe(big + "|after|" + big.slice(0, 1001));
  });
});
