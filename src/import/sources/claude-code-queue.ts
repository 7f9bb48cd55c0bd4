// Claude Code's prompt queue: what the person typed while Claude was busy. Every prompt passes through it
// (queue-operation enqueue). One that waits for the turn's end is dequeued and written again as a user record; one
// the running turn absorbs is removed and written as a queued_command attachment (2.1.97 on) or, before 2.1.97,
// nowhere but in its enqueue line; popAll takes queued prompts back into the input box to be edited.
import { isObject, lineAt, tryJson } from "../read-lines.ts";
import { cleanUserText } from "./claude-code-text.ts";

/** How many queued prompts, and absorbed ones awaiting their other record, a transcript's state remembers. */
const MAX_CARRIED = 64;

/** An enqueued prompt whose fate is not known yet; its text stays in the file (read again at `start` if needed). */
interface Waiting {
  start: number;
  line: number;
  /** Key of its text (see `keyOf`); absent when the line held no text (a prompt with images). */
  h?: string;
  /** The person's own words that the running turn may absorb (not a notification, not a slash command). */
  own: boolean;
}

/** An absorbed prompt imported from one of its two records (queue or attachment), until the other is seen. */
interface Absorbed {
  h: string;
  by: "queue" | "attachment";
}

const hash = (text: string) => Bun.CryptoHasher.hash("sha256", text, "hex").slice(0, 16);

/** Queue text that is no one's typing: notifications, messages from other sessions or channels. */
const MACHINE = /^\s*<(task-notification|cross-session-message|teammate-message|channel)[\s>]/;

/** A sub-agent's start, queued as JSON ({"task_id", "tool_use_id", …}) by 2.0 and early 2.1. */
const isTaskPayload = (raw: string) => {
  if (!raw.trimStart().startsWith("{")) return false;
  const v = tryJson(raw);
  return isObject(v) && (typeof v.task_id === "string" || typeof v.tool_use_id === "string");
};

/** The person's words in a queued text (undefined for machine text and wrappers). */
export function queuedText(raw: string): string | undefined {
  if (MACHINE.test(raw) || isTaskPayload(raw)) return undefined;
  return cleanUserText(raw);
}

/** What matches a queue line's text with its other records: the person's words, or the machine text as it is. */
const keyOf = (content: string) => hash(queuedText(content) ?? `\0${content}`);

/** Every prompt is enqueued; only a remove (absorbed into the running turn) leaves no user record of its own. */
const ABSORBED = new Set(["absorbed_mid_turn"]);

export class PromptQueue {
  private readonly waiting: Waiting[] = [];
  private readonly absorbed: Absorbed[] = [];
  /** Queued prompts an attachment took before their remove came: a remove naming no text is theirs. */
  private taken = 0;
  /** Texts of this pass's enqueue lines, by start offset (earlier passes' are read from the file). */
  private readonly texts = new Map<number, string>();

  constructor(
    private readonly file: string,
    state: unknown,
  ) {
    if (!isObject(state)) return;
    if (Array.isArray(state.waiting))
      for (const w of state.waiting)
        if (isObject(w) && typeof w.start === "number" && typeof w.line === "number")
          this.waiting.push({
            start: w.start,
            line: w.line,
            own: w.own === true,
            ...(typeof w.h === "string" && { h: w.h }),
          });
    if (Array.isArray(state.absorbed))
      for (const a of state.absorbed)
        if (isObject(a) && typeof a.h === "string" && (a.by === "queue" || a.by === "attachment"))
          this.absorbed.push({ h: a.h, by: a.by });
    if (typeof state.taken === "number" && state.taken > 0) this.taken = Math.min(state.taken, MAX_CARRIED);
  }

