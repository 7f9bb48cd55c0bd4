// The daemon serves the HTTP API: http.json (0600) with URL and token, the URL in `daemon status`, the
// token in no log, no `config show`, no status and no error body; a killed daemon loses no acknowledged write.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectMemory, openMemory, RemoteError } from "../../src/lib.ts";
import { derivedPort } from "../../src/http/http-file.ts";
import { httpRpc, PROTOCOL, sdkHttp } from "./mcp-client.ts";
import {
  cleanup,
  cli,
  logText,
  mappedFiles,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
  workerPids,
} from "../fixture/daemon-process.ts";

afterAll(cleanup);

const httpFile = async (home: string) => {
  await waitFor(() => existsSync(join(home, "http.json")), 15_000, "http.json");
  return readHttp(home);
};
const readHttp = (home: string) =>
  JSON.parse(readFileSync(join(home, "http.json"), "utf8")) as {
    url: string;
    token: string;
    port: number;
    pid: number;
  };

test("http.json removed or overwritten while the daemon runs is written again, with the running daemon's URL and token", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  const f = await httpFile(home);
  rmSync(join(home, "http.json"));
  // Before, commands and clients found no daemon until it was restarted.
  const back = await httpFile(home);
  expect(back).toEqual(f);
  expect(statSync(join(home, "http.json")).mode & 0o777).toBe(0o600);
  writeFileSync(join(home, "http.json"), JSON.stringify({ ...f, token: "an-old-token" }));
  await waitFor(() => readHttp(home).token === f.token, 15_000, "the token written again");
  const r = await fetch(`${f.url}/v1/sessions`, { headers: { authorization: `Bearer ${readHttp(home).token}` } });
  expect(r.status).toBe(200);
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
  expect(existsSync(join(home, "http.json"))).toBe(false);
}, 60_000);

test("http.json written over in place with the same size and time (a restored copy keeping its times) is written again too", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  const f = await httpFile(home);
  const file = join(home, "http.json");
  const times = join(home, "times-of-http.json");
  expect(Bun.spawnSync(["cp", "-p", file, times]).exitCode).toBe(0);
  // Paused, so that it looks only once the file is as the other writer left it: same inode, size and mtime.
  d.proc.kill("SIGSTOP");
  writeFileSync(file, JSON.stringify({ ...f, token: "x".repeat(f.token.length) }, null, 2) + "\n");
  expect(Bun.spawnSync(["touch", "-r", times, file]).exitCode).toBe(0);
  d.proc.kill("SIGCONT");
  await waitFor(() => readHttp(home).token === f.token, 15_000, "the token written again");
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
}, 60_000);

test("the daemon publishes its URL and token in http.json (0600) and its URL in daemon status; the token leaks nowhere", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  const f = await httpFile(home);
  expect(statSync(join(home, "http.json")).mode & 0o777).toBe(0o600);
  expect(f.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(f.pid).toBe(d.proc.pid);
  expect(f.token.length).toBeGreaterThanOrEqual(32);

  const health = await fetch(`${f.url}/v1/health`);
  expect(await health.json()).toMatchObject({ ok: true, name: "memvoy" });
  const api = connectMemory({ url: f.url, token: f.token });
  await api.add("via-http", { role: "user", content: "written through the daemon" });
  expect((await api.history("via-http")).messages[0]!.content).toBe("written through the daemon");
  const bad = await fetch(`${f.url}/v1/sessions`, { headers: { authorization: `Bearer ${f.token}x` } });
  const badText = await bad.text();
  const badBody = await fetch(`${f.url}/v1/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${f.token}` },
    body: "{nope",
  }).then((r) => r.text());

  const status = await cli(home, ["daemon", "status"]);
  expect(status.stdout).toContain(`http: ${f.url}`);
  const json = await cli(home, ["daemon", "status", "--json"]);
  expect(JSON.parse(json.stdout).http).toBe(f.url);
  const show = await cli(home, ["config", "show"]);
  expect(show.code).toBe(0);
  expect(show.stdout).toContain("[http]");
  for (const text of [
    status.stdout,
    status.stderr,
    json.stdout,
    show.stdout,
    logText(home),
    badText,
    badBody,
    readFileSync(join(home, "daemon.state.json"), "utf8"),
  ]) {
    expect(text).not.toContain(f.token);
  }

  // Stopped cleanly, the daemon removes http.json and status says the API is off.
  const stop = await cli(home, ["daemon", "stop"]);
  expect(stop.code).toBe(0);
  expect(existsSync(join(home, "http.json"))).toBe(false);
  expect(JSON.parse((await cli(home, ["daemon", "status", "--json"])).stdout).http).toBeNull();
  expect(logText(home)).not.toContain(f.token);
}, 60_000);

