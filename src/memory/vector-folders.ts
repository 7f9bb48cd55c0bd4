// Whether the local vector store holds the configured embedder's message vectors, read from its folder names
// only (no LanceDB): none at all, only other embedders', or the configured one's (with others beside it, or not).
import { dirEntries } from "../shared/dir-entries.ts";
import { configuredEmbedderId, type EmbedderConfig } from "../embed/create-embedder.ts";
import { embedderTableName } from "../storage/lance/embedder-tables.ts";

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
  const own = id === undefined ? undefined : `${embedderTableName(MESSAGE_TABLES, id)}.lance`;
  return {
    none: tables.length === 0,
    configured: own === undefined ? undefined : tables.includes(own),
    others: own === undefined ? false : tables.some((t) => t !== own),
  };
}
