// memvoy daemon status|stop, and `memvoy --daemon` (the foreground daemon itself).
import { CommandUsageError } from "../usage-errors.ts";
import { bool, num, str, type FlagSpecs, type Parsed } from "../args.ts";
import { runCommand, runSubcommand, type CommandSpec, type SubcommandsSpec } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy daemon status [--json]
       memvoy daemon stop [--timeout SECONDS] [--json]
       memvoy --daemon [--home DIR] [--verbose]

  --daemon  run the daemon in the foreground (for systemd or a container): the summary
            cron, the embedding queue drain, the error-memory sweep and nightly
            maintenance. One per home; logs go to <home>/daemon.log (--verbose: also stderr).
  status    running or not, pid, uptime, last and next run of each job, last error.
            Exit code 0 when running, 1 when not.
  stop      send SIGTERM and wait for the daemon to exit (default 10 s).
`;

export function runForeground(argv: readonly string[], version: string): Promise<number> {
  const spec: CommandSpec = { name: "--daemon", usage, positionals: [] };
  return runCommand(
    spec,
    argv.filter((a) => a !== "--daemon"),
    async (p) => {
      const { runDaemon } = await import("../../daemon/daemon.ts");
      const code = await runDaemon({ home: str(p, "home"), verbose: bool(p, "verbose"), version });
      // Work abandoned at the deadline (a hung request) must not keep the process alive.
      process.exit(code);
    },
  );
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString("sv-SE") : "-");

/** `memvoy daemon work KIND`: the daemon's own child for its LanceDB work (not for people; not in --help). */
async function runWork(kind: string | undefined, p: Parsed): Promise<number> {
  const { isWorkKind } = await import("../../daemon/work-kinds.ts");
  if (!isWorkKind(kind))
    throw new CommandUsageError({ problem: "unknown-value", command: "daemon work", what: "kind", value: kind ?? "" });
  const home = str(p, "home");
  if (home === undefined)
    throw new CommandUsageError({ problem: "flag-required", command: "daemon work", flag: "--home", seeHelp: false });
  const { runWorker } = await import("../../daemon/worker.ts");
  const code = await runWorker(kind, home, num(p, "linger-ms") ?? 0);
  // stdin stays open (it is how a killed daemon shows): leave without waiting for it.
  process.exit(code);
}

const FLAGS: FlagSpecs = { timeout: { type: "number" }, "linger-ms": { type: "number" } };

const RUN_IT =
  "to run the daemon: memvoy --daemon (it stays in the foreground: run it under systemd or in a container, see memvoy daemon --help)";

const COMMAND: SubcommandsSpec = {
  name: "daemon",
  usage,
  subcommands: {
    status: { name: "daemon status", usage, flags: FLAGS, positionals: [] },
    stop: { name: "daemon stop", usage, flags: FLAGS, positionals: [] },
    work: { name: "daemon work", usage, flags: FLAGS, optional: ["KIND"] },
  },
  hidden: ["work"],
  instead: {
    start: RUN_IT,
    run: RUN_IT,
    restart: "to restart it: memvoy daemon stop, then memvoy --daemon (under systemd: systemctl --user restart memvoy)",
  },
};

export function run(argv: readonly string[]): Promise<number> {
  return runSubcommand(COMMAND, argv, daemon);
}

async function daemon(sub: string, p: Parsed, args: string[]): Promise<number> {
  if (sub === "work") return runWork(args[0], p);
  const json = bool(p, "json");
  const { daemonStatus, stopDaemon } = await import("../../daemon/status.ts");
  if (sub === "status") {
    const st = daemonStatus(str(p, "home"));
    if (json) {
      printJson(st);
      return st.running ? 0 : 1;
    }
    if (st.running) {
      const up = st.uptimeMs !== null ? `, up ${ago(st.uptimeMs)} since ${when(st.startedAt)}` : ", starting";
      println(`${bold("running")} (pid ${st.pid ?? "unknown"}${up}) on ${st.home}`);
      println(
        st.http
          ? `http: ${st.http}  (token in ${st.home}/http.json; MCP at ${st.http}/mcp)`
          : `http: off${st.httpError ? ` (it could not start: ${st.httpError})` : ""}`,
      );
      if (st.configChanged)
        println(
          st.configProblem
            ? `config: ${st.configProblem}; the daemon runs on the config it loaded at its start`
            : "config: changed since the daemon started (config.toml edited, or MEMVOY_* variables differ here); it runs on the one it loaded: restart it to apply the change",
        );
    } else {
      const last =
        st.pid !== null
          ? ` (last: pid ${st.pid}${st.stoppedAt ? `, stopped ${when(st.stoppedAt)}` : ", did not stop cleanly"})`
          : "";
      println(`${bold("not running")} on ${st.home}${last}`);
    }
    if (st.jobs.length) {
      const w = Math.max(3, ...st.jobs.map((j) => j.name.length));
      const sw = Math.max(8, ...st.jobs.map((j) => j.schedule.length));
      println(bold(`${"JOB".padEnd(w)}  ${"SCHEDULE".padEnd(sw)}  LAST RUN             NEXT RUN             RESULT`));
      for (const j of st.jobs) {
        const result = j.running
          ? `running${j.progress ? `: ${j.progress}` : ""}`
          : j.interrupted
            ? (j.lastDetail ?? "interrupted")
            : j.lastResult === null
              ? dim("-")
              : `${j.lastResult}${j.lastDetail ? `: ${j.lastDetail}` : ""}`;
        const next = j.schedule === "continuous" ? (st.running ? "continuous" : "-") : when(j.nextRun);
        println(
          `${j.name.padEnd(w)}  ${j.schedule.padEnd(sw)}  ${when(j.lastRun).padEnd(19)}  ${next.padEnd(19)}  ${result}`,
        );
      }
    }
    println(
      st.lastError
        ? `last error: ${when(st.lastError.at)} ${st.lastError.job}: ${st.lastError.message}`
        : "last error: none",
    );
    println(dim(`log: ${st.log}`));
    return st.running ? 0 : 1;
  }
  // stop
  const secs = num(p, "timeout") ?? 10;
  if (secs < 1)
    throw new CommandUsageError({
      problem: "flag-rule",
      command: "daemon stop",
      flag: "--timeout",
      rule: "at least 1 second",
    });
  const r = await stopDaemon(str(p, "home"), secs * 1000);
  if (json) printJson(r);
  else println(r.wasRunning ? `stopped the daemon (pid ${r.pid}) in ${r.ms} ms` : "no daemon is running on this home");
  return 0;
}
