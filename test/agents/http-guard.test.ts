// The loopback checks as clients send their headers: a Host (and an Origin) without the port when it is http's default.
import { expect, test } from "bun:test";
import { refusal } from "../../src/http/guard.ts";

const TOKEN = "t0ken";
const request = (headers: Record<string, string>) =>
  new Request("http://127.0.0.1/v1/sessions", { headers: { authorization: `Bearer ${TOKEN}`, ...headers } });

test("on port 80 a Host without the port (as curl, fetch and browsers send it) is this server", () => {
  for (const host of ["127.0.0.1", "localhost", "[::1]", "127.0.0.1:80", "LOCALHOST"])
    expect(refusal(request({ host }), 80, TOKEN, true)).toBeUndefined();
  expect(refusal(request({ host: "127.0.0.1", origin: "http://127.0.0.1" }), 80, TOKEN, true)).toBeUndefined();
  expect(refusal(request({ host: "evil.example" }), 80, TOKEN, true)?.status).toBe(403);
  expect(refusal(request({ host: "127.0.0.1", origin: "http://evil.example" }), 80, TOKEN, true)?.status).toBe(403);
  expect(refusal(request({ host: "127.0.0.1" }), 80, "other", true)?.status).toBe(401);
});

test("on another port the Host must name it: the name alone is refused", () => {
  expect(refusal(request({ host: "127.0.0.1:24816" }), 24816, TOKEN, true)).toBeUndefined();
  expect(refusal(request({ host: "127.0.0.1" }), 24816, TOKEN, true)?.status).toBe(403);
  expect(refusal(request({ host: "127.0.0.1:80" }), 24816, TOKEN, true)?.status).toBe(403);
  expect(refusal(request({ host: "127.0.0.1:24816", origin: "http://127.0.0.1" }), 24816, TOKEN, true)?.status).toBe(
    403,
  );
});
