// The two status rows' state: what the home holds, plus a message (progress, outcome) and the last error.
import { describeError } from "../../shared/describe-error.ts";

export type MessageKind = "info" | "ok" | "busy" | "error";

export interface HomeInfo {
  home: string;
  /** undefined while the daemon's state cannot be told. */
  daemon?: "running" | "stopped";
  embedder: string;
  sessions: number;
  messages: number;
  /** Error-memory records; undefined when not known. */
  errors?: number;
}

export class StatusState {
  info: HomeInfo = { home: "", embedder: "", sessions: 0, messages: 0 };
  message: { text: string; kind: MessageKind } | undefined;
  lastError: string | undefined;

  show(text: string, kind: MessageKind = "info"): void {
    this.message = { text, kind };
    if (kind === "error") this.lastError = text;
  }

  error(err: unknown): void {
    this.show(describeError(err), "error");
  }

  /** Drop a transient message (the last error stays on the info row). */
  clearMessage(): void {
    if (this.message?.kind !== "busy") this.message = undefined;
  }
}
