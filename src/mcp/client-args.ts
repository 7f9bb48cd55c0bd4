// Tool arguments as clients really send them, read as what they mean before the schema checks them:
// - a number as "20", a list or an object as its JSON, a boolean as "true" (Claude Code has sent every
//   non-string argument as text) is read as its field's type;
// - an optional field sent as null or "" (many clients and models fill every field rather than leave one out)
//   is left out, also in each message of a list.
// Anything else is left for the schema to refuse, naming the field.
import { jsonSchemaOf, type JsonSchema } from "../app/api/json-schema.ts";
import type { AnySchema } from "../app/api/schemas.ts";

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;
const converted = new WeakMap<AnySchema, JsonSchema>();

export function normalizeArgs(schema: AnySchema, raw: unknown): unknown {
  let json = converted.get(schema);
  if (!json) converted.set(schema, (json = jsonSchemaOf(schema)));
  return normalized(json, raw);
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** `value` read by the object schema `node`: its fields, and the objects in its lists, one level down each. */
function normalized(node: JsonSchema, value: unknown): unknown {
  const props = node.properties as Record<string, JsonSchema> | undefined;
  if (!props || !isRecord(value)) return value;
  const required = new Set((node.required ?? []) as string[]);
  const out: Record<string, unknown> = { ...value };
  for (const [key, v] of Object.entries(out)) {
    const field = props[key];
    if (!field) continue;
    if ((v === null || v === "") && !required.has(key)) {
      delete out[key];
      continue;
    }
    const read = typeof v === "string" ? fromText(field.type, v) : v;
    const items = field.items as JsonSchema | undefined;
    out[key] = Array.isArray(read) && items ? read.map((item) => normalized(items, item)) : read;
  }
  return out;
}

/** Text read as a value of `type` when it spells one; else the text itself. */
function fromText(type: unknown, text: string): unknown {
  if ((type === "integer" || type === "number") && NUMBER.test(text)) return Number(text);
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  if (type === "array" || type === "object") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return text;
    }
    return (type === "array" ? Array.isArray(parsed) : isRecord(parsed)) ? parsed : text;
  }
  return text;
}
