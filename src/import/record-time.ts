// A record's time: the form transcripts write (`2026-01-31T12:34:56.789Z`) read without a regex, since an
// import reads one per record; any other form goes through parseTime. Both give the same result.
import { NS_PER_MS, parseTime, timeInRange, type Nanos } from "../shared/time.ts";

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function recordTime(text: string): Nanos | undefined {
  return utcStamp(text) ?? parseTime(text);
}

/** `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` exactly; undefined for anything else (including an impossible date). */
function utcStamp(s: string): Nanos | undefined {
  const n = s.length;
  if (n < 20 || n > 30 || s.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (s[4] !== "-" || s[7] !== "-" || s[10] !== "T" || s[13] !== ":" || s[16] !== ":") return undefined;
  const Y = digits(s, 0, 4);
  const M = digits(s, 5, 7);
  const D = digits(s, 8, 10);
  const H = digits(s, 11, 13);
  const MI = digits(s, 14, 16);
  const S = digits(s, 17, 19);
  if (Y < 0 || M < 1 || M > 12 || D < 1 || H < 0 || H > 23 || MI < 0 || MI > 59 || S < 0 || S > 60) return undefined;
  const leap = M === 2 && Y % 4 === 0 && (Y % 100 !== 0 || Y % 400 === 0);
  if (D > DAYS[M - 1]! + (leap ? 1 : 0)) return undefined;
  let frac = 0;
  if (n > 20) {
    if (s[19] !== "." || n === 21) return undefined;
    frac = digits(s, 20, n - 1);
    if (frac < 0) return undefined;
    for (let i = n - 1; i < 29; i++) frac *= 10; // to nanoseconds
  }
  const ns = BigInt(Date.UTC(Y, M - 1, D, H, MI, S)) * NS_PER_MS + BigInt(frac);
  return timeInRange(ns) ? ns : undefined;
}

/** The decimal number in s[from, to), or -1 when a character is not a digit. */
function digits(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}
