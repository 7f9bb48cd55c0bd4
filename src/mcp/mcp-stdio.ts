// `memvoy mcp` over stdio: newline-delimited JSON-RPC on stdin/stdout, nothing else on stdout; the home is
// opened in this process, so several clients may each run their own server on one home (writes take the
// home's cross-process writer lock). When stdin ends, the requests read are answered before the server exits (and
// the home is closed once no call runs). An agent's start-up (initialize, initialized, tools/list) is answered
// with the SDK's own recorded answers before the SDK loads; then the SDK's server takes the connection over,
// with the initialize replayed to it, and serves everything from there on.
import type { PassThrough, Writable } from "node:stream";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { describeError } from "../shared/describe-error.ts";
import { onStdoutFailed, stdoutStream } from "../shared/stdout.ts";
import type { EarlyAnswers } from "./early-answers.ts";
import type { Utf8Lines } from "./stdio-answers.ts";
import { jitAsUsual } from "../shared/jit-policy.ts";

/**
 * The longest JSON-RPC line read: above the SDK's 10 MiB default, so that a message over
 * limits.max_message_bytes is answered with an error instead of closing the connection. A longer line is refused.
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
const TOO_LONG =
  `Invalid Request: the line is over ${MAX_LINE_BYTES / 1024 / 1024} MiB, the most memvoy mcp reads; nothing was ` +
  "done (send fewer or smaller messages per call)";
/** A start-up line longer than this goes to the SDK unread. */
const EARLY_LINE_BYTES = 1024 * 1024;
const NOT_UTF8 = "Parse error: the line is not valid UTF-8 (JSON-RPC messages are sent as UTF-8); nothing was done";
/** The id of the replayed initialize: its answer (already given) is not sent again. */
const REPLAY_ID = "memvoy-replayed-initialize";

type Message = Record<string, unknown>;
const isObject = (x: unknown): x is Message => typeof x === "object" && x !== null && !Array.isArray(x);
const isId = (x: unknown) => typeof x === "string" || (typeof x === "number" && Number.isInteger(x));

// The compiled binary carries the answers as a literal (build.ts defines it). From source they are recorded at
// start: a Bun macro would be refused in a consumer's node_modules, where the package's bin runs from.
declare const MEMVOY_MCP_EARLY_ANSWERS: EarlyAnswers | undefined;

async function recordedAnswers(): Promise<EarlyAnswers> {
  if (typeof MEMVOY_MCP_EARLY_ANSWERS !== "undefined") return MEMVOY_MCP_EARLY_ANSWERS;
  return (await import("./early-answers.ts")).earlyAnswers();
}

