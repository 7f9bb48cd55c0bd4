// The error-memory browser: the live records, or the hits of a search; selection; the detail toggle;
// a search field that takes typing only while it is active.
import { QueryInput } from "./query-input.ts";
import type { ErrorList, ErrorRecord, ErrorSearchResult } from "../api-types.ts";
import { ListCursor } from "./list-cursor.ts";

export interface ErrorRow {
  record: ErrorRecord;
  /** Search relevance (search results only). */
  score?: number;
}

export class ErrorMemoryState extends QueryInput {
  rows: ErrorRow[] = [];
  /** Live records in the home (the list shows at most the list limit). */
  total = 0;
  /** The search field has the keyboard. */
  typing = false;
  /** What the rows are: the plain list, or the hits for a query. */
  showing: { kind: "list" } | { kind: "search"; query: string } = { kind: "list" };
  detail = false;
  notes: string[] = [];
  readonly cursor = new ListCursor();
  private seq = 0;

  setList(list: ErrorList): void {
    this.total = list.total;
    this.showing = { kind: "list" };
    this.notes = [];
    this.setRows(list.records.map((record) => ({ record })));
  }

  /** The query of the search under way, until its answer (or failure) arrives. */
  searching: string | undefined;

  /** A ticket for a search of `query`; only the latest one's answer is taken. */
  nextSearch(query: string): number {
    this.searching = query;
    return ++this.seq;
  }

  /** The search with this ticket failed. */
  searchFailed(ticket: number): void {
    if (ticket === this.seq) this.searching = undefined;
  }

  /** The plain list is wanted (the query was cleared): an answer to a search under way is no longer taken. */
  dropSearch(): void {
    this.seq++;
    this.searching = undefined;
  }

  setSearch(ticket: number, query: string, result: ErrorSearchResult): boolean {
    if (ticket !== this.seq) return false;
    this.searching = undefined;
    this.showing = { kind: "search", query };
    this.notes = [...result.notes];
    if (result.notEmbedded > 0)
      this.notes.push(`${result.notEmbedded} record(s) not embedded yet: found by keyword only`);
    this.setRows(result.hits.map((h) => ({ record: h.record, score: h.score })));
    return true;
  }

  selected(): ErrorRecord | undefined {
    return this.rows[this.cursor.selected]?.record;
  }

  /** Drop a removed record without reloading. */
  forget(id: string): void {
    const at = this.rows.findIndex((r) => r.record.id === id);
    if (at < 0) return;
    this.rows.splice(at, 1);
    this.total = Math.max(0, this.total - 1);
    this.cursor.setCount(this.rows.length);
  }

  private setRows(rows: ErrorRow[]): void {
    const keep = this.selected()?.id;
    this.rows = rows;
    this.cursor.setCount(rows.length);
    const at = keep ? rows.findIndex((r) => r.record.id === keep) : -1;
    this.cursor.select(at >= 0 ? at : 0);
    if (rows.length === 0) this.detail = false;
  }
}
