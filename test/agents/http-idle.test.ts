// A request that passed the checks keeps its connection however long it waits: an /mcp call behind the writer lock is
// not cut by the server's idle timeout (10 s; 1 s here, which Bun's timer may take up to 8 s to act on).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";
import { sdkHttp } from "./mcp-client.ts";
import { removeTempDirs, serveHome, TOKEN, type Served } from "./support.ts";

let s: Served;
beforeAll(() => {
  s = serveHome({ mcp: true, idleTimeoutSeconds: 1 });
});
afterAll(async () => {
  await s.close();
  removeTempDirs();
});

test("an /mcp add_messages waiting 10 s for another process's writer lock is answered, and stored once", async () => {
  const mcp = await sdkHttp(`${s.server.url}/mcp`, TOKEN);
  const holder = await holdWriterLock(s.home, 30_000, { transaction: false });
  try {
    const released = Bun.sleep(10_000).then(() => holder.release());
    const r = (await mcp.client.callTool({
      name: "add_messages",
      arguments: { session: "slow", messages: [{ role: "user", content: "behind the lock" }] },
    })) as { isError?: boolean; structuredContent: { duplicates: number } };
    await released;
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent.duplicates).toBe(0);
  } finally {
    await holder.release();
    await mcp.close();
  }
  expect((await s.local.history("slow", { all: true })).messages.map((m) => m.content)).toEqual(["behind the lock"]);
}, 60_000);

test("a connection that asked only /v1/health (no token) is still closed once idle", async () => {
  const closed = await new Promise<boolean>((resolve) => {
    const port = s.server.port;
    const sock = connect(port, "127.0.0.1", () =>
      sock.write(`GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
    );
    sock.on("data", () => {});
    sock.on("close", () => resolve(true));
    // Bun acts on a 1 s idle timeout within about 8 s.
    setTimeout(() => {
      sock.destroy();
      resolve(false);
    }, 25_000);
  });
  expect(closed).toBe(true);
}, 60_000);
