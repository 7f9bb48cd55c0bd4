// What valibot does not say of a config's keys: every unknown one, the key it most likely misspells, and a
// table given as an array ([[limits]], limits = [...]), which a strict object would otherwise take for a table.
import { nearestName } from "../shared/nearest-name.ts";

export interface SchemaNode {
  type: string;
  wrapped?: SchemaNode;
  pipe?: readonly SchemaNode[];
  entries?: Record<string, SchemaNode>;
}

/** The strict table `schema` stands for, through optional() and pipe(); undefined for any other schema. */
function tableOf(schema: SchemaNode): Record<string, SchemaNode> | undefined {
  let s = schema;
  while (s.wrapped || (s.pipe && s.pipe[0] !== s)) s = s.wrapped ?? s.pipe![0]!;
  return s.type === "strict_object" ? s.entries : undefined;
}

/** The dotted path of every key of `raw` that its strict table in `schema` does not name. */
export function unknownKeys(schema: SchemaNode, raw: unknown, at = ""): string[] {
  const entries = tableOf(schema);
  if (!entries || !raw || typeof raw !== "object" || Array.isArray(raw)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const path = at ? `${at}.${key}` : key;
    const entry = Object.hasOwn(entries, key) ? entries[key] : undefined;
    if (entry) out.push(...unknownKeys(entry, value, path));
    else out.push(path);
  }
  return out;
}

/** The dotted path of every table of `schema` that `raw` gives as an array. */
export function arraysForTables(schema: SchemaNode, raw: unknown, at = ""): string[] {
  const entries = tableOf(schema);
  if (!entries || !raw || typeof raw !== "object") return [];
  if (Array.isArray(raw)) return at ? [at] : [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(raw))
    if (Object.hasOwn(entries, key)) out.push(...arraysForTables(entries[key]!, value, at ? `${at}.${key}` : key));
  return out;
}

/**
 * The key an unknown `path` most likely means: a near name in its own table (summary.modle: summary.model,
 * limit: limits), else the one table holding a key of that name (summary.max_history_messages:
 * limits.max_history_messages).
 */
export function nearestKey(schema: SchemaNode, path: string): string | undefined {
  const parts = path.split(".");
  const name = parts.pop()!;
  let entries = tableOf(schema);
  for (const part of parts) entries = entries && Object.hasOwn(entries, part) ? tableOf(entries[part]!) : undefined;
  const prefix = parts.length > 0 ? `${parts.join(".")}.` : "";
  const near = entries && nearestName(name, Object.keys(entries));
  if (near) return prefix + near;
  const top = tableOf(schema) ?? {};
  const holding = Object.keys(top).filter((t) => {
    const table = tableOf(top[t]!);
    return table !== undefined && t !== parts[0] && Object.hasOwn(table, name.toLowerCase());
  });
  return holding.length === 1 ? `${holding[0]}.${name.toLowerCase()}` : undefined;
}
