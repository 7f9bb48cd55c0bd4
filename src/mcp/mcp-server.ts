// One MCP server instance over a MemoryApi: the tools registered with their JSON Schema (from the app's
// valibot schemas), annotations and structured output. Bad arguments and failures answer isError.
import { McpServer } from "@modelcontextprotocol/server";
import { standardSchemaOf } from "../app/api/json-schema.ts";
import { errorLine } from "../app/api/error-body.ts";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { InputError } from "../shared/errors.ts";
import { checkArgs, ToolArgumentError, TOOLS } from "./tools.ts";

export function createMcpServer(api: MemoryApi, version: string): McpServer {
  const server = new McpServer(
    { name: "memvoy", version },
    {
      capabilities: { tools: {} },
      instructions:
        "memvoy is this agent's long-term memory. Use chat_history mode=search to find past messages (compact rows), then mode=get or mode=around " +
        "to read them in full; error_memory mode=lookup before fixing a tool error, mode=record once it is fixed.",
    },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: standardSchemaOf(tool.schema) as never,
        outputSchema: standardSchemaOf(tool.output, true) as never,
        annotations: { title: tool.title, ...tool.annotations },
      },
      (async (raw: unknown) => {
        try {
          const args = checkArgs(tool, raw);
          const r = await tool.run(api, args);
          return { content: [{ type: "text", text: r.text }], structuredContent: r.value };
        } catch (err) {
          const text =
            err instanceof ToolArgumentError
              ? err.message
              : sentence(
                  err instanceof InputError
                    ? `${tool.name}: ${errorLine(err)}`
                    : `${tool.name} failed: ${errorLine(err)}`,
                );
          return { content: [{ type: "text", text }], isError: true };
        }
      }) as never,
    );
  }
  return server;
}

const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);
