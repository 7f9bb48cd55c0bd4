// summarize: run Generate on one session, or on every due session. The API key is checked before anything
// is touched; an error no retry can fix (a refused key, an unknown model) stops the batch, while a session whose
// files memvoy refuses or may not read fails alone.
import { describeError } from "../../shared/describe-error.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { NotAFileError, SessionFolderAliasError, SymlinkRefusedError } from "../../storage/history/no-symlink.ts";
import type { MemoryContext } from "../memory-context.ts";
import { UnknownSessionError, sessionExists } from "../session-admin.ts";
import { discoverSessions } from "../sessions-list.ts";
import { dueSessions } from "./due-sessions.ts";
import { generateSession } from "./generate.ts";
import { openLlm } from "./llm-access.ts";
import {
  emptySessionReport,
  type SessionReport,
  type SummarizeOptions,
  type SummarizeReport,
} from "./summary-report.ts";

export async function summarize(
  ctx: MemoryContext,
  session: string | undefined,
  o: SummarizeOptions = {},
): Promise<SummarizeReport> {
  let targets: string[];
  if (session !== undefined) {
    assertSessionId(session);
    if (!sessionExists(ctx, session)) throw new UnknownSessionError({ session, home: ctx.paths.home });
    targets = [session];
  } else {
    discoverSessions(ctx);
    targets = dueSessions(ctx);
  }
  if (targets.length === 0) return { sessions: [] };
  openLlm(ctx); // MissingApiKeyError here, before any file or row changes
  return summarizeEach(
    targets,
    o,
    (id) => generateSession(ctx, id, (meter) => openLlm(ctx, meter, o.onWarning), o),
    session === undefined ? ctx.paths.session : undefined,
  );
}

/**
 * Run `one` on each session in turn: after an abort, or an error no retry can fix (a refused key, an unknown
 * model), the rest are reported as skipped.
 */
export async function summarizeEach(
  targets: readonly string[],
  o: SummarizeOptions,
  one: (session: string) => Promise<SessionReport>,
  batchIn?: (session: string) => string,
): Promise<SummarizeReport> {
  const sessions: SessionReport[] = [];
  let stop: string | undefined;
  for (const id of targets) {
    if (o.signal?.aborted) stop ??= "the run was aborted";
    if (stop) {
      sessions.push(emptySessionReport(id, "skipped", [stop]));
      continue;
    }
    const report = batchIn ? await oneOfBatch(id, batchIn(id), one) : await one(id);
    sessions.push(report);
    if (report.failure?.fatal) stop = `not run: ${report.failure.message}`;
  }
  return { sessions };
}

/**
 * One session of a batch (every due session, `dir` its folder): a session whose files memvoy refuses (a link, a file
 * where its folder belongs, a pipe) or may not read (another user's) fails on its own, named in its report, and the
 * batch goes on with the other sessions.
 */
async function oneOfBatch(
  id: string,
  dir: string,
  one: (session: string) => Promise<SessionReport>,
): Promise<SessionReport> {
  try {
    return await one(id);
  } catch (err) {
    if (!refusedSessionFiles(err, dir)) throw err;
    return { ...emptySessionReport(id, "failed"), error: describeError(err) };
  }
}

function refusedSessionFiles(err: unknown, dir: string): boolean {
  if (err instanceof SymlinkRefusedError || err instanceof NotAFileError || err instanceof SessionFolderAliasError)
    return true;
  const e = err as NodeJS.ErrnoException | null;
  const inSession = typeof e?.path === "string" && (e.path === dir || e.path.startsWith(`${dir}/`));
  return inSession && (e.code === "ENOTDIR" || e.code === "EACCES" || e.code === "EPERM");
}
