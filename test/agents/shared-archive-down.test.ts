// The daemon's HTTP API on a shared archive whose PostgreSQL server is down: every route that needs the archive
// answers 503 (the service is unavailable, a retry may do) with one line naming the archive, not a 500 runtime
// failure; the client sees the status, and the same daemon answers again once the server is back. A server
// restarted while the process was busy costs no call: each is made again on a new connection. A removal made
// while the object store is down answers what it removed, and that the vectors wait for the next drain.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectMemory, describeError, openMemory, RemoteError } from "../../src/lib.ts";
import { cleanup, startDaemon, waitFor, waitRunning } from "../fixture/daemon-process.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";
import { tempHome } from "../fixture/home.ts";

const describe = describePostgres();

describe("a shared archive that cannot be reached", () => {
  const shared = sharedBackend({ beforeStop: cleanup });

  test("every route answers 503 naming the archive while the server is down, 200 once it is back", async () => {
    const home = shared.home("down");
    const d = startDaemon(home, { ...(await shared.env("archive_down")), MEMVOY_HTTP_PORT: "0" });
    await waitRunning(d, 60_000);
    await waitFor(() => existsSync(join(home, "http.json")), 30_000, "http.json");
    const { url, token } = JSON.parse(readFileSync(join(home, "http.json"), "utf8")) as { url: string; token: string };
    const call = (method: string, path: string, body?: unknown) =>
      fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const added = await call("POST", "/v1/sessions/s/messages", {
      messages: [{ role: "user", content: "deploy the api" }],
    });
    expect(added.status).toBe(200);
    const [id] = ((await added.json()) as { ids: string[] }).ids;

    const routes: [string, string, unknown?][] = [
      ["GET", "/v1/sessions"],
      ["GET", "/v1/sessions/s/history"],
      ["GET", "/v1/sessions/s/history?all=true"],
      ["POST", "/v1/sessions/s/messages", { messages: [{ role: "user", content: "later" }] }],
      ["POST", "/v1/sessions/s/context", {}],
      ["GET", "/v1/sessions/s/summary"],
      ["POST", "/v1/sessions/s/reset", {}],
      ["DELETE", "/v1/sessions/s"],
      ["POST", "/v1/search", { query: "deploy" }],
      ["POST", "/v1/messages/get", { ids: [id] }],
      ["GET", `/v1/messages/${id}/around`],
      ["DELETE", `/v1/messages/${id}`],
      ["POST", "/v1/errors", { tool: "npm", error: "ECONNREFUSED 127.0.0.1:5432", fix: "start the server" }],
      ["POST", "/v1/errors/search", { query: "ECONNREFUSED" }],
      ["POST", "/v1/errors/hits", { ids: ["e1"] }],
      ["GET", "/v1/errors"],
      ["GET", "/v1/errors/e1"],
      ["DELETE", "/v1/errors/e1"],
    ];
    await shared.pg.down();
    try {
      for (const [method, path, body] of routes) {
        const res = await call(method, path, body);
        const answer = (await res.json()) as { error: { status: number; message: string } };
        expect({ route: `${method} ${path}`, status: res.status, body: answer.error.status }).toEqual({
          route: `${method} ${path}`,
          status: 503,
          body: 503,
        });
        expect(answer.error.message).toStartWith("the PostgreSQL archive failed: ");
      }
      const err = await connectMemory({ url, token })
        .sessions()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(RemoteError);
      expect((err as RemoteError).data).toMatchObject({ problem: "failed", status: 503 });
    } finally {
      await shared.pg.up();
    }
    const back = await call("GET", "/v1/sessions/s/history");
    expect(back.status).toBe(200);
    expect(((await back.json()) as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual([
      "deploy the api",
    ]);
  }, 240_000);

  test("a server restarted while the process was busy: the next calls succeed on new connections", async () => {
    const env = await shared.env("archive_restart");
    const mem = openMemory({ home: shared.home("restart"), env });
    try {
      // Several pooled connections and a session lock's connection, all open and idle.
      await Promise.all([
        ...[1, 2, 3, 4, 5, 6].map(() => mem.sessions()),
        mem.add("s", { role: "user", content: "deploy the api" }),
      ]);
      shared.pg.restartBlocking();
      const calls = await Promise.all(
        [
          ...[1, 2, 3, 4, 5, 6].map(() => () => mem.sessions()),
          () => mem.history("s"),
          () => mem.search({ query: "deploy" }),
          () => mem.context("s"),
          () => mem.add("s", { role: "assistant", content: "deployed" }),
          () => mem.add("t", { role: "user", content: "another session" }),
        ].map((call) =>
          call().then(
            () => "ok",
            (err: unknown) => describeError(err),
          ),
        ),
      );
      expect(calls).toEqual(calls.map(() => "ok"));
      expect((await mem.history("s")).messages.map((m) => m.content)).toEqual(["deploy the api", "deployed"]);
    } finally {
      await mem.close();
    }
  }, 240_000);

  test("a removal while the object store is down: done, answered with what it removed and the vectors pending", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const deadPort = closed.port;
    closed.stop(true);
    const home = tempHome();
    writeFileSync(
      join(home, "config.toml"),
      `[vectors]\nuri = "s3://${shared.s3.bucket}/nostore"\nendpoint = "http://127.0.0.1:${deadPort}"\nallow_http = true\n`,
    );
    const d = startDaemon(home, { ...(await shared.env("store_down")), MEMVOY_HTTP_PORT: "0" });
    await waitRunning(d, 60_000);
    await waitFor(() => existsSync(join(home, "http.json")), 30_000, "http.json");
    const { url, token } = JSON.parse(readFileSync(join(home, "http.json"), "utf8")) as { url: string; token: string };
    const api = connectMemory({ url, token });
    const added = await api.add("s", [
      { role: "user", content: "the api key is in the vault" },
      { role: "assistant", content: "noted" },
    ]);
    await api.add("t", { role: "user", content: "another session" });
    const one = await api.rmMessage(added.ids[1]!);
    expect(one).toMatchObject({ id: added.ids[1], session: "s" });
    expect(one.vectorsPending).toStartWith("cannot open the vector store s3://");
    const reset = await api.reset("t");
    expect(reset).toMatchObject({ session: "t", messagesRemoved: 1 });
    expect(reset.vectorsPending).toStartWith("cannot open the vector store s3://");
    const removed = await api.rm("s");
    expect(removed).toMatchObject({ session: "s", messagesRemoved: 1 });
    expect(removed.vectorsPending).toStartWith("cannot open the vector store s3://");
    expect((await api.sessions()).map((x) => x.id)).toEqual(["t"]);
  }, 240_000);
});
