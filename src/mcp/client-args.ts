// Tool arguments as clients really send them, read as what they mean before the schema checks them:
// - a number as "20", a list or an object as its JSON, a boolean as "true" (Claude Code has sent every
//   non-string argument as text) is read as its field's type;
// - an optional field sent as null or "" (many clients and models fill every field rather than leave one out)
//   is left out, also in each message of a list;
// - "params": null on a message, or "arguments": null on a tools/call, is left out (withoutNullParams).
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

/**
 * A JSON-RPC message (or a batch) with `"params": null`, and a tools/call's `"arguments": null`, left out: some
 * clients send null for "none", which the SDK refuses as no JSON-RPC message at all (over stdio it drops the line,
 * and the request is never answered). Changed in place; anything else is left for the SDK to judge.
 */
export function withoutNullParams(message: unknown): unknown {
  if (Array.isArray(message)) {
    for (const m of message) withoutNullParams(m);
    return message;
  }
  if (!isRecord(message)) return message;
  if (message.params === null) delete message.params;
  else if (message.method === "tools/call" && isRecord(message.params) && message.params.arguments === null)
    delete message.params.arguments;
  return message;
}

/** One line of stdin with withoutNullParams applied; the line as it is when it holds no null or is no JSON. */
export function lineWithoutNullParams(line: Buffer): Buffer {
  if (!line.includes("null")) return line;
  let m: unknown;
  try {
    m = JSON.parse(line.toString("utf8"));
  } catch {
    return line;
  }
  const before = isRecord(m) && (m.params === null || (isRecord(m.params) && m.params.arguments === null));
  return before ? Buffer.from(`${JSON.stringify(withoutNullParams(m))}\n`) : line;
}
