// memvoy mcp answers an agent's start-up (initialize, initialized, tools/list) before it loads the MCP SDK:
// those answers must be the SDK's own, on every protocol revision, and whatever else comes first must reach
// the SDK's server unchanged. The home opens on the first tool call.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { initializeParams, recordSession } from "../../src/mcp/early-answers.ts";
import { LineClient } from "./mcp-client.ts";
import { entry, removeTempDirs, tempDir } from "./support.ts";

afterAll(removeTempDirs);

function spawnServer(home: string) {
  const proc = Bun.spawn(["bun", entry, "mcp", "--home", home], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH!, HOME: tempDir() },
  });
  return new LineClient(proc);
}

async function finish(lc: LineClient): Promise<number> {
  lc.close();
  return lc.proc.exited;
}

describe("memvoy mcp start-up", () => {
  test("initialize and tools/list are answered exactly as the SDK's server answers them, on every revision", async () => {
    const home = tempDir();
    for (const revision of SUPPORTED_PROTOCOL_VERSIONS) {
      const [sdkInit, sdkList] = await recordSession([
        { id: 1, method: "initialize", params: initializeParams(revision) },
        { method: "notifications/initialized" },
        { id: 2, method: "tools/list" },
      ]);
      const lc = spawnServer(home);
      const init = await lc.request("initialize", {
        protocolVersion: revision,
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: "some-agent", version: "9.9" },
      });
      lc.notify("notifications/initialized");
      const list = await lc.request("tools/list");
      expect(init.result).toEqual(sdkInit);
      expect(list.result).toEqual(sdkList);
      for (const t of list.result.tools) {
        expect(Object.keys(t.inputSchema.properties).length).toBeGreaterThan(0);
        expect(t.outputSchema.type).toBe("object");
      }
      // the SDK's server takes over with the replayed initialize: its answer is not sent twice
      const called = await lc.request("tools/call", { name: "chat_history", arguments: { mode: "sessions" } });
      expect(called.result.structuredContent).toMatchObject({ mode: "sessions" });
      const again = await lc.request("tools/list");
      expect(again.result).toEqual(sdkList);
      expect(await finish(lc)).toBe(0);
    }
  }, 300_000);

  test("what the start-up answers do not cover goes to the SDK's server: an unknown revision, a broken first line, a call before tools/list", async () => {
    const home = tempDir();
    const unknown = spawnServer(home);
    const init = await unknown.request("initialize", {
      protocolVersion: "constructor", // unknown, and a key every object has
      capabilities: {},
      clientInfo: { name: "old", version: "1" },
    });
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(init.result.protocolVersion);
    expect(init.result.serverInfo.name).toBe("memvoy");
    unknown.notify("notifications/initialized");
    expect((await unknown.request("tools/list")).result.tools).toHaveLength(5);
    expect(await finish(unknown)).toBe(0);

    const broken = spawnServer(home);
    broken.proc.stdin.write("{not json\n");
    const after = await broken.initialize();
    expect(after.result.serverInfo.name).toBe("memvoy");
    const call = await broken.request("tools/call", { name: "summary", arguments: { session: "../x" } });
    expect(call.result.isError).toBe(true);
    expect(await finish(broken)).toBe(0);

    // initialize then a call right away, without tools/list
    const direct = spawnServer(home);
    await direct.initialize();
    const added = await direct.request("tools/call", {
      name: "add_messages",
      arguments: { session: "direct", messages: [{ role: "user", content: "no list first" }] },
    });
    expect(added.result.structuredContent.ids).toHaveLength(1);
    expect(await finish(direct)).toBe(0);
  }, 120_000);

  test("the home opens on the first tool call: an agent that only lists the tools creates nothing; a broken config is that call's isError", async () => {
    const fresh = join(tempDir(), "home");
    const lister = spawnServer(fresh);
    await lister.initialize();
    expect((await lister.request("tools/list")).result.tools).toHaveLength(5);
    expect(await finish(lister)).toBe(0);
    expect(existsSync(fresh)).toBe(false);

    const home = tempDir();
    writeFileSync(join(home, "config.toml"), "[limits]\nrecent_messages = -3\n");
    const lc = spawnServer(home);
    await lc.initialize();
    expect((await lc.request("tools/list")).result.tools).toHaveLength(5);
    const r = await lc.request("tools/call", { name: "chat_history", arguments: { mode: "sessions" } });
    expect(r.result.isError).toBe(true);
    expect(r.result.content[0].text).toContain("config.toml");
    expect(r.result.content[0].text.split("\n")).toHaveLength(1);
    expect(await finish(lc)).toBe(0);
  }, 60_000);
});
