// connectMemory's RemoteError when the daemon is gone or the URL is not its API: what data.problem says, and
// whether a caller may think the request was carried out.
import { afterAll, expect, test } from "bun:test";
import { connectMemory, describeError, RemoteError } from "../../src/lib.ts";

const servers: { stop(force?: boolean): void }[] = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
});

/** An error the promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (e: Error) => e,
  );
}

test("a daemon gone after the request reached it (killed mid-add): cut-off, and the add may have been carried out", async () => {
  // What a daemon killed while it writes looks like to its client: the request is read whole, no answer comes back.
  let requested = "";
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, chunk) {
        requested += chunk.toString();
        if (requested.includes('"messages"')) socket.terminate();
      },
    },
  });
  servers.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const err = await rejection(
    connectMemory({ url: base, token: "t" }).add("s", {
      role: "user",
      content: "perhaps stored",
      idempotencyKey: "k1",
    }),
  );
  expect(requested).toContain("perhaps stored");
  expect(err).toBeInstanceOf(RemoteError);
  expect((err as RemoteError).data).toMatchObject({ problem: "cut-off", base });
  expect(describeError(err)).toStartWith(`memvoy at ${base} closed the connection before its answer was complete (`);
  expect(describeError(err)).toEndWith(
    "): the request may still have been carried out (retry an add with the same idempotencyKey)",
  );
});

test("nothing listening: unreachable, the request never sent", async () => {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const base = `http://127.0.0.1:${server.port}`;
  server.stop(true);
  const err = await rejection(connectMemory({ url: base, token: "t" }).sessions());
  expect(err).toBeInstanceOf(RemoteError);
  expect((err as RemoteError).data).toMatchObject({ problem: "unreachable", base });
  expect(describeError(err)).toStartWith(`cannot reach memvoy at ${base}: `);
});

test("another program on the port (a JSON 404 of its own): a RemoteError asking if the URL is memvoy's, no input error", async () => {
  for (const [status, body] of [
    [404, { error: "not found" }],
    [500, { error: "internal" }],
    [404, null],
    [400, { message: "bad request" }],
  ] as const) {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(body, { status }) });
    servers.push(server);
    const base = `http://127.0.0.1:${server.port}`;
    const err = await rejection(connectMemory({ url: base, token: "t" }).history("s"));
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).data).toEqual({
      problem: "failed",
      base,
      status,
      message: "the answer holds no memvoy error (is this the URL of memvoy's HTTP API? see <home>/http.json)",
    });
    expect(describeError(err)).toBe(
      `memvoy at ${base}: the answer holds no memvoy error (is this the URL of memvoy's HTTP API? see <home>/http.json) (HTTP ${status})`,
    );
  }
});
