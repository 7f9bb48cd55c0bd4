// The archive port's backends for the shared suites: the embedded SQLite archive (a temp file) and the
// PostgreSQL archive (a fresh database on a throwaway cluster, one cluster per test file).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArchivePort } from "../../src/storage/ports/archive-port.ts";
import { openPgArchive } from "../../src/storage/postgres/open-pg-archive.ts";
import { openSqliteArchive } from "../../src/storage/sqlite/sqlite-archive.ts";
import { postgresMissing, startPostgres, type PgServer } from "../fixture/postgres-server.ts";

export interface Backend {
  name: "sqlite" | "postgres";
  /** A fresh, empty archive (a second call gives another one). */
  open(): Promise<ArchivePort>;
  /** Another connection to the archive `open` returned last (a second host or process). */
  reopen(): Promise<ArchivePort>;
  /** What a worker process opens to reach that archive: the database file or the URL. */
  target(): string;
  cleanup(): Promise<void>;
}

let dbSerial = 0;

export function sqliteBackend(): Backend {
  const dirs: string[] = [];
  const ports: ArchivePort[] = [];
  let last = "";
  const open = async (path: string) => {
    const p = openSqliteArchive(path);
    ports.push(p);
    return p;
  };
  return {
    name: "sqlite",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "memvoy-archive-"));
      dirs.push(dir);
      last = join(dir, ".store", "history.db");
      return open(last);
    },
    reopen: () => open(last),
    target: () => last,
    async cleanup() {
      for (const p of ports.splice(0)) await p.close();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

export function postgresBackend(): Backend {
  let server: PgServer | undefined;
  const ports: ArchivePort[] = [];
  let last = "";
  const open = async (url: string) => {
    const p = await openPgArchive(url);
    ports.push(p);
    return p;
  };
  return {
    name: "postgres",
    async open() {
      server ??= await startPostgres();
      last = await server.createDatabase(`archive_${process.pid}_${dbSerial++}`);
      return open(last);
    },
    reopen: () => open(last),
    target: () => last,
    async cleanup() {
      for (const p of ports.splice(0)) await p.close().catch(() => {});
      await server?.stop();
      server = undefined;
    },
  };
}

/** Both backends; PostgreSQL only where it is installed (CI=true makes its absence a failure, see describePostgres). */
export function backends(): Backend[] {
  const missing = postgresMissing();
  if (missing && process.env.CI === "true") throw new Error(`CI=true but ${missing}`);
  if (missing) console.warn(`archive suites run on SQLite only: ${missing}`);
  return missing ? [sqliteBackend()] : [sqliteBackend(), postgresBackend()];
}
