// doctor's read of the home's vectors (messages and error memory), beside its synchronous checks: every table is
// read through once, so that a data file or manifest gone or damaged (which searches and the drain fail on) is
// named with the way out. Vectors in an object store are not read through (that would fetch every object), but
// a store that lost its vectors and an earlier memvoy's table there are named as in the home's folder.
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../shared/describe-error.ts";
import { HomeLinkRefusedError } from "../shared/no-follow.ts";
import {
  openErrorVectors,
  type EmbedderTables,
  type ErrorVectors,
  type MessageVectors,
} from "../storage/ports/vector-port.ts";
import { embedderTableName, ERROR_TABLES } from "../storage/lance/embedder-tables.ts";
import type { DoctorFinding } from "./doctor-finding.ts";
import type { SemanticIndex } from "./embedding/semantic-index.ts";
import { queuedCount, recentCount } from "../storage/sqlite/embed-queue-repo.ts";
import { countEmbeddedBy } from "../storage/sqlite/error-memory-repo.ts";
import { mayHoldVectors, vectorStoreLocation } from "./vector-location.ts";
import { messageVectorFolders } from "./vector-folders.ts";
import { configuredEmbedderId } from "../embed/create-embedder.ts";

export async function vectorTableFindings(index: SemanticIndex): Promise<DoctorFinding[]> {
  if (!mayHoldVectors(index.ctx)) return [];
  if (index.ctx.config.vectors.uri) return objectStoreFindings(index);
  // A file where the store's folder belongs is named by doctor-home.ts, with the way out.
  if (lstatSync(index.ctx.paths.lance, { throwIfNoEntry: false })?.isFile()) return [];
  const messages = [
    ...(await storeFindings(() => index.store())),
    ...(await index.store().then(
      async (store) => [...(await earlierTables(store)), ...(await lostMessageVectors(index, store))],
      () => [],
    )),
  ];
  const errors = await openErrorVectors(vectorStoreLocation(index.ctx)).then(
    async (store) => {
      try {
        const found = await storeFindings(async () => store);
        return found.length > 0 ? found : lostErrorVectors(index, store);
      } finally {
        store.close();
      }
    },
    (err: unknown) => storeFindings(() => Promise.reject(err)),
  );
  // The store failing to open is named once.
  return [...messages, ...errors.filter((e) => !messages.some((m) => m.problem === e.problem))];
}

/**
 * Vectors in an object store: none of the configured embedder's where the archive says messages or error records
 * were embedded (the prefix deleted, another uri, another embedder), and an earlier memvoy's message table.
 */
async function objectStoreFindings(index: SemanticIndex): Promise<DoctorFinding[]> {
  // A store that cannot be opened (down, unreachable, never answering, its keys refused) is named, as shared doctor
  // names it: every semantic search and drain fails on it.
  let unreadable: unknown;
  const store = await index.store().catch((err: unknown) => {
    unreadable = err;
    return undefined;
  });
  if (!store) return [unreadableStoreFinding(index.ctx.config.vectors.uri!, unreadable)];
  const embedderId = (await index.embedderIds())[0];
  if (embedderId === undefined) return earlierTables(store); // no embedder to check against (its key unset)
  const { db, config } = index.ctx;
  const embedded = recentCount(db) - queuedCount(db);
  const errorsEmbedded = countEmbeddedBy(db, embedderId, index.ctx.now());
  const out: DoctorFinding[] = [];
  if (embedded > 0 && (await tableRows(store, embedderId)) === 0)
    out.push(emptyStoreFinding(config.vectors.uri, embedderId, embedded));
  if (errorsEmbedded > 0 && (await errorTableRows(index, embedderId)) === 0)
    out.push(lostErrorVectorsFinding(config.vectors.uri, embedderId, errorsEmbedded));
  return [...out, ...(await earlierTables(store, [embedderId]))];
}

/**
 * The configured embedder's table in the home holding fewer vectors than the archive says were made (a table made
 * again after its versions were lost, a store put back from an older copy): the messages without one are found by
 * keyword only, and nothing embeds them again until a reindex. No table folder at all is doctor-home's finding.
 */
async function lostMessageVectors(index: SemanticIndex, store: MessageVectors): Promise<DoctorFinding[]> {
  const { ctx } = index;
  const id = configuredEmbedderId(ctx.config.embedder);
  if (id === undefined || messageVectorFolders(ctx.paths.lance, ctx.config.embedder).configured !== true) return [];
  const embedded = recentCount(ctx.db) - queuedCount(ctx.db);
  if (embedded <= 0) return [];
  const rows = await tableRows(store, id); // undefined: a damaged table, named by storeFindings
  if (rows === undefined || rows >= embedded) return [];
  return [
    {
      problem: `${ctx.paths.lance} holds ${rows} message vector(s) of ${id}, but ${embedded} recent message(s) were embedded: semantic search misses ${embedded - rows} of them until memvoy reindex runs`,
      manual: true,
    },
  ];
}

