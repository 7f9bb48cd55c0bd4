// What went wrong between a client and the daemon's HTTP API: the data a RemoteError carries.
export type RemoteFailure =
  | { problem: "unreachable"; base: string; reason: string }
  | { problem: "cut-off"; base: string; reason: string }
  | { problem: "not-json"; base: string; status: number }
  | { problem: "failed"; base: string; status: number; message: string };