  /**
   * A queue-operation record at `line` (starting at byte `start`): the person's words it absorbed into the running
   * turn, when this record is the first to hold them; undefined otherwise.
   */
  operation(r: Record<string, unknown>, start: number, line: number): string | undefined {
    const content = typeof r.content === "string" ? r.content : undefined;
    const text = content === undefined ? undefined : queuedText(content);
    switch (r.operation) {
      case "enqueue": {
        if (content !== undefined) this.texts.set(start, content);
        const own = text !== undefined && !text.startsWith("/");
        this.waiting.push({ start, line, own, ...(content !== undefined && { h: keyOf(content) }) });
        if (this.waiting.length > MAX_CARRIED) this.forget(this.waiting.shift()!);
        return undefined;
      }
      case "dequeue":
      case "popAll":
        // Dequeued: the prompt is written again as the next turn's user record. Popped: back in the input box.
        this.take(content);
        return undefined;
      case "remove": {
        if (this.taken > 0 && (content === undefined || !this.waiting.some((w) => w.h === keyOf(content)))) {
          // Its prompt was an attachment's, already imported from there.
          this.taken--;
          return undefined;
        }
        const w = this.take(content);
        if (r.reason !== undefined && !(typeof r.reason === "string" && ABSORBED.has(r.reason))) return undefined;
        // Before 2.1.97 a remove named no text: the words are those of the prompt it took from the queue.
        const words = content !== undefined ? text : w?.own ? this.textOf(w) : undefined;
        return words !== undefined && this.pair(hash(words), "queue") ? words : undefined;
      }
      default:
        return undefined;
    }
  }

  /** A queued_command attachment holding the person's words: whether it is the first record of them. */
  attachment(text: string): boolean {
    if (this.prompt(text) && this.taken < MAX_CARRIED) this.taken++;
    return this.pair(hash(text), "attachment");
  }

  /** A prompt record the person typed: a queued prompt with its text is delivered (true when one was waiting). */
  prompt(text: string): boolean {
    const h = hash(text);
    const i = this.waiting.findIndex((w) => w.h === h);
    if (i >= 0) this.forget(this.waiting.splice(i, 1)[0]!);
    return i >= 0;
  }

  state(): Record<string, unknown> | undefined {
    if (this.waiting.length === 0 && this.absorbed.length === 0 && this.taken === 0) return undefined;
    return {
      waiting: this.waiting.map(({ start, line, h, own }) => ({ start, line, own, ...(h !== undefined && { h }) })),
      absorbed: this.absorbed,
      ...(this.taken > 0 && { taken: this.taken }),
    };
  }

  /**
   * Takes the queued prompt an operation names: by its text; an operation naming none (before 2.1.97) takes the first
   * the person typed (their prompts go before notifications), else the first.
   */
  private take(content: string | undefined): Waiting | undefined {
    let i: number;
    if (content !== undefined) {
      const h = keyOf(content);
      i = this.waiting.findIndex((w) => w.h === h);
    } else {
      i = this.waiting.findIndex((w) => w.own);
      if (i < 0) i = this.waiting.length > 0 ? 0 : -1;
    }
    const w = i >= 0 ? this.waiting.splice(i, 1)[0] : undefined;
    if (w) this.forget(w);
    return w;
  }

  private forget(w: Waiting): void {
    this.texts.delete(w.start);
  }

  /** Text of a queued prompt: kept from this pass, else its enqueue line read again. */
  private textOf(w: Waiting): string | undefined {
    let raw = this.texts.get(w.start);
    if (raw === undefined) {
      const first = lineAt(this.file, w.start, w.line);
      const r = first === undefined ? undefined : tryJson(first.text);
      if (isObject(r) && r.type === "queue-operation" && typeof r.content === "string") raw = r.content;
    }
    const text = raw === undefined ? undefined : queuedText(raw);
    return text !== undefined && (w.h === undefined || hash(text) === w.h) ? text : undefined;
  }

  /** Whether absorbed words seen in a record of kind `by` are new, or the other record of ones already imported. */
  private pair(h: string, by: Absorbed["by"]): boolean {
    const i = this.absorbed.findIndex((a) => a.h === h && a.by !== by);
    if (i >= 0) {
      this.absorbed.splice(i, 1);
      return false;
    }
    this.absorbed.push({ h, by });
    if (this.absorbed.length > MAX_CARRIED) this.absorbed.shift();
    return true;
  }
}
