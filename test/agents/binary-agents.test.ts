// The compiled binary, copied outside the repo: MCP over stdio with the SDK client and a plain JSON-RPC
// client, its --print-config naming itself, and its daemon's HTTP API and /mcp.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinaryOnce, makeTempDir, removeTempDirs as removeBinaryDirs, runBinary } from "../fixture/binary.ts";
import { mcpStdioCases } from "./mcp.case.ts";
import { httpRpc, PROTOCOL, sdkHttp } from "./mcp-client.ts";
import { removeTempDirs, tempDir } from "./support.ts";

let bin: string;
beforeAll(async () => {
  bin = await buildBinaryOnce();
}, 15 * 60_000);
afterAll(() => {
  removeTempDirs();
  removeBinaryDirs();
});

mcpStdioCases(
  "compiled binary",
  async () => [bin],
  () => makeTempDir("memvoy-cwd-"),
);

describe("compiled binary", () => {
  test("--print-config names the binary itself", async () => {
    const r = await runBinary(bin, ["mcp", "--print-config", "gemini", "--home", "/HOME"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).mcpServers.memvoy).toEqual({ command: bin, args: ["mcp", "--home", "/HOME"] });
  });

  test("the daemon serves the HTTP API and /mcp to the SDK client and to a plain JSON-RPC client", async () => {
    const home = tempDir();
    const cwd = makeTempDir("memvoy-cwd-");
    const proc = Bun.spawn([bin, "--daemon", "--home", home], {
      cwd,
      env: { PATH: "/usr/bin:/bin", HOME: cwd, MEMVOY_HTTP_PORT: "0" },
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      const deadline = Date.now() + 30_000;
      while (!existsSync(join(home, "http.json"))) {
        if (Date.now() > deadline || proc.exitCode !== null)
          throw new Error(`no http.json: ${await new Response(proc.stderr).text()}`);
        await Bun.sleep(50);
      }
      const f = JSON.parse(readFileSync(join(home, "http.json"), "utf8"));
      const { client, close } = await sdkHttp(`${f.url}/mcp`, f.token);
      try {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(5);
        for (const t of tools) expect(Object.keys(t.inputSchema.properties ?? {}).length).toBeGreaterThan(0);
        const r = (await client.callTool({
          name: "add_messages",
          arguments: { session: "bin", messages: [{ role: "user", content: "from the compiled daemon" }] },
        })) as any;
        expect(r.structuredContent.ids).toHaveLength(1);
      } finally {
        await close();
      }
      const init = await httpRpc(`${f.url}/mcp`, f.token, {
        id: 1,
        method: "initialize",
        params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "plain", version: "1" } },
      });
      expect(init.body.result.serverInfo.name).toBe("memvoy");
      const headers = { "mcp-protocol-version": PROTOCOL };
      const note = await httpRpc(`${f.url}/mcp`, f.token, { method: "notifications/initialized" }, headers);
      expect(note.status).toBeLessThan(300);
      const list = await httpRpc(`${f.url}/mcp`, f.token, { id: 3, method: "tools/list" }, headers);
      for (const t of list.body.result.tools) expect(Object.keys(t.inputSchema.properties).length).toBeGreaterThan(0);
      const called = await httpRpc(
        `${f.url}/mcp`,
        f.token,
        {
          id: 2,
          method: "tools/call",
          params: { name: "chat_history", arguments: { mode: "search", query: "compiled", match: "keyword" } },
        },
        { "mcp-protocol-version": PROTOCOL },
      );
      expect(called.body.result.structuredContent.rows[0].session).toBe("bin");
      const openapi = await fetch(`${f.url}/v1/openapi.json`, { headers: { authorization: `Bearer ${f.token}` } }).then(
        (x) => x.json(),
      );
      expect((openapi as any).openapi).toBe("3.1.0");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 90_000);
});