test("the daemon's /mcp: the SDK client, and a plain 2025-06-18 JSON-RPC client (initialize, initialized, tools/list, tools/call)", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  const f = await httpFile(home);
  const url = `${f.url}/mcp`;
  const { client, close } = await sdkHttp(url, f.token);
  try {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(5);
    for (const t of tools) {
      expect(Object.keys(t.inputSchema.properties ?? {}).length).toBeGreaterThan(0);
      expect(t.outputSchema?.type).toBe("object");
    }
    const added = (await client.callTool({
      name: "add_messages",
      arguments: { session: "daemon-mcp", messages: [{ role: "user", content: "the cache warmer stalled" }] },
    })) as { structuredContent: { ids: string[] } };
    expect(added.structuredContent.ids).toHaveLength(1);
  } finally {
    await close();
  }
  const init = await httpRpc(url, f.token, {
    id: 1,
    method: "initialize",
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "plain", version: "1" } },
  });
  expect(init.body.result.protocolVersion).toBe(PROTOCOL);
  const headers = { "mcp-protocol-version": PROTOCOL };
  expect((await httpRpc(url, f.token, { method: "notifications/initialized" }, headers)).status).toBeLessThan(300);
  expect((await httpRpc(url, f.token, { id: 2, method: "tools/list" }, headers)).body.result.tools).toHaveLength(5);
  const found = await httpRpc(
    url,
    f.token,
    {
      id: 3,
      method: "tools/call",
      params: { name: "chat_history", arguments: { mode: "search", query: "cache warmer", match: "keyword" } },
    },
    headers,
  );
  expect(found.body.result.structuredContent.rows[0].session).toBe("daemon-mcp");
  const refused = await fetch(url, { method: "POST", headers: { authorization: "Bearer nope" }, body: "{}" });
  expect(refused.status).toBe(401);
  expect(await refused.text()).not.toContain(f.token);
  expect((await cli(home, ["daemon", "stop"])).code).toBe(0);
  expect(logText(home)).not.toContain(f.token);
}, 90_000);

test("a configured port in use: the daemon runs without its API, and daemon status says why, in text and JSON", async () => {
  const busy = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  try {
    const home = tempHome();
    const d = startDaemon(home, { MEMVOY_HTTP_PORT: String(busy.port) });
    await waitRunning(d);
    const json = await waitFor(
      async () => {
        const st = JSON.parse((await cli(home, ["daemon", "status", "--json"])).stdout);
        return st.lastError ? st : undefined;
      },
      15_000,
      "the failed start in the state",
    );
    expect(json).toMatchObject({ running: true, http: null, lastError: { job: "http" } });
    expect(json.httpError).toContain(String(busy.port));
    expect(json.lastError.message).toBe(json.httpError);
    const text = (await cli(home, ["daemon", "status"])).stdout;
    expect(text).toContain(`http: off (it could not start: ${json.httpError})`);
    expect(existsSync(join(home, "http.json"))).toBe(false);
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  } finally {
    busy.stop(true);
  }
}, 60_000);

test("http.json that cannot be written (a folder in its place): the API is off and leaves its port free", async () => {
  const home = tempHome();
  mkdirSync(join(home, "http.json"), { recursive: true });
  const port = await freePort();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: String(port) });
  await waitRunning(d);
  const json = await waitFor(
    async () => {
      const st = JSON.parse((await cli(home, ["daemon", "status", "--json"])).stdout);
      return st.httpError ? st : undefined;
    },
    15_000,
    "the failed start in the state",
  );
  expect(json).toMatchObject({ running: true, http: null });
  expect(json.httpError).toContain("http.json is a folder");
  // Before, the server it could not publish went on listening, its token known to no one.
  const listens = () => {
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
      return true;
    } catch {
      return false;
    }
  };
  await waitFor(listens, 15_000, "the port let go");
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
}, 60_000);

/** A port free now (the OS's pick, let go at once). */
async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

