// What went wrong between a client and the daemon's HTTP API: the data a RemoteError carries.
export type RemoteFailure =
  | { problem: "unreachable"; base: string; reason: string }
  /** No answer within the client's timeoutMs: the daemon was reached, and may still carry the request out. */
  | { problem: "timeout"; base: string; timeoutMs: number }
  /** The connection closed after the request was sent (the daemon killed or restarted): it may have been carried out. */
  | { problem: "cut-off"; base: string; reason: string }
  | { problem: "not-json"; base: string; status: number }
  | { problem: "failed"; base: string; status: number; message: string };
