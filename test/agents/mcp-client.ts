// MCP clients for the tests: the real SDK client (stdio or Streamable HTTP), and a plain newline-delimited
// JSON-RPC client speaking protocol revision 2025-06-18, as the agents people run do.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Subprocess } from "bun";

export async function sdkStdio(
  command: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ client: Client; pid: number; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "memvoy-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid!, close: () => client.close() };
}

export async function sdkHttp(url: string, token: string): Promise<{ client: Client; close(): Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "memvoy-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

export const PROTOCOL = "2025-06-18";

/** A JSON-RPC client over a child's stdin/stdout, one JSON document per line. */
export class LineClient {
  #next = 1;
  #buffer = "";
  #waiting = new Map<number, (v: any) => void>();
  constructor(readonly proc: Subprocess<"pipe", "pipe", "pipe">) {
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        this.#buffer += decoder.decode(chunk, { stream: true });
        for (let nl = this.#buffer.indexOf("\n"); nl >= 0; nl = this.#buffer.indexOf("\n")) {
          const line = this.#buffer.slice(0, nl);
          this.#buffer = this.#buffer.slice(nl + 1);
          if (line.trim() === "") continue;
          const msg = JSON.parse(line); // anything on stdout that is not JSON-RPC fails the test here
          this.#waiting.get(msg.id)?.(msg);
          this.#waiting.delete(msg.id);
        }
      }
    })();
  }
  request(method: string, params?: unknown): Promise<any> {
    const id = this.#next++;
    const p = new Promise((resolve) => this.#waiting.set(id, resolve));
    this.proc.stdin.write(
      JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }) + "\n",
    );
    this.proc.stdin.flush();
    return p;
  }
  notify(method: string): void {
    this.proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n");
    this.proc.stdin.flush();
  }
  async initialize(): Promise<any> {
    const r = await this.request("initialize", {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "plain", version: "1" },
    });
    this.notify("notifications/initialized");
    return r;
  }
  close(): void {
    this.proc.stdin.end();
  }
}

/** The same over HTTP: one POST per message; answers come as JSON or as one SSE event. */
export async function httpRpc(
  url: string,
  token: string,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
  const text = await r.text();
  if (text.trim() === "") return { status: r.status, body: null };
  const type = r.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) {
    const data = text
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trim())
      .filter(Boolean);
    return { status: r.status, body: JSON.parse(data.at(-1)!) };
  }
  return { status: r.status, body: JSON.parse(text) };
}
