// What a screen of the TUI can use: the API, the theme and boxes, the status rows, and app-level actions.
import type { TuiMemory } from "../api-types.ts";
import type { Maybe } from "./maybe.ts";
import type { StatusState } from "../state/status-state.ts";
import type { Theme } from "../theme.ts";
import type { Layout } from "../views/layout.ts";

/** A key as blessed reports it. */
export interface Key {
  name?: string;
  full?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  sequence?: string;
}

export type OverlayName = "search" | "help" | "summary" | "error-memory" | "first-run";

export interface Confirmation {
  title: string;
  lines: string[];
  onYes: () => void | Promise<void>;
}

export interface AppContext {
  readonly api: TuiMemory;
  readonly theme: Theme;
  readonly layout: Layout;
  readonly status: StatusState;
  /** Clock for display (UTC ns). */
  now(): bigint;
  render(): void;
  open(overlay: OverlayName): void;
  close(): void;
  confirm(c: Confirmation): void;
  /** Run an action; an error goes to the status rows instead of ending the program. */
  guard(fn: () => void): void;
  guardAsync(p: Promise<unknown>): void;
  /** Work the user confirmed (a deletion's vector purge): a quit lets it finish after giving the terminal back. */
  underway(p: Promise<unknown>): void;
  /**
   * Run the confirmed deletion `what` once no other process holds the home's writer lock, said on the status row
   * when the wait lasts; until it starts, an end forced by a signal drops it whole, and once started it completes.
   */
  deleting<T>(what: string, run: () => Maybe<T>): Promise<T>;
  /** Show a session in the main view, optionally centred on a message. */
  openSession(id: string, messageId?: string): void;
  /** Re-read sessions and counts from disk (a shared memory: from the archive; the promise never rejects). */
  reload(): void | Promise<void>;
  /**
   * Use a value the memory returned: `then` runs at once for a plain value, else on arrival followed by a
   * render; a failure goes to `fail` (by default the status row).
   */
  settle<T>(value: Maybe<T>, then: (v: T) => void, fail?: (err: unknown) => void): void | Promise<void>;
  /**
   * Run a read of the sessions (or of `session`) that would wait for another process's writer lock only once that
   * lock is free, without holding the keys up meanwhile.
   */
  unblocked<T>(session: string | undefined, read: () => Maybe<T>): Maybe<T>;
  selectedSession(): string | undefined;
  /** The session shown in the history pane: its history.json is watched for other programs' writes. */
  watchSession(id: string | undefined): void;
  /** Show a text in $PAGER (o); `what` names it on the status row. */
  page(text: string, what: string): void;
  /** Put a text on the clipboard through OSC 52 (y), with a confirmation on the status row. */
  copy(text: string, what: string): void;
  quit(): void;
}

/** The open and copy keys: `pageText` to $PAGER, or `copyText` (by default the same) to the clipboard. */
export function pageOrCopy(
  app: AppContext,
  toPager: boolean,
  what: string,
  pageText: string,
  copyText = pageText,
): void {
  if (toPager) app.page(pageText, what);
  else app.copy(copyText, what);
}

/** Printable text typed by the user (not a control or navigation key). */
export function typedText(ch: string | undefined, key: Key): string | undefined {
  if (!ch || key.ctrl || key.meta) return undefined;
  if (["enter", "return", "tab", "escape", "backspace", "delete", "linefeed"].includes(key.name ?? ""))
    return undefined;
  return /^[\x00-\x1f\x7f]/.test(ch) ? undefined : ch;
}
