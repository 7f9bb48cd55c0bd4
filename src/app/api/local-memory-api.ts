// The local MemoryApi: a HomeMemory opened in this process, its results projected onto the JSON shapes.
// Inputs are checked with the same valibot schemas the HTTP routes and MCP tools use.
import type { HomeMemory } from "../memory-api.ts";
import { openMemory as openHome, type OpenOptions } from "../open-memory.ts";
import type { WireMessageInput } from "../wire-input.ts";
import { errorJson, errorSearchJson, messageJson, sessionJson, sortSessions, summaryJson } from "./json-shapes.ts";
import { searchAsJson } from "./search-json.ts";
import type {
  MemoryApi,
  MessageInput,
  ListErrorsInput,
  RecordErrorInput,
  SearchErrorsInput,
  SearchInput,
} from "./memory-api.ts";
import * as S from "./schemas.ts";
import type * as J from "./json-types.ts";

export class LocalMemoryApi implements MemoryApi {
  /**
   * `semantic`: where semantic and hybrid searches run instead of this process (the daemon hands them to
   * its worker child, so that the daemon itself never maps LanceDB).
   */
  constructor(
    readonly home: HomeMemory,
    private readonly semantic?: (input: SearchInput) => Promise<J.SearchResultJson>,
  ) {}

  async add(session: string, messages: MessageInput | readonly MessageInput[]): Promise<J.AddResultJson> {
    const list = Array.isArray(messages) ? messages : [messages as MessageInput];
    const o = S.parseInput(S.AddInput, { session, messages: list }, "add");
    const r = this.home.add(o.session, o.messages as WireMessageInput[]);
    return { session: o.session, ids: r.ids, duplicates: (r as { duplicates?: number }).duplicates ?? 0 };
  }

  async sessions(options: { sort?: "recent" | "name" } = {}): Promise<J.SessionJson[]> {
    const o = S.parseInput(S.SessionsInput, options, "sessions");
    return sortSessions(this.home.sessions(), o.sort).map(sessionJson);
  }

  async history(session: string, options: { all?: boolean; last?: number } = {}): Promise<J.HistoryJson> {
    const o = S.parseInput(S.HistoryInput, { session, ...options }, "history");
    const list = this.home.history(o.session, { all: o.all, ...(o.last !== undefined ? { last: o.last } : {}) });
    return { session: o.session, messages: list.map(messageJson) };
  }

  async search(options: SearchInput): Promise<J.SearchResultJson> {
    const o = S.parseInput(S.SearchInput, options, "search");
    if (this.semantic && o.match !== undefined && o.match !== "keyword") return this.semantic(o);
    return searchAsJson(this.home, o);
  }

  async messages(ids: readonly string[]): Promise<J.MessageJson[]> {
    const o = S.parseInput(S.MessagesInput, { ids: [...ids] }, "messages");
    return this.home.messages(o.ids).map(messageJson);
  }

  async around(id: string, options: { before?: number; after?: number } = {}): Promise<J.AroundJson> {
    const o = S.parseInput(S.AroundInput, { id, ...options }, "around");
    const r = this.home.around(o.id, o.before ?? 5, o.after ?? 5);
    return { anchor: r.anchor.id, session: r.anchor.session, messages: r.messages.map(messageJson) };
  }

  async context(session: string, input?: string): Promise<J.TurnContextJson> {
    const o = S.parseInput(S.ContextInput, input === undefined ? { session } : { session, input }, "context");
    return this.home.context(o.session, o.input);
  }

  async summary(session: string): Promise<J.SummaryJson> {
    const o = S.parseInput(S.SessionInput, { session }, "summary");
    return summaryJson(this.home.summary(o.session));
  }

  async reset(session: string, options: { all?: boolean } = {}): Promise<J.ResetResultJson> {
    const o = S.parseInput(S.ResetInput, { session, ...options }, "reset");
    const r = this.home.reset(o.session, { all: o.all });
    await this.home.purgeDeleted(); // no removed row stays in any LanceDB version
    return r;
  }

  async rm(session: string): Promise<J.ResetResultJson> {
    const o = S.parseInput(S.SessionInput, { session }, "rm");
    const r = this.home.remove(o.session);
    await this.home.purgeDeleted();
    return r;
  }

  async rmMessage(id: string, options: { dropSummary?: boolean } = {}): Promise<J.RemoveMessageResultJson> {
    const o = S.parseInput(S.RmMessageInput, { id, ...options }, "rm-message");
    return this.home.rmMessage(o.id, { dropSummary: o.dropSummary });
  }

  async recordError(input: RecordErrorInput): Promise<J.RecordErrorResultJson> {
    const o = S.parseInput(S.RecordErrorInput, input, "errors record");
    const r = await this.home.recordError(o);
    return { record: errorJson(r.record), merged: r.merged, redacted: r.redacted, notes: r.notes };
  }

  async searchErrors(input: SearchErrorsInput): Promise<J.ErrorSearchResultJson> {
    const o = S.parseInput(S.SearchErrorsInput, input, "errors search");
    return errorSearchJson(o.tool, await this.home.searchErrors(o));
  }

  async listErrors(input: ListErrorsInput = {}): Promise<J.ErrorListJson> {
    const o = S.parseInput(S.ListErrorsInput, input, "errors list");
    const r = this.home.listErrors(o);
    return { records: r.records.map(errorJson), total: r.total };
  }

  async getError(id: string): Promise<J.ErrorRecordJson> {
    const o = S.parseInput(S.ErrorIdInput, { id }, "errors show");
    return errorJson(this.home.getError(o.id));
  }

  async rmError(id: string): Promise<J.RemoveErrorResultJson> {
    const o = S.parseInput(S.ErrorIdInput, { id }, "errors rm");
    const r = await this.home.removeError(o.id);
    return { removed: errorJson(r.removed), notes: r.notes };
  }

  async close(): Promise<void> {
    // A background embedding drain still holds LanceDB: let it finish before the tables close.
    await this.home.flushEmbeddings();
    this.home.close();
  }
}

export type MemoryOptions = Pick<OpenOptions, "home" | "env">;

/** Open a home in this process as a MemoryApi (`import { openMemory } from "memvoy"`). */
export function openMemoryApi(options: MemoryOptions = {}): MemoryApi {
  return new LocalMemoryApi(openHome({ home: options.home, env: options.env }));
}