export async function runMcpStdio(api: MemoryApi, version: string): Promise<number> {
  const early = await recordedAnswers();
  const done = Promise.withResolvers<number>();
  let revision: string | undefined;
  const replay: string[] = [];
  let unread: Buffer = Buffer.alloc(0);
  /** What stdin gives while the SDK loads, as read: joined into `unread`, each chunk would copy all before it. */
  const loading: Buffer[] = [];
  /** Set once the SDK serves the connection: the SDK's stdin, and what stdin goes through from then on. */
  let input: PassThrough | undefined;
  let lines: Utf8Lines | undefined;
  let handOff: Promise<void> | undefined;
  let stopSdk = async () => {};
  let answered = async () => {};
  let idle = async () => {};
  let ended = false;
  /** Why stdout failed, once it did. */
  let failed: string | undefined;
  /** Once stdout failed: no call of the SDK's starts any more (set by the hand-off). */
  let refuseCalls = () => {};

  const write = (m: Message) => stdoutStream().write(`${JSON.stringify(m)}\n`);

  /** Answer one start-up line from the recorded answers; false: the SDK must see it. */
  const answerEarly = (line: string): boolean => {
    if (early.version !== version) return false;
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      return false;
    }
    if (!isObject(m) || m.jsonrpc !== "2.0") return false;
    if (revision === undefined) {
      const p = m.params;
      if (m.method !== "initialize" || !isId(m.id) || !isObject(p) || typeof p.protocolVersion !== "string")
        return false;
      const recorded = Object.hasOwn(early.byRevision, p.protocolVersion)
        ? early.byRevision[p.protocolVersion]
        : undefined;
      const info = p.clientInfo;
      if (!recorded || !isObject(p.capabilities) || !isObject(info)) return false;
      if (typeof info.name !== "string" || typeof info.version !== "string") return false;
      revision = p.protocolVersion;
      replay.push(JSON.stringify({ ...m, id: REPLAY_ID }));
      write({ jsonrpc: "2.0", id: m.id, result: recorded.initialize });
      return true;
    }
    if (m.method === "notifications/initialized" && !("id" in m)) {
      replay.push(line);
      return true;
    }
    const plainList = m.params === undefined || (isObject(m.params) && Object.keys(m.params).length === 0);
    if (m.method === "tools/list" && isId(m.id) && plainList) {
      write({ jsonrpc: "2.0", id: m.id, result: early.byRevision[revision]!.toolsList });
      // Load the SDK now, while the agent reads the list, rather than on its first call.
      setImmediate(startSdk);
      return true;
    }
    return false;
  };

  /** A line that is not UTF-8: a parse error for its request (decoded, its text would hold U+FFFD, not what was sent). */
  const refuseNotUtf8 = (line: Buffer) => {
    let id: unknown = null;
    try {
      const m: unknown = JSON.parse(line.toString("utf8"));
      if (isObject(m) && isId(m.id) && typeof m.method === "string") id = m.id;
    } catch {
      // no id to answer: the error goes out with id null
    }
    process.stderr.write("memvoy mcp: refused a line of stdin that is not valid UTF-8\n");
    write({ jsonrpc: "2.0", id, error: { code: -32700, message: NOT_UTF8 } });
  };

  /** A line over MAX_LINE_BYTES: an error for its request (id null when it cannot be told), and the server goes on. */
  const refuseTooLong = (id: string | number | null) => {
    process.stderr.write(`memvoy mcp: refused a line of stdin over ${MAX_LINE_BYTES / 1024 / 1024} MiB\n`);
    write({ jsonrpc: "2.0", id, error: { code: -32600, message: TOO_LONG } });
  };

  const startSdk = () => {
    if (handOff) return;
    handOff = (async () => {
      const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
      const { AnsweringTransport, countedCalls, idOfCutLine, Utf8Lines } = await import("./stdio-answers.ts");
      const { createMcpServer } = await import("./mcp-server.ts");
      const stream = await import("node:stream");
      const pipe = new stream.PassThrough();
      const transport = new AnsweringTransport(pipe, withoutReplayAnswer(stream.Writable), {
        maxBufferSize: MAX_LINE_BYTES,
      });
      const calls = countedCalls(api);
      answered = () => transport.whenAnswered();
      idle = calls.idle;
      refuseCalls = calls.refuse;
      // stdout failed before the hand-off: what was read is passed on below only to be refused.
      if (failed !== undefined) refuseCalls();
      const handle = serveStdio(() => createMcpServer(calls.api, version), {
        transport,
        onerror: (err) => {
          // JSON that is no JSON-RPC message fails the SDK's schema, whose error is pages of JSON.
          const text =
            err.name === "ZodError" ? "ignored a line of stdin that is not a JSON-RPC 2.0 message" : describeError(err);
          process.stderr.write(`memvoy mcp: ${text}\n`);
          // Lines over MAX_LINE_BYTES never reach the transport; were one to, it would give up: end rather than hang.
          if (/ReadBuffer exceeded/.test(err.message)) void stop();
        },
      });
      stopSdk = () => handle.close().catch(() => {});
      const { lineWithoutNullParams } = await import("./client-args.ts");
      const pass = (bytes: Buffer) => pipe.write(bytes);
      lines = new Utf8Lines(
        (line) => pass(lineWithoutNullParams(line)),
        refuseNotUtf8,
        MAX_LINE_BYTES,
        (head, tail) => refuseTooLong(idOfCutLine(head, tail)),
      );
      for (const line of replay) lines.write(Buffer.from(`${line}\n`));
      if (unread.length > 0) lines.write(unread);
      unread = Buffer.alloc(0);
      for (const chunk of loading.splice(0)) lines.write(chunk);
      input = pipe;
      jitAsUsual();
      if (ended) endInput();
    })();
    handOff.catch((err) => {
      process.stderr.write(`memvoy mcp: ${describeError(err)}\n`);
      done.resolve(1);
    });
  };

  const onData = (chunk: Buffer) => {
    if (lines) {
      lines.write(chunk);
      return;
    }
    if (handOff) {
      loading.push(chunk);
      return;
    }
    unread = unread.length === 0 ? chunk : Buffer.concat([unread, chunk]);
    for (let nl = unread.indexOf(10); nl >= 0; nl = unread.indexOf(10)) {
      if (!answerEarly(unread.subarray(0, nl).toString("utf8"))) return startSdk();
      unread = unread.subarray(nl + 1);
    }
    if (unread.length > EARLY_LINE_BYTES) startSdk();
  };

  const endInput = () => {
    lines!.end();
    input!.once("end", () => void stop());
    // A client may close stdin right after its last request (a shell pipe does): answer first, then end.
    void answered().then(() => input!.end());
  };
  const onEnd = () => {
    if (ended) return;
    ended = true;
    if (input) endInput();
    // A last line without its newline is still to be served; else the agent left after its start-up and the SDK
    // was never needed.
    else if (!handOff) {
      if (unread.some((b) => b !== 32 && b !== 9 && b !== 13)) startSdk();
      else void stop();
    }
  };
  const stop = async () => {
    await handOff?.catch(() => {});
    await stopSdk();
    // A call still running (cancelled, or cut short by a signal) finishes before the home is closed under it.
    await idle();
    done.resolve(0);
  };

  // The client closed stdout (or it takes no write): nothing more is read, and no call starts whose answer could
  // reach no one; the calls under way finish (each write is whole or not made), then the server says so and exits 1.
  onStdoutFailed((reason) => {
    process.stdin.off("data", onData);
    failed = reason;
    refuseCalls();
    void stop();
  });

  process.stdin.on("data", onData);
  process.stdin.once("end", onEnd);
  process.stdin.once("close", onEnd);
  // A hangup (the terminal or ssh session the agent runs in closed) stops it as SIGTERM does, not in mid-write.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(signal, () => void stop());
  const code = await done.promise;
  process.stdin.off("data", onData);
  process.stdin.destroy();
  await api.close();
  if (failed === undefined) return code;
  process.stderr.write(
    `memvoy mcp: could not write to stdout (${failed}), so the server stopped: the answers from then on, and maybe ` +
      "the last ones before, did not reach the client; no call was started after that, and the calls under way " +
      "finished (a write among them is stored: a retry with the same idempotencyKey adds it once)\n",
  );
  return 1;
}

/** stdout for the SDK's transport, minus the answer to the replayed initialize (the agent has it). */
function withoutReplayAnswer(WritableStream: typeof Writable): Writable {
  let dropped = false;
  return new WritableStream({
    write(chunk: Buffer, _encoding, callback) {
      if (!dropped && chunk.includes(REPLAY_ID)) {
        const text = chunk.toString("utf8");
        const lines = text.split("\n");
        const kept = lines.filter((line) => {
          if (dropped || !line.includes(REPLAY_ID)) return true;
          let m: Message;
          try {
            m = JSON.parse(line);
          } catch {
            return true;
          }
          if (m.id !== REPLAY_ID) return true;
          dropped = true;
          if (isObject(m.error))
            process.stderr.write(`memvoy mcp: the server refused the initialize: ${String(m.error.message)}\n`);
          return false;
        });
        const rest = kept.join("\n");
        if (rest === "") return callback();
        return stdoutStream().write(rest, () => callback());
      }
      stdoutStream().write(chunk, () => callback());
    },
  });
}
