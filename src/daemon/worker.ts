// `memvoy daemon work KIND`: the daemon's child that does one kind of LanceDB work, so the daemon never maps
// LanceDB (whose memory is not given back). Each stdin line is a request, answered by one JSON line on stdout.
import { writeSync } from "node:fs";
import { openMemory } from "../app/open-memory.ts";
import { watchPaths } from "../app/home-watch.ts";
import { describeError, errorCode } from "../shared/describe-error.ts";
import { errorStatus } from "../app/api/error-body.ts";
import { WORK, type WorkAnswer, type WorkKind } from "./work-kinds.ts";

/** After a stop, the batch in flight gets this long (the daemon waits 3.5 s, then kills). */
const ABANDON_MS = 2_500;
const PARENT_CHECK_MS = 1_000;
const HOME_CHECK_MS = 100;
/** The daemon writes the first request as it spawns the child; it may still be in the pipe at start. */
const FIRST_REQUEST_MS = 10_000;

/** Requests (lines) from the daemon; ends when the pipe closes, which is also how a killed daemon shows. */
class Requests {
  #lines: string[] = [];
  #partial = "";
  #ended = false;
  #wake?: () => void;

  constructor(stream: NodeJS.ReadStream, onEnd: () => void) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const parts = (this.#partial + chunk).split("\n");
      this.#partial = parts.pop()!;
      this.#lines.push(...parts);
      this.#wake?.();
    });
    stream.on("end", () => {
      this.#ended = true;
      onEnd();
      this.#wake?.();
    });
    stream.resume();
  }

  /** The next request line within `ms`; undefined on the deadline, at end of input or on abort. */
  async next(ms: number, signal: AbortSignal): Promise<string | undefined> {
    for (;;) {
      if (signal.aborted || this.#ended) return undefined;
      if (this.#lines.length > 0) return this.#lines.shift();
      if (ms <= 0) return undefined;
      const timedOut = await new Promise<boolean>((resolve) => {
        const done = (v: boolean) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          this.#wake = undefined;
          resolve(v);
        };
        const onAbort = () => done(false);
        const timer = setTimeout(() => done(true), ms);
        signal.addEventListener("abort", onAbort, { once: true });
        this.#wake = () => done(false);
      });
      if (timedOut) return undefined;
    }
  }
}

/** Serve requests until `lingerMs` passes without one, a stop signal, or the daemon going away; the exit code. */
export async function runWorker(kind: WorkKind, home: string, lingerMs: number): Promise<number> {
  const api = openMemory({ home, drain: "off", create: false, command: "the daemon" });
  const abort = new AbortController();
  // A home removed under the daemon is never recreated by its child: leave at once.
  const stopWatching = watchPaths([api.home, api.paths.store], () => process.exit(0), HOME_CHECK_MS);
  const stop = () => {
    if (abort.signal.aborted) return;
    abort.abort();
    // Whatever does not settle in time is abandoned: vectors are committed per batch.
    setTimeout(() => process.exit(0), ABANDON_MS).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("SIGHUP", stop);
  const parent = process.ppid;
  const watchParent = setInterval(() => {
    if (process.ppid !== parent) stop();
  }, PARENT_CHECK_MS);
  watchParent.unref();
  const requests = new Requests(process.stdin, stop);
  try {
    for (
      let wait = Math.max(lingerMs, FIRST_REQUEST_MS), line: string | undefined;
      (line = await requests.next(wait, abort.signal)) !== undefined;
      wait = lingerMs
    ) {
      let answer: WorkAnswer;
      try {
        // "run", or the JSON input of a request that has one (an API call).
        const input = line.startsWith("{") ? JSON.parse(line) : undefined;
        answer = { answer: "ok", result: await WORK[kind](api, abort.signal, input) };
      } catch (err) {
        answer = {
          answer: "error",
          error: describeError(err),
          aborted: abort.signal.aborted,
          code: errorCode(err),
          status: errorStatus(err),
        };
      }
      writeSync(1, JSON.stringify(answer) + "\n");
    }
  } finally {
    clearInterval(watchParent);
    stopWatching();
    api.close();
  }
  return 0;
}
