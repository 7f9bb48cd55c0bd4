// memvoy mcp stopped by a signal (SIGTERM, SIGINT, or SIGHUP when the terminal the agent runs in closes): the
// calls under way finish and it exits 0, rather than dying in the middle of a write.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { openMemory } from "../../src/lib.ts";
import { LineClient } from "./mcp-client.ts";
import { entry, removeTempDirs, tempDir } from "./support.ts";

afterAll(removeTempDirs);

test.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
  "%s stops memvoy mcp cleanly (exit 0), its written messages kept",
  async (signal) => {
    const home = join(tempDir(), "h");
    const proc = Bun.spawn([process.execPath, entry, "mcp", "--home", home], {
      env: { PATH: process.env.PATH!, HOME: tempDir() },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const c = new LineClient(proc);
    await c.initialize();
    const r = await c.request("tools/call", {
      name: "add_messages",
      arguments: { session: "s1", messages: [{ role: "user", content: "kept" }] },
    });
    expect(r.result.isError).toBeFalsy();
    proc.kill(signal);
    expect(await proc.exited).toBe(0);
    expect(proc.signalCode).toBeNull();
    const m = openMemory({ home, env: {} });
    expect((await m.history("s1")).messages.map((x) => x.content)).toEqual(["kept"]);
    await m.close();
  },
  60_000,
);
