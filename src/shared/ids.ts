// Time-sortable unique ids (ULID layout: 48-bit ms time + 80 random bits, Crockford base32, monotonic).
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

let lastMs = -1;
let lastRandom: number[] = [];

function randomDigits(): number[] {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b & 31);
}

function increment(digits: number[]): number[] {
  const out = digits.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]! < 31) {
      out[i]!++;
      return out;
    }
    out[i] = 0;
  }
  return randomDigits();
}

export function newId(nowMs: number = Date.now()): string {
  if (nowMs <= lastMs) {
    lastRandom = increment(lastRandom);
    nowMs = lastMs;
  } else {
    lastMs = nowMs;
    lastRandom = randomDigits();
  }
  let time = "";
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + lastRandom.map((d) => ALPHABET[d]).join("");
}

/** Deterministic id for a legacy record that has none (same input, same id, across runs). */
export function legacyId(sessionId: string, index: number, sendAtNs: bigint, content: string): string {
  return timeHashId(sendAtNs, `${sessionId}\0${index}\0${sendAtNs}\0${content}`);
}

/** A time-sortable id from a time (ns) and a text: the ULID layout with the text's sha256 as its random part. */
export function timeHashId(sendAtNs: bigint, text: string): string {
  const h = Bun.CryptoHasher.hash("sha256", text) as Uint8Array;
  let ms = Number(sendAtNs / 1_000_000n);
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  let time = "";
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  let rest = "";
  for (let i = 0; i < 16; i++) rest += ALPHABET[h[i]! & 31];
  return time + rest;
}
