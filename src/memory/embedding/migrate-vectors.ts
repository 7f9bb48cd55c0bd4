// The vectors' part of migrate-archive: a home's .store/lance copied into the vector store its config names
// ([vectors] uri), resumable and verified by copyVectors; nothing to do while the vectors stay local.
import type { HomePaths } from "../../config/home.ts";
import type { Config } from "../../config/schema.ts";
import { vectorLocation } from "../../storage/ports/vector-location.ts";
import { copyVectors } from "./copy-vectors.ts";

export async function migrateVectors(c: {
  home: HomePaths;
  config: Config;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, skipped: number) => void;
  env?: Readonly<Record<string, string | undefined>>;
}): Promise<{ copied: number }> {
  if (!c.config.vectors.uri) return { copied: 0 };
  const to = vectorLocation(c.config.vectors, c.home.lance, c.env ?? process.env);
  const tables = await copyVectors(
    { kind: "local", dir: c.home.lance },
    to,
    (p) => c.onProgress?.(p.done, p.total, p.skipped),
    c.signal,
  );
  return { copied: tables.reduce((n, t) => n + t.copied, 0) };
}
