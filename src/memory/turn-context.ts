// The turn context an agent sends to its model: the last N messages in full, then ONE user message holding
// the `Prior summary` JSON block (filtered per turn by the decision model when one is set), then the input;
// plus the system prompt's `Prior Conversation Context` section that says how to use the summary.
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import type { ContextMessage } from "../shared/context-message.ts";
import { nsToRfc3339 } from "../shared/time.ts";
import { describeError, isSystemFailure } from "../shared/describe-error.ts";
import type { MemoryContext } from "./memory-context.ts";
import { readSessionHistory } from "./history-view.ts";
import { sessionExists } from "./session-admin.ts";
import { assertSessionId } from "../shared/session-id.ts";
import { PROMPTS, fenceFor, fill } from "./summary/prompts.ts";
import { homeLedger } from "./summary/llm-access.ts";
import { filterRelevant, type RelevanceReport } from "./summary/relevance-filter.ts";
import { readSummary } from "./summary/summary-store.ts";
import { summaryIsEmpty, type Summary, type SummaryFile } from "./summary/summary-types.ts";
import type { StoredMessage } from "../shared/message.ts";

export type { ContextMessage };

export interface TurnContext {
  session: string;
  /** In the order they go to the model. */
  messages: ContextMessage[];
  /** The system prompt's `Prior Conversation Context` section ("" when no summary is sent this turn). */
  system: string;
  /** How the relevance filter treated the summary (absent when the session has no summary). */
  summaryFilter?: RelevanceReport;
  /** Set when the session does not exist yet (an agent's first turn): the window is empty. */
  newSession?: true;
  /** Why summary.json could not be read ("not valid JSON"): the summary is left out until a run rebuilds it. */
  summaryProblem?: string;
}

export async function buildTurnContext(ctx: MemoryContext, session: string, input?: string): Promise<TurnContext> {
  // A session with no messages yet (an agent's first turn) has an empty window, not an error.
  assertSessionId(session);
  refuseSessionSymlinks(ctx.paths.session(session));
  const exists = sessionExists(ctx, session);
  const recent = exists ? readSessionHistory(ctx, session) : [];
  return assembleTurnContext(session, { exists, recent, summary: summaryForTurn(ctx, session) }, input, (s) =>
    filterRelevant(homeLedger(ctx), session, s, input, recent),
  );
}

/**
 * summary.json for a turn: one that cannot be opened (a folder in its place, a file this user may not read) costs
 * the turn its summary, said in summaryProblem, as one that does not parse does; the messages still go.
 */
function summaryForTurn(ctx: MemoryContext, session: string): SummaryFile {
  try {
    return readSummary(ctx, session);
  } catch (err) {
    if (!isSystemFailure(err)) throw err;
    return { state: "corrupt", detail: describeError(err) };
  }
}

/** What a turn context is built from, wherever it was read. */
export interface TurnParts {
  exists: boolean;
  recent: readonly StoredMessage[];
  summary: SummaryFile;
}

/** The turn context of these parts; `filter` decides which summary entries go this turn. */
export async function assembleTurnContext(
  session: string,
  parts: TurnParts,
  input: string | undefined,
  filter: (summary: Summary) => Promise<{ summary: Summary | undefined; report: RelevanceReport }>,
): Promise<TurnContext> {
  const messages: ContextMessage[] = parts.recent.map((m) => {
    const c: ContextMessage = {
      id: m.id,
      role: m.role,
      content: m.content,
      sendAt: nsToRfc3339(m.sendAt),
      kind: "history",
    };
    if (m.sender !== undefined) c.sender = m.sender;
    return c;
  });
  const out: TurnContext = { session, messages, system: "" };
  if (!parts.exists) out.newSession = true;
  const file = parts.summary;
  if (file.state === "corrupt") out.summaryProblem = file.detail;
  if (file.state === "ok" && !(summaryIsEmpty(file.summary) && Object.keys(file.legacy).length === 0)) {
    const { summary, report } = await filter(file.summary);
    out.summaryFilter = report;
    if (summary) {
      const block = JSON.stringify({ ...summary, ...file.legacy }, null, 2);
      const content = fill(PROMPTS.priorSummaryTurn, { SUMMARY: block, FENCE: fenceFor(block) });
      messages.push({ role: "user", content, kind: "summary" });
      out.system = PROMPTS.priorContextSystem;
    }
  }
  if (input !== undefined && input !== "") messages.push({ role: "user", content: input, kind: "input" });
  return out;
}