test("with no [http] port the port is derived from the home path, so two homes differ", () => {
  expect(derivedPort("/srv/memvoy-a")).not.toBe(derivedPort("/srv/memvoy-b"));
  expect(derivedPort("/srv/memvoy-a")).toBe(derivedPort("/srv/memvoy-a"));
  for (const h of ["/a", "/home/ann/.config/memvoy", "/tmp/x"]) {
    expect(derivedPort(h)).toBeGreaterThanOrEqual(20_000);
    expect(derivedPort(h)).toBeLessThan(30_000);
  }
});

test("a port out of range in [http] is refused by config check, naming the key", async () => {
  const home = tempHome();
  const r = await cli(home, ["config", "check"], { MEMVOY_HTTP_PORT: "70000" });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("http.port");
});

test("killing the daemon while writes are in flight: every acknowledged write is stored, the rest fail with a connection error", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  const f = await httpFile(home);
  const api = connectMemory({ url: f.url, token: f.token, timeoutMs: 20_000 });
  const acknowledged: string[] = [];
  const failures: unknown[] = [];
  let n = 0;
  const writer = async (w: number) => {
    for (;;) {
      const content = `writer ${w} message ${n++}`;
      try {
        const r = await api.add("inflight", { role: "user", content });
        acknowledged.push(r.ids[0]!);
      } catch (err) {
        failures.push(err);
        return;
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  await waitFor(() => acknowledged.length >= 20, 30_000, "some writes");
  d.proc.kill(9);
  await Promise.all(writers);
  expect(failures).toHaveLength(4);
  for (const e of failures) expect(e).toBeInstanceOf(RemoteError);
  const local = openMemory({ home, env: {} });
  const stored = new Set((await local.history("inflight", { all: true })).messages.map((m) => m.id));
  for (const id of acknowledged) expect(stored.has(id)).toBe(true);
  await local.close();
}, 90_000);

test("a stop (SIGTERM) answers the requests under way before the daemon exits: an add being read is stored and acknowledged", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d, 60_000);
  const f = await httpFile(home);
  const body = JSON.stringify({ messages: [{ role: "user", content: "sent while the daemon stops" }] });
  let answer = "";
  let closed = false;
  const sock = await Bun.connect({
    hostname: "127.0.0.1",
    port: f.port,
    socket: {
      data: (_s, bytes) => void (answer += Buffer.from(bytes).toString("utf8")),
      close: () => void (closed = true),
    },
  });
  // The server says 100 Continue once the route reads the body: from then on the request is under way.
  sock.write(
    `POST /v1/sessions/graceful/messages HTTP/1.1\r\nHost: 127.0.0.1:${f.port}\r\nAuthorization: Bearer ${f.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await waitFor(() => answer.includes("100 Continue"), 15_000, "100 Continue");
  d.proc.kill("SIGTERM");
  // The daemon removes http.json as it stops serving: the rest of the body comes only then.
  await waitFor(() => !existsSync(join(home, "http.json")), 15_000, "http.json removed");
  sock.write(body);
  await waitFor(() => closed || answer.includes('"ids"'), 15_000, "an answer or a closed connection");
  expect(answer).toContain("HTTP/1.1 200");
  const ids = JSON.parse(answer.slice(answer.lastIndexOf("\r\n\r\n") + 4)).ids as string[];
  sock.end();
  expect(await d.exited).toBe(0);
  const local = openMemory({ home, env: {} });
  expect((await local.history("graceful")).messages.map((m) => m.id)).toEqual(ids);
  await local.close();
}, 120_000);

test("connectMemory reads a date or local time bound in the caller's zone, as openMemory does, whatever the daemon's zone", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" }); // the daemon runs in UTC
  await waitRunning(d);
  const f = await httpFile(home);
  const remote = connectMemory({ url: f.url, token: f.token });
  const local = openMemory({ home, env: {} });
  const zone = process.env.TZ;
  try {
    await remote.add("zones", { role: "user", content: "the zone probe", sendAt: "2026-12-05T12:00:00Z" });
    // 2026-12-06 02:00 at UTC+14: on or after "2026-12-06" and "2026-12-06 01:30" there, before them in UTC.
    process.env.TZ = "Pacific/Kiritimati";
    for (const bound of [{ since: "2026-12-06" }, { since: "2026-12-06 01:30" }, { until: "2026-12-05" }]) {
      const here = await local.search({ query: "zone probe", ...bound });
      const there = await remote.search({ query: "zone probe", ...bound });
      expect(there.hits.map((h) => h.id)).toEqual(here.hits.map((h) => h.id));
      expect(there.emptyReason).toBe(here.emptyReason);
    }
    expect((await remote.search({ query: "zone probe", since: "2026-12-06" })).hits).toHaveLength(1);
    expect((await remote.search({ query: "zone probe", until: "2026-12-05" })).hits).toHaveLength(0);
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
    await local.close();
  }
  expect((await cli(home, ["daemon", "stop"])).code).toBe(0);
}, 60_000);

test("connectMemory reads a message's local sendAt in the caller's zone, as openMemory does, whatever the daemon's zone", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" }); // the daemon runs in UTC
  await waitRunning(d);
  const f = await httpFile(home);
  const remote = connectMemory({ url: f.url, token: f.token });
  const local = openMemory({ home, env: {} });
  const zone = process.env.TZ;
  try {
    process.env.TZ = "Pacific/Kiritimati";
    const at = async (id: string) => (await local.messages([id]))[0]!.sendAt;
    for (const sendAt of ["2026-12-06 01:30", "2026-12-06T01:30:00.5", "2026-12-06"]) {
      const here = await local.add("zones-add", { role: "user", content: `here ${sendAt}`, sendAt });
      const there = await remote.add("zones-add", { role: "user", content: `there ${sendAt}`, sendAt });
      expect({ sendAt, there: await at(there.ids[0]!) }).toEqual({ sendAt, there: await at(here.ids[0]!) });
    }
    const probe = await remote.add("zones-add", { role: "user", content: "probe", sendAt: "2026-12-06 01:30" });
    expect(await at(probe.ids[0]!)).toBe("2026-12-05T11:30:00.000000000Z");
    expect(await refusedWith(remote.add("zones-add", { role: "user", content: "x", sendAt: "soon" }))).toContain(
      'sendAt "soon"',
    );
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
    await local.close();
  }
  expect((await cli(home, ["daemon", "stop"])).code).toBe(0);
}, 60_000);

test("semantic and hybrid requests run LanceDB in the daemon's worker child; the daemon maps none, keyword search stays in the daemon", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  const f = await httpFile(home);
  const api = connectMemory({ url: f.url, token: f.token });
  await api.add("sem", [
    { role: "user", content: "the database migration timed out on the orders table" },
    { role: "assistant", content: "raise the lock timeout and rerun the migration" },
  ]);
  expect((await api.search({ query: "migration", match: "keyword" })).hits.length).toBeGreaterThan(0);
  expect(workerPids(home, "api")).toEqual([]);
  // The embeddings child indexes the new messages; then a semantic search finds them.
  const hits = await waitFor(
    async () => {
      const r = await api.search({ query: "database migration timeout", match: "semantic" });
      return r.hits.length > 0 ? r.hits : undefined;
    },
    60_000,
    "semantic hits",
  );
  expect(hits![0]!.session).toBe("sem");
  expect((await api.search({ query: "lock timeout", match: "hybrid" })).hits.length).toBeGreaterThan(0);
  const [child] = workerPids(home, "api");
  expect(child).toBeGreaterThan(0);
  expect(mappedFiles(child!)).toMatch(/lancedb/i);
  expect(mappedFiles(d.proc.pid)).not.toMatch(/lancedb/i);
  expect(await refusedWith(api.search({ query: "x", match: "semantic", limit: 0 }))).toContain("limit");
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
}, 120_000);

test("an error record removed over HTTP (DELETE /v1/errors/ID) leaves no copy of its text in any file of the home", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  const f = await httpFile(home);
  const api = connectMemory({ url: f.url, token: f.token });
  const secret = "ZEBRAQUOKKA";
  const { record } = await api.recordError({ tool: "rmtool", error: `${secret} broke the build`, fix: `${secret}FIX` });
  const holding = () => Bun.spawnSync(["grep", "-rla", secret, home]).stdout.toString().trim();
  expect(holding()).not.toBe("");
  await api.rmError(record.id);
  // The removal ran in the worker child, which stays (its connection open) for the next call: nothing lingers.
  expect(workerPids(home, "api").length).toBeGreaterThan(0);
  expect(holding()).toBe("");
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
}, 120_000);

async function refusedWith(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "",
    (e: Error) => e.message,
  );
}
