// The background of the calibrated semantic score, kept per vector table and embedder in .store/relevance/:
// sampled once on first need, re-sampled by upkeep and after a drain when the table changed enough, and read
// by searches without sampling. File: one JSON header line (padded to 4 bytes), then the Float32 vectors.
// A cache: a symbolic link at the folder or a file is never followed (neither read nor written through).
import { closeSync, constants, lstatSync, openSync, readFileSync, rmSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import type { Embedder } from "../../embed/embedder.ts";
import { ensureDirIn, writeFileAtomic } from "../../shared/atomic-write.ts";
import { dirEntries } from "../../shared/dir-entries.ts";
import type { MessageVectorTable } from "../../storage/ports/vector-port.ts";
import { BACKGROUND_SAMPLE, backgroundStale, smallTable, withReferences } from "../../search/relevance.ts";
import type { MemoryContext } from "../memory-context.ts";
import { vectorStoreLocation } from "../vector-location.ts";
import { describeLocation } from "../../storage/ports/vector-location.ts";

const FORMAT = 1;

export interface KeptBackground {
  embedderId: string;
  /** Rows of the table when it was sampled. */
  rows: number;
  /** When it was sampled (ms since the epoch). */
  at: number;
  vectors: Float32Array[];
}

interface Header {
  format: number;
  embedder: string;
  location: string;
  dim: number;
  rows: number;
  at: number;
  count: number;
}

let samplings = 0;
/** How many times this process sampled a table for its background (tests: a search with kept statistics samples none). */
export function backgroundSamplings(): number {
  return samplings;
}

/** The file of one table's background: per vector location and embedder. */
/** The path per context and embedder, worked out once (searches ask for it every time). */
const paths = new WeakMap<MemoryContext, Map<string, string>>();

export function backgroundFile(ctx: MemoryContext, embedderId: string): string {
  let known = paths.get(ctx);
  if (!known) paths.set(ctx, (known = new Map()));
  let path = known.get(embedderId);
  if (path === undefined) known.set(embedderId, (path = backgroundPath(ctx, embedderId)));
  return path;
}

function backgroundPath(ctx: MemoryContext, embedderId: string): string {
  const location = describeLocation(vectorStoreLocation(ctx));
  const hash = new Bun.CryptoHasher("sha256").update(`${location}\n${embedderId}`).digest("hex").slice(0, 16);
  const slug = embedderId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  return join(ctx.paths.relevance, `${slug}-${hash}.bg`);
}

function encode(h: Header, vectors: readonly Float32Array[]): Uint8Array {
  let head = JSON.stringify(h);
  head += " ".repeat((4 - ((Buffer.byteLength(head) + 1) % 4)) % 4) + "\n";
  const headBytes = Buffer.from(head, "utf8");
  const out = new Uint8Array(headBytes.length + h.count * h.dim * 4);
  out.set(headBytes, 0);
  const body = new Float32Array(out.buffer, headBytes.length, h.count * h.dim);
  vectors.forEach((v, i) => body.set(v, i * h.dim));
  return out;
}

/** The kept file at `path` as lstat sees it; undefined when absent, or when it or its folder is a link. */
function keptFile(path: string): Stats | undefined {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st?.isFile() && !lstatSync(dirname(path)).isSymbolicLink() ? st : undefined;
  } catch {
    return undefined;
  }
}

