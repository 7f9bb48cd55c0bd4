// The builtin embedder's id, dimension and version, without loading it (its word vectors).
export const BUILTIN_DIM = 384;
/** Bump when anything the builtin embedder does changes what a text embeds to: stored vectors then need a reindex. */
export const BUILTIN_VERSION = "v1";
export const BUILTIN_ID = `builtin:${BUILTIN_VERSION}:${BUILTIN_DIM}`;
