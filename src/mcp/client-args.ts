// Tool arguments as clients really send them, read as what they mean before the schema checks them:
// - a number as "20", a list or an object as its JSON, a boolean as "true" (Claude Code has sent every
//   non-string argument as text) is read as its field's type;
// - an optional field sent as null or "" (many clients and models fill every field rather than leave one out)
//   is left out.
// Anything else is left for the schema to refuse, naming the field.
import { jsonSchemaOf } from "../app/api/json-schema.ts";
import type { AnySchema } from "../app/api/schemas.ts";

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;

interface Fields {
  types: Record<string, string>;
  required: Set<string>;
}
const known = new WeakMap<AnySchema, Fields>();

function fieldsOf(schema: AnySchema): Fields {
  let f = known.get(schema);
  if (!f) {
    const json = jsonSchemaOf(schema);
    const props = (json.properties ?? {}) as Record<string, { type?: unknown }>;
    const types = Object.fromEntries(
      Object.entries(props).map(([k, p]) => [k, typeof p.type === "string" ? p.type : "string"]),
    );
    known.set(schema, (f = { types, required: new Set((json.required ?? []) as string[]) }));
  }
  return f;
}

export function normalizeArgs(schema: AnySchema, raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const { types, required } = fieldsOf(schema);
  const out: Record<string, unknown> = { ...raw };
  for (const [key, value] of Object.entries(out)) {
    if ((value === null || value === "") && key in types && !required.has(key)) {
      delete out[key];
      continue;
    }
    if (typeof value !== "string") continue;
    const type = types[key];
    if ((type === "integer" || type === "number") && NUMBER.test(value)) out[key] = Number(value);
    else if (type === "boolean" && (value === "true" || value === "false")) out[key] = value === "true";
    else if (type === "array" || type === "object") {
      const parsed = parsedJson(value);
      const fits = type === "array" ? Array.isArray(parsed) : typeof parsed === "object" && !Array.isArray(parsed);
      if (parsed !== null && fits) out[key] = parsed;
    }
  }
  return out;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
