// The start-up contender of `memvoy mcp`: the MCP SDK's stdio server with one tool and nothing else,
// compiled the same way as memvoy (bench/agents-mcp.ts builds it).
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const schema = {
  "~standard": {
    version: 1,
    vendor: "bench",
    validate: (value: unknown) => ({ value }),
    jsonSchema: { input: () => ({ type: "object", properties: { q: { type: "string" } } }), output: () => ({}) },
  },
};

serveStdio(() => {
  const server = new McpServer({ name: "bare", version: "1" }, { capabilities: { tools: {} } });
  server.registerTool("echo", { description: "echo", inputSchema: schema as never }, (async () => ({
    content: [{ type: "text", text: "ok" }],
  })) as never);
  return server;
});
