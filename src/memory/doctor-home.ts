// doctor's checks of the home outside the sessions: a symbolic link where memvoy keeps a lock file, its logs or
// the vector store (refused by every command that opens them), a named pipe, socket or device at a lock file or
// log (refused likewise), an entry of sessions/ named like a session that is
// no folder (a file blocks that session; a link is never followed), and a session folder named like no session. --repair removes a linked lock file,
// log or cache (the link only: memvoy creates it again) or a pipe there, temp files of writers killed mid-write, and moves a stray
// file out of sessions/.
import { existsSync, lstatSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { dirEntries } from "../shared/dir-entries.ts";
import { HomeLinkRefusedError } from "../shared/no-follow.ts";
import { isSessionId } from "../shared/session-id.ts";
import { nsToRfc3339 } from "../shared/time.ts";
import { configuredEmbedderId } from "../embed/create-embedder.ts";
import { refuseLinkedTables } from "../storage/lance/linked-tables.ts";
import { queuedCount, recentCount } from "../storage/sqlite/embed-queue-repo.ts";
import { countEmbeddedBy } from "../storage/sqlite/error-memory-repo.ts";
import { embedderTableName, ERROR_TABLES } from "../storage/lance/embedder-tables.ts";
import { removeStaleTempFiles, staleTempFiles } from "../shared/stale-temp-files.ts";
import type { DoctorFinding } from "./doctor-finding.ts";
import { messageVectorFolders } from "./vector-folders.ts";
import { modeFindings } from "./doctor-modes.ts";
import type { MemoryContext } from "./memory-context.ts";

/**
 * What memvoy creates again when it is missing, relative to the home: the files it locks or appends to in place
 * (refused as links, see no-follow.ts), the relevance cache and the daemon's state (not used as links).
 */
const RECREATED = [
  ".store/write.lock",
  ".store/embed.lock",
  ".store/embed.wait",
  ".store/reindex.lock",
  ".store/llm-budget.lock",
  ".store/relevance",
  "daemon.lock",
  "daemon.log",
  "daemon.state.json",
  "tui.log",
] as const;

/** What the checks read: the embedded home's context, or a shared home's (no local archive: its vectors are remote). */
export type HomeCheckContext = Pick<MemoryContext, "paths" | "config" | "now"> & { readonly db?: MemoryContext["db"] };

export interface HomeCheck {
  findings: DoctorFinding[];
  /** Entries of sessions/ that are no folder and are still there: their sessions are not checked further. */
  blocked: Set<string>;
}

export function checkHome(ctx: HomeCheckContext, repair: boolean): HomeCheck {
  const findings = [...linkedFiles(ctx, repair), ...homeTempFiles(ctx, repair), ...vectorFindings(ctx)];
  const blocked = new Set<string>();
  for (const e of dirEntries(ctx.paths.sessions)) {
    if (e.isDirectory() && !isSessionId(e.name)) findings.push(...misnamedFolder(ctx, e.name));
    if (e.isDirectory() || !isSessionId(e.name)) continue; // .DS_Store and other hidden names are no session
    const path = ctx.paths.session(e.name);
    if (e.isSymbolicLink()) {
      blocked.add(e.name);
      findings.push({
        session: e.name,
        problem: `${path} is a symbolic link: memvoy does not follow it; replace it with the real folder`,
        manual: true,
      });
      continue;
    }
    const f: DoctorFinding = {
      session: e.name,
      problem: `${path} is a file where memvoy keeps the session's folder: commands on session ${e.name} fail`,
    };
    if (repair) {
      const aside = join(ctx.paths.home, `${e.name}.stray-${nsToRfc3339(ctx.now()).replace(/[:.]/g, "")}`);
      renameSync(path, aside);
      f.repaired = `moved it to ${aside}`;
    } else blocked.add(e.name);
    findings.push(f);
  }
  findings.push(...modeFindings(ctx, repair)); // after a stray file left sessions/: it is the user's
  return { findings, blocked };
}

/**
 * A folder of sessions/ holding a history.json under a name that is no session id ("my notes", "chat:42", "ünï"):
 * no command reads it, so its messages are nowhere to be seen. Hidden names (Agenvoy's .Trash) are left alone.
 */
function misnamedFolder(ctx: HomeCheckContext, name: string): DoctorFinding[] {
  if (name.startsWith(".") || !lstatSync(join(ctx.paths.sessions, name, "history.json"), { throwIfNoEntry: false }))
    return [];
  return [
    {
      problem: `${join(ctx.paths.sessions, name)} holds a history.json, but ${JSON.stringify(name)} is no session id, so memvoy never reads it: rename the folder to 1-128 characters of A-Z a-z 0-9 . _ - (not starting with ".")`,
      manual: true,
    },
  ];
}

/**
 * Temp files a process killed mid-write left beside the home's own files (daemon.state.json, http.json, which
 * holds the daemon's token, the caches in .store): removed with --repair, as the sessions' are.
 */
function homeTempFiles(ctx: HomeCheckContext, repair: boolean): DoctorFinding[] {
  return [ctx.paths.home, join(ctx.paths.home, ".store")].flatMap((dir) => {
    const temps = staleTempFiles(dir);
    if (temps.length === 0) return [];
    const f: DoctorFinding = {
      problem: `${temps.length} temp file(s) left by a writer that died in ${dir}: ${temps.join(", ")}`,
    };
    if (repair) f.repaired = `removed ${removeStaleTempFiles(dir).length} temp file(s)`;
    return [f];
  });
}

function linkedFiles(ctx: HomeCheckContext, repair: boolean): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  for (const name of RECREATED) {
    const path = join(ctx.paths.home, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    const folder = name === ".store/relevance";
    // The kind memvoy keeps there: a folder in the way of a lock file fails every write (and the other way round).
    if (st && !st.isSymbolicLink() && st.isDirectory() !== folder) {
      out.push({
        problem: `${path} is a ${folder ? "file where memvoy keeps a folder" : "folder where memvoy keeps a file"}: move it aside`,
        manual: true,
      });
      continue;
    }
    if (st && !st.isSymbolicLink() && !st.isDirectory() && !st.isFile()) {
      // Opening a named pipe with no reader would hold every command that locks or logs there.
      const f: DoctorFinding = {
        problem: `${path} is not a regular file (a named pipe, socket or device): commands that lock or log there refuse it`,
      };
      if (repair) {
        rmSync(path);
        f.repaired = "removed it (memvoy creates the file again)";
      }
      out.push(f);
      continue;
    }
    if (!st?.isSymbolicLink()) continue;
    const f: DoctorFinding = { problem: `${path} is a symbolic link: memvoy does not follow it` };
    if (repair) {
      rmSync(path); // the link itself; what it points to is left alone
      f.repaired = "removed the link (memvoy creates it again; what it pointed to is untouched)";
    }
    out.push(f);
  }
  return out;
}

/** A link in the local vector store, or a store without message vectors where the archive says some were made. */
function vectorFindings(ctx: HomeCheckContext): DoctorFinding[] {
  const db = ctx.db;
  if (ctx.config.vectors.uri || !db) return []; // the vectors are in an object store
  try {
    refuseLinkedTables(ctx.paths.lance);
  } catch (err) {
    if (!(err instanceof HomeLinkRefusedError)) throw err;
    return [
      {
        problem: `${err.data.path} is a symbolic link: semantic search and embedding refuse it; put what it points to in its place`,
        manual: true,
      },
    ];
  }
  const lance = lstatSync(ctx.paths.lance, { throwIfNoEntry: false });
  if (lance && !lance.isDirectory())
    return [{ problem: `${ctx.paths.lance} is a file where memvoy keeps a folder: move it aside`, manual: true }];
  // Cheap, without LanceDB: no table folder at all (the store deleted, or left out of a backup), or none of the
  // configured embedder (its config changed since the vectors were made).
  const out = errorVectorFindings(ctx, db);
  const folders = messageVectorFolders(ctx.paths.lance, ctx.config.embedder);
  const embedded = recentCount(db) - queuedCount(db);
  if (embedded <= 0) return out;
  if (folders.none)
    out.push({
      problem: `${ctx.paths.lance} holds no message vectors, but ${embedded} recent message(s) were embedded: semantic search finds nothing until memvoy reindex runs`,
      manual: true,
    });
  else if (folders.configured === false)
    out.push({
      problem: `the message vectors in ${ctx.paths.lance} come from another embedder than the configured one (${configuredEmbedderId(ctx.config.embedder) ?? `${ctx.config.embedder.provider}:${ctx.config.embedder.model}`}): semantic search finds nothing until memvoy reindex runs`,
      manual: true,
    });
  return out;
}

/** Error records the archive says the configured embedder embedded, while its error table's folder is gone. */
function errorVectorFindings(ctx: HomeCheckContext, db: NonNullable<HomeCheckContext["db"]>): DoctorFinding[] {
  const id = configuredEmbedderId(ctx.config.embedder);
  if (id === undefined) return [];
  const embedded = countEmbeddedBy(db, id, ctx.now());
  if (embedded === 0 || existsSync(join(ctx.paths.lance, `${embedderTableName(ERROR_TABLES, id)}.lance`))) return [];
  return [
    {
      problem: `${ctx.paths.lance} holds no error-memory vectors of ${id}, but ${embedded} error record(s) were embedded: the next errors search embeds them again (or run memvoy reindex)`,
      manual: true,
    },
  ];
}
