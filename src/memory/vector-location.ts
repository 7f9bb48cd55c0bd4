// The vectors location of a home ([vectors] uri, keys from the environment) and whether vectors may exist
// there: a home's folder that was never created holds none, a shared store always may.
import { existsSync } from "node:fs";
import { vectorLocation, type VectorLocation } from "../storage/ports/vector-location.ts";
import type { MemoryContext } from "./memory-context.ts";

export function vectorStoreLocation(ctx: MemoryContext): VectorLocation {
  return vectorLocation(ctx.config.vectors, ctx.paths.lance, ctx.env ?? process.env);
}

/** False only for a local store whose folder does not exist yet (so LanceDB need not load). */
export function mayHoldVectors(ctx: MemoryContext): boolean {
  return ctx.config.vectors.uri !== "" || existsSync(ctx.paths.lance);
}
