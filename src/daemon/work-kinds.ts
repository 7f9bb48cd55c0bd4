// The daemon's LanceDB work, by kind: what its child process (`memvoy daemon work KIND`) runs per request.
import type { MaintenanceApi } from "../app/maintenance-api.ts";
import { describeError } from "../shared/describe-error.ts";

export const WORK = {
  embeddings: (api: MaintenanceApi, signal: AbortSignal) => api.drainEmbeddings({ signal }),
  maintenance: (api: MaintenanceApi, signal: AbortSignal) => api.maintainVectors({ signal }),
  // Semantic and hybrid searches of the HTTP API and /mcp: LanceDB is mapped here, never in the daemon.
  search: (api: MaintenanceApi, _signal: AbortSignal, input?: unknown) => api.searchJson(input),
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
export type WorkAnswer = { answer: "ok"; result: unknown } | { answer: "error"; error: string; aborted: boolean };

export function isWorkKind(s: string | undefined): s is WorkKind {
  return s !== undefined && Object.hasOwn(WORK, s);
}
