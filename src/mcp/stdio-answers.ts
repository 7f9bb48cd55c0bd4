// What `memvoy mcp` puts around the SDK's stdio transport: stdin a line at a time, a line that is not UTF-8 refused;
// the requests read and not yet answered counted (a cancelled one is never answered), so that a client closing stdin
// right after its last request still gets every answer; the calls running, so that the home is closed under none.
import { isUtf8 } from "node:buffer";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { namedError } from "../shared/errors.ts";

type Message = Parameters<StdioServerTransport["send"]>[0];
type Id = string | number;

const fields = (m: Message) => m as Record<string, unknown>;

export class AnsweringTransport extends StdioServerTransport {
  readonly #open = new Set<Id>();
  #changed = Promise.withResolvers<void>();

  constructor(...args: ConstructorParameters<typeof StdioServerTransport>) {
    super(...args);
    // The base class declares onmessage as a field, so it is wrapped here rather than on the prototype.
    let handler: ((m: Message) => void) | undefined;
    Object.defineProperty(this, "onmessage", {
      configurable: true,
      get: () =>
        handler &&
        ((m: Message) => {
          this.#read(fields(m));
          handler!(m);
        }),
      set: (h: ((m: Message) => void) | undefined) => {
        handler = h;
      },
    });
  }

  override send(message: Message): Promise<void> {
    const m = fields(message);
    if (m.method === undefined && (typeof m.id === "string" || typeof m.id === "number")) this.#settle(m.id);
    return super.send(message);
  }

  /** Resolves once every request read so far has been answered or cancelled. */
  async whenAnswered(): Promise<void> {
    for (;;) {
      // Lines already written to the transport's input are read and dispatched before the count is trusted.
      await new Promise((r) => setImmediate(r));
      if (this.#open.size === 0) return;
      await this.#changed.promise;
    }
  }

  #read(m: Record<string, unknown>): void {
    if (typeof m.method !== "string") return;
    if (m.method === "notifications/cancelled") {
      const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === "string" || typeof id === "number") this.#settle(id);
    } else if (m.method !== "subscriptions/listen" && (typeof m.id === "string" || typeof m.id === "number")) {
      // A subscriptions/listen is answered only when the connection is torn down: not waited for.
      this.#open.add(m.id);
    }
  }

  #settle(id: Id): void {
    if (!this.#open.delete(id)) return;
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }
}

/** A call made after stdout failed: its answer could reach no one, so it is not carried out. */
export const NoAnswerPossibleError = namedError<Record<string, never>>(
  "NoAnswerPossibleError",
  "runtime",
  () => "stdout is closed: the call was not carried out, as its answer could not be sent",
);

export interface CountedCalls<A> {
  api: A;
  /** Resolves once no call runs. */
  idle(): Promise<void>;
  /** From now on every call is refused (NoAnswerPossibleError). */
  refuse(): void;
}

/**
 * `api` with its calls counted: `idle()` resolves once none runs, so that the home is closed under no call; once
 * stdout failed, `refuse()` stops new ones.
 */
export function countedCalls<A extends object>(api: A): CountedCalls<A> {
  let running = 0;
  let refusing = false;
  let none = Promise.withResolvers<void>();
  none.resolve();
  const counted = new Proxy(api, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function" || key === "close") return value;
      return (...args: unknown[]) => {
        if (refusing) throw new NoAnswerPossibleError({});
        if (running++ === 0) none = Promise.withResolvers<void>();
        const ended = () => {
          if (--running === 0) none.resolve();
        };
        try {
          const r = value.apply(target, args);
          if (r instanceof Promise) return r.finally(ended);
          ended();
          return r;
        } catch (err) {
          ended();
          throw err;
        }
      };
    },
  });
  return {
    api: counted,
    idle: () => none.promise,
    refuse: () => {
      refusing = true;
    },
  };
}

/** How much of each end of a line over the limit is kept: enough to find its id. */
const EDGE_BYTES = 4096;

/**
 * stdin for the SDK's transport, a line at a time: a line whose bytes are not UTF-8 goes to `refuse` instead, since
 * the transport would decode it with U+FFFD in place of the sender's characters and store that. A line longer than
 * `maxLine` goes to `tooLong` with its first and last bytes (the transport would give up on the whole stream).
 */
export class Utf8Lines {
  #parts: Buffer[] = [];
  #size = 0;
  /** Set while a line over the limit is read: only its last bytes are kept. */
  #over: { head: Buffer; tail: Buffer } | undefined;

  /** `whole`: a whole line that is UTF-8 (with its newline), for the transport; `refuse`: one that is not. */
  constructor(
    private readonly whole: (line: Buffer) => void,
    private readonly refuse: (line: Buffer) => void,
    private readonly maxLine: number,
    private readonly tooLong: (head: Buffer, tail: Buffer) => void,
  ) {}

  write(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.#piece(chunk.subarray(start, nl + 1));
      this.#endLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.#piece(chunk.subarray(start));
  }

  /** stdin ended: a last line without its newline (printf '...' | memvoy mcp) is a line all the same. */
  end(): void {
    if (this.#over || this.#parts.some((p) => p.some((b) => b !== 32 && b !== 9 && b !== 13))) {
      this.#piece(Buffer.from("\n"));
      this.#endLine();
    }
    this.#parts = [];
    this.#size = 0;
  }

  #piece(bytes: Buffer): void {
    if (this.#over) {
      this.#over.tail = lastBytes(Buffer.concat([this.#over.tail, lastBytes(bytes)]));
      return;
    }
    this.#parts.push(bytes);
    this.#size += bytes.length;
    if (this.#size <= this.maxLine) return;
    const line = Buffer.concat(this.#parts);
    this.#over = { head: Buffer.from(line.subarray(0, EDGE_BYTES)), tail: lastBytes(line) };
    this.#parts = [];
  }

  #endLine(): void {
    if (this.#over) this.tooLong(this.#over.head, this.#over.tail);
    else {
      const line = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
      if (isUtf8(line)) this.whole(line);
      else this.refuse(line);
    }
    this.#parts = [];
    this.#size = 0;
    this.#over = undefined;
  }
}

/** A copy of the last EDGE_BYTES of `b` (a view would keep the whole line in memory). */
const lastBytes = (b: Buffer) => Buffer.from(b.subarray(Math.max(0, b.length - EDGE_BYTES)));

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** The id as the first member (or the second, after jsonrpc), or as the last one before the closing brace. */
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
const TRAILING_ID = new RegExp(String.raw`,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of a request from the ends of its line, where it can be told for sure; else null. */
export function idOfCutLine(head: Buffer, tail: Buffer): string | number | null {
  const m = LEADING_ID.exec(head.toString("utf8")) ?? TRAILING_ID.exec(tail.toString("utf8"));
  if (!m) return null;
  try {
    const id: unknown = JSON.parse(m[1]!);
    return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
  } catch {
    return null;
  }
}