/**
 * The configured embedder's error-memory table in the home holding fewer vectors than the archive says were made:
 * those records are found by their words only, and a lookup does not embed them again. No folder at all is
 * doctor-home's finding.
 */
async function lostErrorVectors(index: SemanticIndex, store: ErrorVectors): Promise<DoctorFinding[]> {
  const { ctx } = index;
  const id = configuredEmbedderId(ctx.config.embedder);
  if (id === undefined || !existsSync(join(ctx.paths.lance, `${embedderTableName(ERROR_TABLES, id)}.lance`))) return [];
  const embedded = countEmbeddedBy(ctx.db, id, ctx.now());
  if (embedded === 0) return [];
  const rows = await store.ids(id).then(
    (ids) => ids.length,
    () => undefined,
  );
  if (rows === undefined || rows >= embedded) return [];
  return [
    {
      problem: `${ctx.paths.lance} holds ${rows} error-memory vector(s) of ${id}, but ${embedded} error record(s) were embedded: errors search matches ${embedded - rows} of them by their words only until memvoy reindex runs`,
      manual: true,
    },
  ];
}

/** Rows of an embedder's message table: 0 when it is absent, undefined when it cannot be read. */
async function tableRows(store: MessageVectors, embedderId: string): Promise<number | undefined> {
  const t = await store.table(embedderId, 0).catch(() => null);
  if (t === null) return undefined;
  try {
    return t ? await t.count() : 0;
  } finally {
    t?.close();
  }
}

/** Error-memory vectors of an embedder in an object store; undefined when they cannot be read. */
async function errorTableRows(index: SemanticIndex, embedderId: string): Promise<number | undefined> {
  try {
    const store = await openErrorVectors(vectorStoreLocation(index.ctx));
    try {
      return (await store.ids(embedderId)).length;
    } finally {
      store.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * An object store holding none of an embedder's error-memory vectors while the archive marks `embedded` records as
 * embedded by it: a lookup does not embed them again, only a rebuild does.
 */
export function lostErrorVectorsFinding(uri: string, embedderId: string, embedded: number): DoctorFinding {
  return {
    problem: `the vectors at ${uri} hold no error-memory vectors of ${embedderId}, but ${embedded} error record(s) were embedded: errors search matches by keyword only until memvoy reindex runs`,
    manual: true,
  };
}

/**
 * An object store holding none of the configured embedder's message vectors while the archive recorded `embedded`
 * recent messages as embedded (its prefix deleted, a wrong [vectors] uri, the embedder changed since).
 */
function unreadableStoreFinding(uri: string, err: unknown): DoctorFinding {
  return {
    problem: `the vectors at ${uri} cannot be read: ${describeError(err)} (check that the object store is up, and [vectors] in config.toml)`,
    manual: true,
  };
}

export function emptyStoreFinding(uri: string, embedderId: string, embedded: number): DoctorFinding {
  return {
    problem: `the vectors at ${uri} hold no message vectors of the configured embedder (${embedderId}), but ${embedded} recent message(s) were embedded: semantic search finds nothing until memvoy reindex runs`,
    manual: true,
  };
}

/**
 * Message tables an earlier memvoy made (row ids are addresses) with their vector index built: a removal cannot
 * rewrite what held the removed rows without a rebuild of the index, so their data files keep those vectors.
 * `probe`: embedders whose tables are looked up by name too (an object store's listing can miss them).
 */
export async function earlierTables(store: MessageVectors, probe: readonly string[] = []): Promise<DoctorFinding[]> {
  const out: DoctorFinding[] = [];
  // A table that fails to open is named by storeFindings (or, in an object store, by the commands that use it).
  for (const info of (await store.tables(probe).catch(() => undefined)) ?? []) {
    const t = await store.table(info.embedderId, 0).catch(() => undefined);
    if (!t) continue;
    try {
      if (await t.keepsRemovedRows().catch(() => false))
        out.push({
          problem: `vector table ${info.name} was made by an earlier memvoy: removed messages' vectors stay in its files; memvoy reindex rebuilds it with stable row ids`,
          manual: true,
        });
    } finally {
      t.close();
    }
  }
  return out;
}

async function storeFindings(open: () => Promise<EmbedderTables>): Promise<DoctorFinding[]> {
  const problem = (err: unknown): DoctorFinding => ({ problem: describeError(err), manual: true });
  try {
    const store = await open();
    const out: DoctorFinding[] = (await store.damagedTables()).map((d) => problem(d.error));
    for (const t of await store.tables()) {
      try {
        await store.readThrough(t.embedderId);
      } catch (err) {
        out.push(problem(err));
      }
    }
    return out;
  } catch (err) {
    return err instanceof HomeLinkRefusedError ? [] : [problem(err)]; // a link there is named by checkHome
  }
}
