// The daemon's LanceDB work, by kind: what its child process (`memvoy daemon work KIND`) runs per request.
import type { MaintenanceApi } from "../app/maintenance-api.ts";
import type { MemoryHome } from "../app/api/local-memory-api.ts";
import { describeError } from "../shared/describe-error.ts";
import { makeVectorCall, type VectorCall } from "./vector-calls.ts";

export const WORK = {
  embeddings: (api: MaintenanceApi, signal: AbortSignal) => api.drainEmbeddings({ signal }),
  maintenance: (api: MaintenanceApi, signal: AbortSignal) => api.maintainVectors({ signal }),
  // The calls of the HTTP API and /mcp that touch LanceDB (semantic search, error memory, the vector half of a
  // deletion): LanceDB is mapped here, never in the daemon.
  api: (home: MemoryHome, _signal: AbortSignal, input?: unknown) => makeVectorCall(home, input as VectorCall),
  "error-sweep": async (api: MaintenanceApi) => {
    const sweep = await api.sweepErrors();
    try {
      return { sweep, pending: await api.embedPendingErrors() };
    } catch (err) {
      return { sweep, pendingError: describeError(err) };
    }
  },
};

export type WorkKind = keyof typeof WORK;
export type WorkResult<K extends WorkKind> = Awaited<ReturnType<(typeof WORK)[K]>>;
export type RunWork = <K extends WorkKind>(kind: K, input?: unknown) => Promise<WorkResult<K>>;

/** One line on the child's stdout per request. */
export type WorkAnswer =
  | { answer: "ok"; result: unknown }
  /** `code` and `status`: the error's name and its HTTP status, so that the daemon answers as this child would. */
  | { answer: "error"; error: string; aborted: boolean; code?: string; status?: number };

export function isWorkKind(s: string | undefined): s is WorkKind {
  return s !== undefined && Object.hasOwn(WORK, s);
}
