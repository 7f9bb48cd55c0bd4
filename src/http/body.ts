// Reading a request's input: path params, then the query string (typed by the schema) or the JSON body,
// with the size limit applied while the body streams in.
import { isUtf8 } from "node:buffer";
import { namedError } from "../shared/errors.ts";
import { fractionAsWritten } from "../shared/send-at-text.ts";

/** The body is over [http] max_body_bytes: by its Content-Length (`declared`), or as it streamed in. */
export const BodyTooLargeError = namedError<{ maxBytes: number; declared?: number }>(
  "BodyTooLargeError",
  "input",
  (d) =>
    d.declared !== undefined
      ? `the body is ${d.declared} bytes, over [http] max_body_bytes (${d.maxBytes})`
      : `the body is over [http] max_body_bytes (${d.maxBytes})`,
);
export type BodyTooLargeError = InstanceType<typeof BodyTooLargeError>;

/** A POST body that is not UTF-8, not JSON, or not a JSON object. */
export const BodyShapeError = namedError<{ problem: "not-utf8" | "not-json" | "not-object" }>(
  "BodyShapeError",
  "input",
  (d) =>
    d.problem === "not-utf8"
      ? "the body is not valid UTF-8 (JSON is sent as UTF-8); nothing was written"
      : d.problem === "not-json"
        ? "the body is not valid JSON"
        : "the body must be a JSON object",
);
export type BodyShapeError = InstanceType<typeof BodyShapeError>;

/** The body's bytes; over `maxBytes` (by its Content-Length, or as it streams in) a BodyTooLargeError. */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) throw new BodyTooLargeError({ maxBytes, declared });
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    for await (const chunk of req.body) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new BodyTooLargeError({ maxBytes });
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}

/** `bytes`, refused when they are not UTF-8: decoding would store U+FFFD in place of the sender's text. */
export function utf8Body(bytes: Uint8Array): Uint8Array {
  if (!isUtf8(bytes)) throw new BodyShapeError({ problem: "not-utf8" });
  return bytes;
}

export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  const text = new TextDecoder().decode(utf8Body(await readBodyBytes(req, maxBytes)));
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text, fractionAsWritten);
  } catch {
    throw new BodyShapeError({ problem: "not-json" });
  }
}

/**
 * A boolean as query strings spell it: true and false in any case (Python's urlencode and .NET send True and False),
 * 1 and 0, and the name alone (?all) for true.
 */
const BOOLEANS = new Map([
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
  ["", true],
]);

/** Query values as the schema types them: numbers and booleans are read from their text, strictly. */
export function queryInput(url: URL, types: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of url.searchParams) {
    const t = types[k];
    const flag = BOOLEANS.get(raw.toLowerCase());
    if ((t === "integer" || t === "number") && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) out[k] = Number(raw);
    else if (t === "boolean" && flag !== undefined) out[k] = flag;
    else out[k] = raw;
  }
  return out;
}
