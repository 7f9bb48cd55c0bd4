// Reading JSON whose messages carry a number sendAt: the number kept as the text it was written in.

/**
 * A JSON.parse reviver that keeps a number sendAt as its text: a float or a number past 2^53 would lose digits
 * (19-digit nanoseconds, or 1765000000.123456789 seconds), and the text is read exactly.
 */
export function sendAtAsWritten(key: string, val: unknown, ctx?: { source?: string }): unknown {
  return key === "sendAt" && typeof val === "number" && ctx?.source ? ctx.source : val;
}

/**
 * sendAtAsWritten for a fraction alone (1765000000.123456789): a whole number past 2^53 is left to be refused, since
 * a client that held it as a JS number (the library over HTTP) has already rounded it before writing it.
 */
export function fractionAsWritten(key: string, val: unknown, ctx?: { source?: string }): unknown {
  return typeof val === "number" && !Number.isInteger(val) ? sendAtAsWritten(key, val, ctx) : val;
}
