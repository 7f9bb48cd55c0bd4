// The OpenAPI 3.1 document of the HTTP API, generated from the route and schema table.
import { jsonSchemaOf, type JsonSchema } from "../app/api/json-schema.ts";
import { HEALTH_PATH, MCP_PATH, OPENAPI_PATH, pathParams, ROUTES } from "../app/api/routes.ts";

const ERROR = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: { code: { type: "string" }, message: { type: "string" }, status: { type: "integer" } },
      required: ["code", "message", "status"],
    },
  },
  required: ["error"],
};
const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});
const ERRORS = {
  "400": errorResponse("bad input: the message names the field"),
  "401": errorResponse("missing or wrong bearer token"),
  "403": errorResponse("foreign Host or Origin"),
  "404": errorResponse("unknown session, message or error record"),
  "413": errorResponse("body over [http] max_body_bytes"),
  "500": errorResponse("runtime failure"),
  "503": errorResponse("the shared PostgreSQL archive cannot be reached now (down, restarting, out of connections)"),
};

/** The OpenAPI path of a route path: /v1/sessions/:session -> /v1/sessions/{session}. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

/** `url`: where this server answers (its port is the home's), so that a client generated from the document reaches it. */
export function openApiDocument(version: string, url: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    const schema = jsonSchemaOf(r.input);
    const props = { ...((schema.properties ?? {}) as Record<string, JsonSchema>) };
    const required = new Set((schema.required ?? []) as string[]);
    const parameters: unknown[] = [];
    for (const p of pathParams(r.path)) {
      parameters.push({ name: p, in: "path", required: true, schema: props[p] ?? { type: "string" } });
      delete props[p];
      required.delete(p);
    }
    const op: Record<string, unknown> = { operationId: r.name, summary: r.summary, security: [{ bearer: [] }] };
    if (r.method === "POST") {
      op.requestBody = {
        required: required.size > 0,
        content: {
          "application/json": {
            schema: { ...schema, properties: props, required: [...required], additionalProperties: false },
          },
        },
      };
    } else {
      for (const [name, s] of Object.entries(props))
        parameters.push({ name, in: "query", required: required.has(name), schema: s });
    }
    if (parameters.length > 0) op.parameters = parameters;
    op.responses = {
      "200": {
        description: "the CLI --json shape of the operation",
        content: { "application/json": { schema: { type: ["object", "array"] } } },
      },
      ...ERRORS,
    };
    (paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = op;
  }
  paths[HEALTH_PATH] = {
    get: {
      operationId: "health",
      summary: "Whether memvoy is up, and its version (no token needed)",
      security: [],
      responses: {
        "200": {
          description: "up",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { ok: { type: "boolean" }, name: { type: "string" }, version: { type: "string" } },
              },
            },
          },
        },
      },
    },
  };
  paths[OPENAPI_PATH] = {
    get: {
      operationId: "openapi",
      summary: "This document",
      security: [{ bearer: [] }],
      responses: { "200": { description: "OpenAPI 3.1" }, "401": ERRORS["401"], "403": ERRORS["403"] },
    },
  };
  paths[MCP_PATH] = {
    post: {
      operationId: "mcp",
      summary: "MCP Streamable HTTP (JSON-RPC)",
      security: [{ bearer: [] }],
      responses: { "200": { description: "JSON-RPC answer" }, "401": ERRORS["401"], "403": ERRORS["403"] },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "memvoy",
      version,
      description: "The loopback HTTP API of the memvoy daemon. Bearer token in <home>/http.json.",
    },
    servers: [{ url }],
    paths,
    components: { schemas: { Error: ERROR }, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}
