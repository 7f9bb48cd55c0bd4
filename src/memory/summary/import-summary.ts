// Import a summary written elsewhere (a migration, the demo home): it must pass the strict summary.json
// schema; it is saved with the cursor at the session's newest message and recorded as an "imported" run
// that made no LLM call, so the next Generate carries on from there.
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import * as v from "valibot";
import { namedError } from "../../shared/errors.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import type { MemoryContext } from "../memory-context.ts";
import { UnknownSessionError, sessionExists } from "../session-admin.ts";
import { StrictSummarySchema } from "./summary-schema.ts";
import { describeIssueFacts, issueFacts, type IssueFact } from "../../shared/schema-issues.ts";
import { SummaryStore } from "./summary-store.ts";

/** A summary given to import fails the strict schema, or its session has no messages for it to stand for. */
export const InvalidSummaryInputError = namedError<
  { problem: "invalid"; issues: IssueFact[] } | { problem: "no-messages"; session: string }
>("InvalidSummaryInputError", "input", (d) =>
  d.problem === "invalid"
    ? `summary: ${describeIssueFacts(d.issues)}`
    : `session ${d.session} has no messages: a summary needs messages to stand for`,
);
export type InvalidSummaryInputError = InstanceType<typeof InvalidSummaryInputError>;

/** A Generate run holds the session's summary lock: an import must wait for it. */
export const SummaryBusyError = namedError<{ session: string }>(
  "SummaryBusyError",
  "runtime",
  (d) => `session ${d.session} is being summarized right now; try again when it is done`,
);
export type SummaryBusyError = InstanceType<typeof SummaryBusyError>;

export interface ImportSummaryResult {
  session: string;
  /** The cursor written with it (local `YYYY-MM-DD HH:MM:SS`). */
  cursor: string;
}

export function importSummary(ctx: MemoryContext, session: string, raw: unknown): ImportSummaryResult {
  assertSessionId(session);
  refuseSessionSymlinks(ctx.paths.session(session));
  if (!sessionExists(ctx, session)) throw new UnknownSessionError({ session, home: ctx.paths.home });
  const parsed = v.safeParse(StrictSummarySchema, raw);
  if (!parsed.success)
    throw new InvalidSummaryInputError({
      problem: "invalid",
      issues: issueFacts(parsed.issues, { topLevel: "(top level)" }),
    });
  const store = new SummaryStore(ctx, session);
  const newest = store.newestPosition();
  if (!newest) throw new InvalidSummaryInputError({ problem: "no-messages", session });
  const release = store.lock();
  if (!release) throw new SummaryBusyError({ session });
  try {
    store.begin();
    store.save(parsed.output, newest);
    store.finish("imported", { chunksDone: 0, chunksTotal: 0, calls: 0, inputTokens: 0, outputTokens: 0 });
    return { session, cursor: newest.cursor };
  } finally {
    release();
  }
}
