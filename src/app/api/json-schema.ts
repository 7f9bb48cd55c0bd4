// The one place valibot schemas become JSON Schema: tool input schemas (MCP), OpenAPI bodies and
// parameters (HTTP), and the types of query parameters.
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { AnySchema } from "./schemas.ts";

export type JsonSchema = Record<string, unknown>;

export function jsonSchemaOf(schema: AnySchema, target: "draft-07" | "draft-2020-12" = "draft-2020-12"): JsonSchema {
  const out = toJsonSchema(schema, { target, errorMode: "ignore" }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** The JSON type of each top-level field ("string", "integer", "boolean", ...), for reading query strings. */
export function fieldTypes(schema: AnySchema): Record<string, string> {
  const props = (jsonSchemaOf(schema).properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, string> = {};
  for (const [k, p] of Object.entries(props)) out[k] = typeof p.type === "string" ? p.type : "string";
  return out;
}

/**
 * A Standard Schema carrying the JSON Schema of `schema` (converted on first use). `check: false` accepts
 * any value: the caller validates with valibot itself, so that a bad argument gets one sentence naming the
 * field (MCP tool input). `check: true` validates (MCP tool output).
 */
export function standardSchemaOf(schema: AnySchema, check = false): { readonly "~standard": any } {
  let json: JsonSchema | undefined;
  const jsonOnce = () => (json ??= jsonSchemaOf(schema, "draft-2020-12"));
  return {
    "~standard": {
      version: 1,
      vendor: "memvoy",
      validate: (value: unknown) => {
        if (!check) return { value };
        const r = v.safeParse(schema, value);
        return r.success ? { value } : { issues: r.issues.map((i) => ({ message: i.message, path: pathOf(i) })) };
      },
      jsonSchema: { input: jsonOnce, output: jsonOnce },
    },
  };
}

const pathOf = (issue: v.BaseIssue<unknown>) => (issue.path ?? []).map((p) => p.key as PropertyKey);
