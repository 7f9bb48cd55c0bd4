// An import target for a home that does not exist yet: it reads as an empty home and creates the home at the first
// write, so an import that stores nothing (an empty file, another tool's file) leaves the path as it was.
import type { HomeMemory } from "./memory-api.ts";
import type { ImportTarget, ImportWriter } from "./import-target.ts";

export interface ClosableImportTarget extends ImportTarget {
  close(): void;
}

/** `empty`: the home read as an empty one (opened read-only); `create`: opens (and creates) the real home. */
export function createOnWrite(empty: HomeMemory, create: () => HomeMemory): ClosableImportTarget {
  let home: HomeMemory | undefined;
  let failed: unknown;
  const real = () => {
    if (failed !== undefined) throw failed;
    if (!home) {
      try {
        home = create();
      } catch (err) {
        failed = err;
        throw err;
      }
      empty.close();
    }
    return home.imports;
  };
  const now = () => (home ?? empty).imports;
  const imports: ImportWriter = {
    get vectors() {
      return now().vectors;
    },
    embedAdded: () => home?.imports.embedAdded(),
    endPass: (progress) => (home ? home.imports.endPass(progress) : Promise.resolve()),
    write: (session, records, meta, options = {}) =>
      records.length > 0 && !options.dryRun
        ? real().write(session, records, meta, options)
        : now().write(session, records, meta, options),
    setMeta: (session, meta) => real().setMeta(session, meta),
    meta: (session) => now().meta(session),
    holds: (session) => now().holds(session),
    messageIds: (session) => now().messageIds(session),
    removeMessage: (session, id) => real().removeMessage(session, id),
    fileState: (source, path) => now().fileState(source, path),
    // A file that gave nothing to store is read again next time rather than creating the home for its state.
    saveFileState: (source, path, state) => home?.imports.saveFileState(source, path, state),
    exportSessions: (options) => now().exportSessions(options),
    exportLines: (s) => now().exportLines(s),
    openForeign: (path) => now().openForeign(path),
  };
  return {
    imports,
    purgeDeleted: () => (home ? home.purgeDeleted() : Promise.resolve()),
    checkInPlace: () => home?.checkInPlace(),
    cannotWrite: () => failed,
    close: () => (home ?? empty).close(),
  };
}
