// Whether the local vector store holds the configured embedder's message vectors, read from its folder names
// only (no LanceDB): none at all, only other embedders', or the configured one's (with others beside it, or not).
import { dirEntries } from "../shared/dir-entries.ts";
import { configuredEmbedderId, type EmbedderConfig } from "../embed/create-embedder.ts";
import { embedderTableName, SLUG_MAX } from "../storage/lance/embedder-tables.ts";

/** How the message vector tables' folders start (tableNameFor in storage/lance/vector-store.ts). */
const MESSAGE_TABLES = "messages_";

export interface VectorFolders {
  /** No message table folder at all. */
  none: boolean;
  /** The configured embedder's table folder is there (undefined: its id is learned from the server). */
  configured: boolean | undefined;
  /** Table folders of other embedders are there. */
  others: boolean;
}

export function messageVectorFolders(lanceDir: string, embedder: EmbedderConfig): VectorFolders {
  const tables = dirEntries(lanceDir)
    .map((e) => e.name)
    .filter((n) => n.startsWith(MESSAGE_TABLES));
  const id = configuredEmbedderId(embedder);
  const own = id === undefined ? learntDimTable(tables, embedder) : `${embedderTableName(MESSAGE_TABLES, id)}.lance`;
  return {
    none: tables.length === 0,
    configured: own === undefined ? undefined : own !== null && tables.includes(own),
    others: own === undefined ? false : tables.some((t) => t !== own),
  };
}

/**
 * The folder of a model whose dimension is learnt from the server (dimensions = 0): the one named for this
 * provider and model at the dimension its name ends with. null: none is; undefined: a folder's name was cut
 * before its dimension, so which one is cannot be told.
 */
function learntDimTable(tables: readonly string[], embedder: EmbedderConfig): string | null | undefined {
  let unsure = false;
  for (const t of tables) {
    const m = /^(.*)_[0-9a-f]{8}\.lance$/.exec(t.slice(MESSAGE_TABLES.length));
    if (!m) continue;
    const dim = /_(\d+)$/.exec(m[1]!)?.[1];
    if (
      dim !== undefined &&
      t === `${embedderTableName(MESSAGE_TABLES, `${embedder.provider}:${embedder.model}:${dim}`)}.lance`
    )
      return t;
    if (m[1]!.length >= SLUG_MAX) unsure = true;
  }
  return unsure ? undefined : null;
}
