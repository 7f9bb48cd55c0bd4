// The keyword index upgrade, run once at daemon start when the home still has the old index; it resumes
// where an earlier run stopped, and ends (nothing more to do) once the new index is in place.
import type { MaintenanceApi } from "../../app/maintenance-api.ts";
import type { LoopJob } from "../scheduler.ts";
import { percentDone } from "../../shared/percent-done.ts";

export function indexUpgradeJob(api: MaintenanceApi): LoopJob {
  return {
    name: "index-upgrade",
    schedule: "at start",
    async loop({ signal, log, progress }, report) {
      const state = api.indexUpgrade();
      if (state.done) return;
      const started = new Date();
      const said = (copied: number, total: number) => `${percentDone(copied, total)}% of ${state.messages} messages`;
      progress(said(state.copied, state.total));
      let logged = 0;
      const r = await api
        .upgradeIndex({
          signal,
          progress: (copied, total) => {
            progress(said(copied, total));
            if (Date.now() - logged < 10_000) return;
            logged = Date.now();
            log.info("index_upgrade.progress", { copied, total });
          },
        })
        .finally(() => progress(null));
      report(started, {
        detail: `${r.done ? "done" : "stopped"}: ${r.copied} message(s) indexed in ${Math.round(r.ms)} ms, longest write ${r.longestStepMs.toFixed(0)} ms`,
      });
    },
  };
}
