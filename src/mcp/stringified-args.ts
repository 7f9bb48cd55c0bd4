// Tool arguments some clients send as text: a number as "20", a list or an object as its JSON ("[\"01J…\"]"),
// a boolean as "true" (Claude Code has sent every non-string argument this way). Each such top-level value is
// read as what its field's schema says it is; anything else is left for the schema to refuse.
import { fieldTypes } from "../app/api/json-schema.ts";
import type { AnySchema } from "../app/api/schemas.ts";

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;
const types = new WeakMap<AnySchema, Record<string, string>>();

export function unstringified(schema: AnySchema, raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  let fields = types.get(schema);
  if (!fields) types.set(schema, (fields = fieldTypes(schema)));
  const out: Record<string, unknown> = { ...raw };
  for (const [key, value] of Object.entries(out)) {
    if (typeof value !== "string") continue;
    const type = fields[key];
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
