// Native values (bigint ns times, class-free records) projected onto the JSON shapes of json-types.ts.
// The CLI's --json output and every MemoryApi implementation use these, so the shapes cannot drift.
import type { StoredMessage } from "../../shared/message.ts";
import { nsToRfc3339 } from "../../shared/time.ts";
import type { SearchHit, SearchResult } from "../../search/search-types.ts";
import type { SessionInfo } from "../../memory/sessions-list.ts";
import type { ErrorRecord } from "../../memory/error-memory/error-record.ts";
import type { ErrorSearchResult } from "../../memory/error-memory/search-errors.ts";
import type { SummaryView } from "../../memory/summary/summary-view.ts";
import type {
  ErrorRecordJson,
  ErrorSearchResultJson,
  MessageJson,
  SearchHitJson,
  SearchResultJson,
  SessionJson,
  SummaryJson,
} from "./json-types.ts";

export function messageJson(m: StoredMessage): MessageJson {
  const o: MessageJson = {
    id: m.id,
    session: m.session,
    role: m.role,
    content: m.content,
    sendAt: nsToRfc3339(m.sendAt),
  } as MessageJson;
  if (m.sender !== undefined) o.sender = m.sender;
  o.tier = m.recent ? "recent" : "archive";
  return o;
}

export function hitJson(h: SearchHit): SearchHitJson {
  const o: SearchHitJson = {
    ...messageJson(h.message),
    source: h.source,
    score: h.score,
    snippet: h.snippet,
    highlights: h.highlights,
  };
  if (h.foundBy) o.foundBy = h.foundBy;
  if (h.rank !== undefined) o.rank = h.rank;
  if (h.context) o.context = h.context.map((c) => ({ ...messageJson(c), hit: c.id === h.message.id }));
  return o;
}

export function searchJson(query: string, r: SearchResult): SearchResultJson {
  const o: SearchResultJson = {
    query,
    hits: r.hits.map(hitJson),
    notIndexed: r.notIndexed ?? 0,
    reindexNeeded: r.reindexNeeded ?? false,
    notes: r.notes,
  };
  if (r.emptyReason !== undefined) o.emptyReason = r.emptyReason;
  return o;
}

/** Imported sessions also carry where they came from (source, title, project, parent) when known. */
type ImportedFacts = { source?: string; title?: string; project?: string; parent?: string };

export function sessionJson(s: SessionInfo): SessionJson {
  const o: SessionJson = {
    id: s.id,
    messages: s.messages,
    lastActivity: s.lastActivity ? nsToRfc3339(s.lastActivity) : null,
    hasSummary: s.hasSummary,
  };
  const facts = s as SessionInfo & ImportedFacts;
  for (const k of ["source", "title", "project", "parent"] as const) if (typeof facts[k] === "string") o[k] = facts[k];
  return o;
}

/** Newest activity first (ties by id), or by id. */
export function sortSessions<T extends { id: string; lastActivity: bigint }>(
  list: T[],
  sort: "recent" | "name" = "recent",
): T[] {
  return list.sort((a, b) =>
    sort === "name" ? a.id.localeCompare(b.id) : Number(b.lastActivity - a.lastActivity) || a.id.localeCompare(b.id),
  );
}

export function errorJson(r: ErrorRecord): ErrorRecordJson {
  return {
    id: r.id,
    tool: r.tool,
    error: r.error,
    cause: r.cause ?? null,
    fix: r.fix,
    outcome: r.outcome,
    keywords: r.keywords,
    createdAt: nsToRfc3339(r.createdAt),
    updatedAt: nsToRfc3339(r.updatedAt),
    lastHitAt: r.lastHitAt !== undefined ? nsToRfc3339(r.lastHitAt) : null,
    expiresAt: nsToRfc3339(r.expiresAt),
    hits: r.hits,
    occurrences: r.occurrences,
    embedded: r.embedded,
  };
}

export function errorSearchJson(tool: string | undefined, r: ErrorSearchResult): ErrorSearchResultJson {
  return {
    tool: tool ?? null,
    hits: r.hits.map((h) => ({ ...errorJson(h.record), score: h.score, matchedBy: h.matchedBy })),
    notEmbedded: r.notEmbedded,
    notes: r.notes,
  };
}

export function summaryJson(v: SummaryView): SummaryJson {
  const out: Record<string, unknown> = { session: v.session, state: v.state, summary: v.summary ?? null };
  if (v.legacy) out.legacy = v.legacy;
  if (v.problem) out.problem = v.problem;
  out.cursor = v.cursor ?? null;
  if (v.cursorProblem) out.cursorProblem = v.cursorProblem;
  out.position = v.position ? { seq: Number(v.position.seq), id: v.position.id } : null;
  out.lastRun = v.lastRun
    ? {
        ...v.lastRun,
        startedAt: nsToRfc3339(v.lastRun.startedAt),
        finishedAt: v.lastRun.finishedAt !== undefined ? nsToRfc3339(v.lastRun.finishedAt) : null,
      }
    : null;
  out.usage = v.usage;
  out.due = v.due;
  return out as unknown as SummaryJson;
}
