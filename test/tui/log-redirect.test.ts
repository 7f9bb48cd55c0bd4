// While the TUI runs, console.* and everything written to fd 2 (child processes and native code included)
// go to the log file; restore() gives stderr back.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { devNull } from "node:os";
import { join } from "node:path";
import { removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { redirectLogs } from "../../src/tui/terminal/log-redirect.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempHomes);

describe("log redirect", () => {
  test("console.*, process.stderr and a child's fd 2 land in the log; stderr is back after restore()", async () => {
    const dir = tempHome();
    const log = join(dir, "tui.log");
    const script = join(dir, "probe.ts");
    writeFileSync(
      script,
      `import { redirectLogs } from ${JSON.stringify(join(repoRoot, "src/tui/terminal/log-redirect.ts"))};
const r = redirectLogs(${JSON.stringify(log)});
console.log("from console.log");
console.warn("from console.warn", { n: 1 });
console.error(new Error("from console.error"));
process.stderr.write("from process.stderr\\n");
Bun.spawnSync(["sh", "-c", "echo from a child on fd 2 >&2"], { stdout: "inherit", stderr: "inherit" });
r.restore();
process.stderr.write("after restore\\n");
console.log("stdout after restore");
`,
    );
    const p = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    const { stdout: out, stderr: err, code } = await processOutput(p);
    expect(code).toBe(0);
    expect(err).toBe("after restore\n");
    expect(out).toBe("stdout after restore\n");
    const text = readFileSync(log, "utf8");
    for (const line of [
      "from console.log",
      "from console.warn { n: 1 }",
      "Error: from console.error",
      "from process.stderr",
      "from a child on fd 2",
    ]) {
      expect(text).toContain(line);
    }
  });

  test("what reaches the log has its secrets redacted: a crash's stack quoting a key or a URL's password", async () => {
    const dir = tempHome();
    const log = join(dir, "tui.log");
    const script = join(dir, "probe.ts");
    writeFileSync(
      script,
      `import { redirectLogs } from ${JSON.stringify(join(repoRoot, "src/tui/terminal/log-redirect.ts"))};
const r = redirectLogs(${JSON.stringify(log)});
console.error(new Error("request to http://me:hunter2pass@proxy.example/v1 failed with key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"));
process.stderr.write("configured key my-own-gateway-key-123456 echoed\\n");
r.restore();
`,
    );
    const p = Bun.spawn([process.execPath, script], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, ANTHROPIC_API_KEY: "my-own-gateway-key-123456" },
    });
    expect((await processOutput(p)).code).toBe(0);
    const text = readFileSync(log, "utf8");
    expect(text).toContain("proxy.example/v1 failed with key");
    expect(text).toContain("configured key");
    for (const secret of ["hunter2pass", "sk-ant-api03-abcdefghij", "my-own-gateway-key-123456"])
      expect(text).not.toContain(secret);
  });

  test("a tui.log that is a symbolic link is refused: the file it points to is neither emptied nor written", () => {
    const dir = tempHome();
    const victim = join(tempHome("memvoy-outside-"), "big.txt");
    writeFileSync(victim, "x".repeat(2 * 1024 * 1024)); // over the size at which the log starts again
    const log = join(dir, "tui.log");
    symlinkSync(victim, log);
    let thrown: unknown;
    try {
      redirectLogs(log).restore(); // taken: give the test runner its stderr back before failing
    } catch (err) {
      thrown = err;
    }
    expect(String(thrown)).toContain(`${log} is a symbolic link`);
    expect(statSync(victim).size).toBe(2 * 1024 * 1024);
  });

  test("the null device, the last resort for a home not made yet, is taken as the log", () => {
    redirectLogs(devNull).restore();
  });
});
