// valibot schemas for input that crosses a boundary: messages given to add (flags, JSONL lines, library).
import * as v from "valibot";
import { parseTimeOrThrow } from "../shared/time.ts";
import { checkNewMessage, checkRepeatedKeys, InvalidMessageError, type NewMessage } from "../memory/message-input.ts";
import { issueFacts } from "../shared/schema-issues.ts";

const WireMessage = v.strictObject({
  role: v.picklist(["user", "assistant"], "role must be user or assistant"),
  content: v.string("content must be text"),
  sendAt: v.optional(v.union([v.string(), v.number(), v.bigint()], "sendAt must be a time string or a number")),
  sender: v.optional(v.string("sender must be text")),
  idempotencyKey: v.optional(v.string("idempotencyKey must be text")),
});

export type WireMessageInput = v.InferInput<typeof WireMessage>;

export function toNewMessage(raw: unknown, where: string): NewMessage {
  const r = v.safeParse(WireMessage, raw);
  if (!r.success) throw new InvalidMessageError({ where, problem: "fields", issues: issueFacts(r.issues) });
  const m: NewMessage = { role: r.output.role, content: r.output.content };
  const at = r.output.sendAt;
  if (at !== undefined) m.sendAt = typeof at === "bigint" ? at : parseTimeOrThrow(String(at), `${where}: sendAt`);
  if (r.output.sender !== undefined) m.sender = r.output.sender;
  if (r.output.idempotencyKey !== undefined) m.idempotencyKey = r.output.idempotencyKey;
  return m;
}

/** Parse JSONL (one message per line, blank lines ignored). Any bad line rejects the whole batch. */
export function parseJsonl(text: string, maxMessageBytes: number, lineNumbers?: number[]): NewMessage[] {
  const out: NewMessage[] = [];
  const lineOf = lineNumbers ?? []; // each message's line
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let raw: unknown;
    try {
      // Integers keep their exact text (19-digit nanoseconds).
      raw = JSON.parse(line, (key, val, ctx?: { source?: string }) =>
        key === "sendAt" && typeof val === "number" && Number.isInteger(val) && ctx?.source ? ctx.source : val,
      );
    } catch {
      // Plain text piped without --role: say how plain text is read.
      const plainText = i === 0 && !text.trimStart().startsWith("{");
      throw new InvalidMessageError({
        where: `stdin line ${i + 1}`,
        problem: "not-json",
        ...(plainText ? { plainText } : {}),
      });
    }
    const m = toNewMessage(raw, `stdin line ${i + 1}`);
    checkNewMessage(m, maxMessageBytes, `stdin line ${i + 1}`);
    out.push(m);
    lineOf.push(i + 1);
  }
  checkRepeatedKeys(out, (i) => `stdin line ${lineOf[i]}`); // over the whole input, before any part is stored
  return out;
}
