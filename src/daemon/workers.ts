// The daemon's side of its LanceDB children: at most one child per kind, spawned on demand, reused while it
// lingers, asked through stdin and answered on stdout; SIGTERM forwarded at stop, SIGKILL past the deadline.
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { InputError, namedError } from "../shared/errors.ts";
import { describeError } from "../shared/describe-error.ts";
import type { DaemonLog } from "./log.ts";
import type { WorkAnswer, WorkKind, WorkResult } from "./work-kinds.ts";

/** A burst of writes reuses one embeddings child; it exits after this long without a request. */
export const EMBED_LINGER_MS = 30_000;

/**
 * The command that runs this program again: the compiled binary itself, or bun with the entry script. An upgrade
 * that replaced the binary at its path (install.sh) while the daemon runs must not give it children of another
 * version: on Linux the file this process runs is then run as /proc/self/exe (named "exe" by ps, so only then).
 */
export function selfCommand(): string[] {
  const inBunfs = (p: string) => p.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(p);
  if (!(inBunfs(import.meta.path) || inBunfs(Bun.main)))
    return [process.execPath, join(import.meta.dir, "../index.ts")];
  return replacedSinceStart() ? ["/proc/self/exe"] : [process.execPath];
}

/** Whether the file at this process's executable path is no longer the one it runs (Linux; false where unknown). */
function replacedSinceStart(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const running = statSync("/proc/self/exe");
    const atPath = statSync(process.execPath, { throwIfNoEntry: false });
    return atPath === undefined || atPath.ino !== running.ino || atPath.dev !== running.dev;
  } catch {
    return false;
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

class Child {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  readonly pending: Pending[] = [];
  readonly done: Promise<void>;
  gone = false;
  answered = 0;
  lastStderr = "";

  constructor(kind: WorkKind, command: string[], env: Record<string, string>, log: DaemonLog, cwd: string) {
    const started = performance.now();
    this.proc = Bun.spawn(command, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const pid = this.proc.pid;
    log.info("worker.start", { job: kind, pid });
    const out = readLines(this.proc.stdout, (line) => this.onAnswer(line, kind, log));
    const err = readLines(this.proc.stderr, (line) => {
      this.lastStderr = log.scrub(line);
      log.warn("worker.stderr", { job: kind, pid, line: this.lastStderr });
    });
    this.done = Promise.all([out, err, this.proc.exited]).then(([, , code]) => {
      this.gone = true;
      const rss = this.proc.resourceUsage()?.maxRSS;
      const fields = {
        job: kind,
        pid,
        code,
        signal: this.proc.signalCode ?? undefined,
        lived_ms: Math.round(performance.now() - started),
      };
      log.info("worker.exit", {
        ...fields,
        answered: this.answered,
        max_rss_mb: rss ? Math.round(rss / 1048576) : undefined,
      });
      const exit = { kind, pid, code, signal: this.proc.signalCode ?? undefined, stderr: this.lastStderr || undefined };
      for (const p of this.pending.splice(0)) p.reject(new WorkerExitError(exit));
    });
  }

  private onAnswer(line: string, kind: WorkKind, log: DaemonLog): void {
    let a: WorkAnswer | undefined;
    try {
      a = JSON.parse(line) as WorkAnswer;
    } catch {
      // not an answer: a stray line from a library
    }
    const p = a && (a.answer === "ok" || a.answer === "error") ? this.pending.shift() : undefined;
    if (!a || !p) {
      log.warn("worker.stdout", { job: kind, pid: this.proc.pid, line: log.scrub(line) });
      return;
    }
    this.answered++;
    if (a.answer === "ok") p.resolve(a.result);
    else if (a.status !== undefined && a.status < 500 && a.code) p.reject(new ForwardedInputError(a.code, a.error));
    else p.reject(new WorkerFailedError({ kind, pid: this.proc.pid, error: a.error }));
  }

  ask(input?: unknown): Promise<unknown> {
    const answer = new Promise<unknown>((resolve, reject) => this.pending.push({ resolve, reject }));
    try {
      this.proc.stdin.write(input === undefined ? "run\n" : JSON.stringify(input) + "\n");
      this.proc.stdin.flush();
    } catch {
      // the child is going away: its exit rejects the request
    }
    return answer;
  }
}

/** The child exited without answering. */
export const WorkerExitError = namedError<{
  kind: WorkKind;
  pid: number;
  code: number | null;
  signal?: string | number;
  stderr?: string;
}>(
  "WorkerExitError",
  "runtime",
  (d) =>
    `the ${d.kind} worker (pid ${d.pid}) exited with ${d.signal ?? `code ${d.code}`} before answering${d.stderr ? `: ${d.stderr}` : ""}`,
);
export type WorkerExitError = InstanceType<typeof WorkerExitError>;

/** The child answered that the work failed; `error` is its describeError line. */
export const WorkerFailedError = namedError<{ kind: WorkKind; pid: number; error: string }>(
  "WorkerFailedError",
  "runtime",
  (d) => d.error,
);
export type WorkerFailedError = InstanceType<typeof WorkerFailedError>;

/**
 * The child refused a call's input (an unknown record id, a bad field): the same name and text, so that the daemon
 * answers with the status and body the child's own API would give.
 */
export class ForwardedInputError extends InputError {
  constructor(code: string, message: string) {
    super(message);
    this.name = code;
  }
}

/** Work was asked for after the daemon began to stop. */
export const DaemonStoppingError = namedError<Record<string, never>>(
  "DaemonStoppingError",
  "runtime",
  () => "the daemon is stopping",
);
export type DaemonStoppingError = InstanceType<typeof DaemonStoppingError>;

/** The child left cleanly (its linger ended as the request came): a fresh child may take the request. */
function leftIdle(err: unknown): boolean {
  return err instanceof WorkerExitError && err.data.code === 0;
}

export class Workers {
  private readonly children = new Map<WorkKind, Child>();
  private readonly env: Record<string, string>;

  constructor(
    private readonly home: string,
    env: Record<string, string | undefined>,
    private readonly log: DaemonLog,
    private readonly signal: AbortSignal,
    /** Fixed for tests; else selfCommand() at each spawn (the binary may be replaced while the daemon runs). */
    private readonly command?: string[],
  ) {
    this.env = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
    signal.addEventListener("abort", () => this.terminate("SIGTERM"), { once: true });
  }

  /** Run one unit of `kind` in its child (spawned when none is alive); rejects when the child fails or dies. */
  async run<K extends WorkKind>(kind: K, input?: unknown): Promise<WorkResult<K>> {
    for (let attempt = 0; ; attempt++) {
      if (this.signal.aborted) throw new DaemonStoppingError({});
      try {
        return (await this.child(kind).ask(input)) as WorkResult<K>;
      } catch (err) {
        // A lingering child may end just as a request comes: one fresh child takes it.
        if (!(leftIdle(err) && attempt === 0)) throw err;
      }
    }
  }

  private child(kind: WorkKind): Child {
    const alive = this.children.get(kind);
    if (alive && !alive.gone) return alive;
    const linger = kind === "embeddings" || kind === "api" ? EMBED_LINGER_MS : 0;
    const c = new Child(
      kind,
      [...(this.command ?? selfCommand()), "daemon", "work", kind, "--home", this.home, "--linger-ms", String(linger)],
      this.env,
      this.log,
      // In the home, which the daemon needs anyway: the folder it was started from may be removed since, and a
      // program cannot start in a folder that no longer exists.
      this.home,
    );
    this.children.set(kind, c);
    return c;
  }

  /** Pids of the children alive now. */
  pids(): number[] {
    return [...this.children.values()].filter((c) => !c.gone).map((c) => c.proc.pid);
  }

  private terminate(sig: "SIGTERM" | "SIGKILL"): void {
    for (const c of this.children.values()) {
      if (c.gone) continue;
      try {
        c.proc.kill(sig);
      } catch (err) {
        this.log.warn("worker.kill_failed", { pid: c.proc.pid, signal: sig, error: describeError(err) });
      }
    }
  }

  /** After the stop signal (which sent SIGTERM): wait for the children, SIGKILL what is left at the deadline. */
  async stop(deadlineMs: number): Promise<void> {
    const all = Promise.all([...this.children.values()].map((c) => c.done));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const inTime = await Promise.race([
      all.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), deadlineMs))),
    ]);
    clearTimeout(timer);
    if (inTime) return;
    this.log.warn("worker.kill", { pids: this.pids().join(","), note: "did not stop in time" });
    this.terminate("SIGKILL");
    await all;
  }
}

async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const line = buf.slice(0, i).trimEnd();
      buf = buf.slice(i + 1);
      if (line) onLine(line);
    }
  }
  if (buf.trim()) onLine(buf.trim());
}
