// Reading a request's input: path params, then the query string (typed by the schema) or the JSON body,
// with the size limit applied while the body streams in.
import { InputError } from "../shared/errors.ts";

export class BodyTooLargeError extends InputError {}

export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > maxBytes)
    throw new BodyTooLargeError(`the body is ${declared} bytes, over [http] max_body_bytes (${maxBytes})`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    for await (const chunk of req.body) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new BodyTooLargeError(`the body is over [http] max_body_bytes (${maxBytes})`);
      chunks.push(chunk);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new InputError("the body is not valid JSON");
  }
}

/** Query values as the schema types them: numbers and booleans are read from their text, strictly. */
export function queryInput(url: URL, types: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of url.searchParams) {
    const t = types[k];
    if ((t === "integer" || t === "number") && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) out[k] = Number(raw);
    else if (t === "boolean" && (raw === "true" || raw === "false")) out[k] = raw === "true";
    else if (t === "boolean" && (raw === "" || raw === "1")) out[k] = true;
    else out[k] = raw;
  }
  return out;
}
