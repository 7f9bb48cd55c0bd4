// memvoy mcp whose client closes its stdout while requests are read and not answered: the server stops reading,
// starts no call any more, lets the ones under way finish, says so on stderr and exits 1 (not 0 in silence).
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL } from "./mcp-client.ts";
import { entry, removeTempDirs, tempDir } from "./support.ts";
import { waitFor } from "../fixture/home.ts";

afterAll(removeTempDirs);

const line = (m: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`;

test("stdout closed with 100 add_messages queued: exit 1 and a line on stderr", async () => {
  const dir = tempDir();
  const home = join(dir, "h");
  const got = join(dir, "got");
  const code = join(dir, "code");
  const err = join(dir, "stderr");
  // The client is `head -c 1`: it reads the first byte of the initialize answer and goes, closing the pipe.
  const script = `'${process.execPath}' '${entry}' mcp --home '${home}' 2>'${err}' | head -c 1 >'${got}'; echo \${PIPESTATUS[0]} >'${code}'`;
  const proc = Bun.spawn(["bash", "-c", script], {
    env: { PATH: process.env.PATH!, HOME: dir },
    stdin: "pipe",
    stdout: "ignore",
    stderr: "ignore",
  });
  proc.stdin.write(
    line({
      id: 0,
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "c", version: "1" } },
    }),
  );
  proc.stdin.flush();
  await waitFor(() => existsSync(got) && statSync(got).size === 1, 30_000, "the client reading the first answer");
  let batch = line({ method: "notifications/initialized" });
  for (let i = 1; i <= 100; i++)
    batch += line({
      id: i,
      method: "tools/call",
      params: { name: "add_messages", arguments: { session: "s1", messages: [{ role: "user", content: `m${i}` }] } },
    });
  proc.stdin.write(batch);
  proc.stdin.flush();
  await waitFor(() => existsSync(code) && readFileSync(code, "utf8").endsWith("\n"), 60_000, "the server's exit");
  proc.stdin.end();
  await proc.exited;
  const stderr = readFileSync(err, "utf8");
  expect(readFileSync(code, "utf8").trim()).toBe("1");
  expect(stderr).toContain(
    "memvoy mcp: could not write to stdout (EPIPE: the reader closed it), so the server stopped: the answers from then on",
  );
  expect(stderr).toContain("no call was started after that");
}, 90_000);