/** The kept background at `path`, or undefined when absent, unreadable, a link or not this embedder's. */
export function readBackground(path: string, embedderId: string, dim: number): KeptBackground | undefined {
  let buf: Buffer;
  let fd: number | undefined;
  try {
    if (!keptFile(path)) return undefined;
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    buf = readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const nl = buf.indexOf(10);
  if (nl < 0 || (nl + 1) % 4 !== 0) return undefined;
  let h: Header;
  try {
    h = JSON.parse(buf.subarray(0, nl).toString("utf8")) as Header;
  } catch {
    return undefined;
  }
  if (!headerFits(h, embedderId, dim) || buf.length !== nl + 1 + h.count * dim * 4) return undefined;
  const body = new Float32Array(buf.buffer.slice(buf.byteOffset + nl + 1, buf.byteOffset + buf.length));
  const vectors = Array.from({ length: h.count }, (_, i) => body.subarray(i * dim, (i + 1) * dim));
  // A garbled body (bytes overwritten, blocks zeroed by a crash) would skew every score: it is sampled again.
  return vectorsFit(vectors) ? { embedderId, rows: h.rows, at: h.at, vectors } : undefined;
}

const count = (n: unknown, least: number): boolean => Number.isSafeInteger(n) && (n as number) >= least;

/** A header this format writes, for this embedder: a sample always holds the reference sentences or a table's rows. */
function headerFits(h: unknown, embedderId: string, dim: number): h is Header {
  if (typeof h !== "object" || h === null) return false;
  const { format, embedder, dim: d, rows, at, count: n } = h as Record<string, unknown>;
  return (
    format === FORMAT &&
    embedder === embedderId &&
    d === dim &&
    count(rows, 0) &&
    typeof at === "number" &&
    Number.isFinite(at) &&
    count(n, 2)
  );
}

/** Vectors as an embedder gives them: finite, each of unit length or zeros, not all zeros. */
function vectorsFit(vectors: readonly Float32Array[]): boolean {
  let directions = 0;
  for (const v of vectors) {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
    if (!Number.isFinite(s) || (s !== 0 && Math.abs(s - 1) > 1e-3)) return false;
    if (s !== 0) directions++;
  }
  return directions > 0;
}

/**
 * Forget every kept background: each holds vectors sampled from the tables, and a deletion (rm, reset,
 * rm-message) may have removed one of their rows. The next search samples again.
 */
export function dropKeptBackgrounds(ctx: MemoryContext): void {
  const dir = ctx.paths.relevance;
  try {
    if (!lstatSync(dir).isDirectory()) return; // absent, or a link: never followed
  } catch {
    return;
  }
  for (const e of dirEntries(dir)) if (!e.isDirectory()) rmSync(join(dir, e.name), { force: true });
}

/** Sample the table now and keep the result (an atomic replace of the file). */
export async function sampleBackground(
  ctx: MemoryContext,
  table: MessageVectorTable,
  embedder: Embedder,
): Promise<KeptBackground> {
  samplings++;
  const rows = await table.count();
  const vectors = await withReferences(await table.sample(BACKGROUND_SAMPLE), rows, embedder);
  const kept: KeptBackground = { embedderId: embedder.id, rows, at: Date.now(), vectors };
  const dim = vectors[0]?.length ?? embedder.dim;
  const header: Header = {
    format: FORMAT,
    embedder: embedder.id,
    location: describeLocation(vectorStoreLocation(ctx)),
    dim,
    rows,
    at: kept.at,
    count: vectors.length,
  };
  const path = backgroundFile(ctx, embedder.id);
  try {
    const dir = ctx.paths.relevance;
    ensureDirIn(dir);
    if (!lstatSync(dir).isSymbolicLink()) writeFileAtomic(path, encode(header, vectors));
  } catch {
    // A read-only or full disk: this process keeps its sample in memory, the next one samples again.
  }
  return kept;
}

/**
 * The background a search calibrates against, kept per process and re-read only when the file changed. A
 * search samples only when nothing is kept yet, or while the table is small and has changed enough since.
 */
export class SearchBackground {
  #kept?: { path: string; mtimeMs: number; size: number; bg: KeptBackground };
  #sampling?: Promise<KeptBackground>;

  constructor(private readonly ctx: MemoryContext) {}

  async vectors(table: MessageVectorTable, embedder: Embedder): Promise<Float32Array[]> {
    const kept = this.read(embedder);
    if (kept && (!smallTable(kept.rows) || !backgroundStale(kept.rows, await table.count()))) return kept.vectors;
    if (!this.#sampling) {
      const p = sampleBackground(this.ctx, table, embedder);
      this.#sampling = p;
      p.finally(() => {
        if (this.#sampling === p) this.#sampling = undefined;
      }).catch(() => {});
      p.then((bg) => this.remember(embedder.id, bg)).catch(() => {});
    }
    return (await this.#sampling).vectors;
  }

  private read(embedder: Embedder): KeptBackground | undefined {
    const path = backgroundFile(this.ctx, embedder.id);
    const st = keptFile(path);
    if (!st) return this.#kept?.path === path && this.#kept.mtimeMs < 0 ? this.#kept.bg : undefined;
    const k = this.#kept;
    if (k && k.path === path && k.mtimeMs === st.mtimeMs && k.size === st.size) return k.bg;
    const bg = readBackground(path, embedder.id, embedder.dim);
    if (bg) this.#kept = { path, mtimeMs: st.mtimeMs, size: st.size, bg };
    return bg;
  }

  /** After sampling: the file just written (or, when it could not be written, the sample in memory). */
  private remember(embedderId: string, bg: KeptBackground): void {
    const path = backgroundFile(this.ctx, embedderId);
    const st = keptFile(path);
    this.#kept = st ? { path, mtimeMs: st.mtimeMs, size: st.size, bg } : { path, mtimeMs: -1, size: 0, bg };
  }
}

/**
 * Upkeep: re-sample the table's background when none is kept or the table has grown or shrunk enough since
 * (or always, with `force`; with `onlyIfKept`, never when none is kept: the first search samples it). True
 * when it sampled.
 */
export async function refreshBackground(
  ctx: MemoryContext,
  table: MessageVectorTable,
  embedder: Embedder,
  options: { force?: boolean; onlyIfKept?: boolean } = {},
): Promise<boolean> {
  const kept = readBackground(backgroundFile(ctx, embedder.id), embedder.id, embedder.dim);
  if (!kept && options.onlyIfKept && !options.force) return false;
  if (!options.force && kept && !backgroundStale(kept.rows, await table.count())) return false;
  await sampleBackground(ctx, table, embedder);
  return true;
}
