// The normalised signature of an error text: what stays the same when the same error happens again.
// URLs, paths, quoted parts, timestamps, uuids, hex, random-looking ids, emails and numbers become
// placeholders; error codes glued to letters (TS2345, E0308, arm64) and HTTP statuses are kept.
import { withoutEscapes } from "../../shared/terminal-text.ts";

const MAX_SIGNATURE = 1000;
// Boundaries that treat _ and - as part of a token, so "req_8f7a6b5c" and "web-7d9f8b6c5" split cleanly.
const L = "(?<![A-Za-z0-9])";
const R = "(?![A-Za-z0-9])";
// What a number glued to it belongs to (TS2345, arm64, v8): a letter or digit, but no CJK character, since Chinese,
// Japanese and Korean write numbers against their words ("第12行", "30秒", "12行目", "12번째").
const GLUE = "[[\\p{L}--[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}\\p{scx=Bopomofo}]]\\p{N}_]";

const MONTH =
  "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\b\\.?";
const CLOCK = "\\d{1,2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?";
const WEEKDAY =
  "\\b(?:(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?),? )?";
// A month's name, then a day and a clock time or a year; or a day, the month and a year.
const NAMED_DATE = [
  `${MONTH} +\\d{1,2}(?:st|nd|rd|th)?,?(?= +(?:${CLOCK}|\\d{4})\\b)`,
  `\\d{1,2}[ -]${MONTH}[ -]\\d{2,4}\\b`,
].join("|");

const STEPS: [RegExp, string | ((m: string, ...g: string[]) => string)][] = [
  [/\[REDACTED:[a-z-]+\]/g, "<secret>"],
  [/\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s'"`<>)\]]+/gi, "<url>"],
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, "<email>"],
  // Quoted parts (`…' as Ruby, make and ld quote, German „…“ and CJK 「…」 『…』 too); a single quote only opens after a non-letter, so "can't" is not a quote.
  [
    /"[^"\n]{0,300}"|`[^`'\n]{0,300}'|`[^`\n]{0,300}`|‘[^’\n]{0,300}’|“[^”\n]{0,300}”|«[^»\n]{0,300}»|„[^“”\n]{0,300}[“”]|「[^」\n]{0,300}」|『[^』\n]{0,300}』|(?<![\p{L}\p{N}])'[^'\n]{0,300}'(?![\p{L}\p{N}])/gu,
    "<q>",
  ],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}| [+-]\d{4}\b)?/gi, "<time>"],
  // Dates with a month's name, with a clock time or a year (syslog "Dec 01 08:00:59", Apache "[Mon Dec 01 08:00:59
  // 2026]", HTTP "Wed, 02 Dec 2026 10:15:02 GMT", "01-Dec-2026 08:00:59"), and klog's "I1201 08:00:59.123456".
  [
    new RegExp(
      `${WEEKDAY}(?:${NAMED_DATE})(?:[ T]+${CLOCK})?(?: \\d{4}\\b)?(?: ?(?:Z|UTC|GMT|[+-]\\d{2}:?\\d{2})\\b)?`,
      "gi",
    ),
    "<time>",
  ],
  [/(?<![A-Za-z0-9])([IWEF])\d{4}(?= \d{2}:\d{2}:\d{2})/g, "$1<n>"],
  [/\b\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)? ?[ap]\.?m\b\.?/gi, "<time>"],
  [/\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, "<time>"],
  // HTTP statuses carry meaning (404 is not 500): glue them to a letter so the number step keeps them.
  [
    /(?<!exit\s+)\b(status(?: code)?|http(?:\/[\d.]+)?|returned error|response)([:\s]+)([1-5]\d\d)\b/gi,
    (_m, a, b, c) => `${a}${b}http${c}`,
  ],
  // Network addresses, with a port or not, IPv4 or IPv6 alike (Node 17+ reaches localhost at ::1: "ECONNREFUSED
  // ::1:5432" is the "ECONNREFUSED 127.0.0.1:5432" of older releases; a server on every address is :::3000 or
  // 0.0.0.0:3000): bracketed IPv6, bare IPv6 (with "::" or 7 colons, a hex digit, an IPv4 tail or a zone), then IPv4.
  [/\[[0-9a-f:.]*:[0-9a-f:.]*(?:%[\w.-]+)?\](?::\d{1,5})?/gi, "<addr>"],
  [/(?<![\w:.])(?=[0-9a-f:.]*::|(?:[0-9a-f]*:){7})[0-9a-f:.]*[0-9a-f](?:%[\w-]+)?(?!\w)/gi, "<addr>"],
  [/(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?![\w.])/g, "<addr>"],
  // Paths: Windows (drive-rooted, then relative like src\lib.rs), then absolute / home / relative unix paths with at
  // least one separator (C:/Users/..., as git for Windows writes it, is one too). A folder of a rooted path may hold
  // spaces (C:\Program Files\..., /Users/Jane Doe/...): a space is part of the path when a separator follows the word
  // after it.
  [/\b[A-Za-z]:\\(?:[^\\\s'"<>|]+(?: [^\\\s'"<>|]+)*\\)*[^\s'"<>|]*/g, "<path>"],
  [/(?<![\w.@+\\-])[\w.@+-]+(?:\\[\w.@+-]+)+\\?/g, "<path>"],
  [
    /(?:~|\.{1,2}|\b[A-Za-z]:)?(?:\/[\w.@+-]+(?: [\w.@+-]+)*(?=\/))*\/[\w.@+-]+\/?|\b[\w.@+-]+(?:\/[\w.@+-]+)+\/?/g,
    "<path>",
  ],
  [new RegExp(`${L}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}${R}`, "gi"), "<id>"],
  [new RegExp(`${L}0x[0-9a-f]+${R}`, "gi"), "<hex>"],
  [new RegExp(`${L}(?=[a-f]*[0-9])[0-9a-f]{7,}${R}`, "gi"), "<hex>"],
  // Go's compound durations (1m30s, 1h2m3.5s) are numbers, as 45s is: not random-looking ids.
  [new RegExp(`${L}(?:\\d+(?:\\.\\d+)?h)?(?:\\d+m)?\\d+(?:\\.\\d+)?(?:s|ms|us|µs|ns)${R}`, "g"), "<n>"],
  // Random-looking ids: letters and digits alternating at least three times (x2x7k, a1b2c3).
  [new RegExp(`${L}[A-Za-z0-9]{4,}${R}`, "g"), (m) => (transitions(m) >= 3 ? "<id>" : m)],
  [
    new RegExp(
      `(?<!${GLUE})\\d+(?:[.,]\\d+)*(?:ms|us|µs|ns|s|m|h|d|b|kb|mb|gb|tb|kib|mib|gib|tib|ki|mi|gi|ti|k|g|t|x)?(?!${GLUE})`,
      "giv",
    ),
    "<n>",
  ],
];

/**
 * A fingerprint of the rules above: records whose signatures were made under other rules (an older memvoy) are
 * signed again before the next record is matched against them (see record-error.ts). A replacement function is
 * not in it (its text differs once minified): a change to one alone must change RULES_REVISION.
 */
const RULES_REVISION = 1;
export const SIGNATURE_RULES = new Bun.CryptoHasher("sha256")
  .update(
    JSON.stringify([
      RULES_REVISION,
      MAX_SIGNATURE,
      STEPS.map(([re, to]) => [re.source, re.flags, typeof to === "string" ? to : "function"]),
    ]),
  )
  .digest("hex")
  .slice(0, 16);

function transitions(token: string): number {
  let n = 0;
  for (let i = 1; i < token.length; i++) {
    const a = token.charCodeAt(i - 1) <= 57;
    const b = token.charCodeAt(i) <= 57;
    if (a !== b) n++;
  }
  return n;
}

export function errorSignature(error: string): string {
  // A tool's output often carries colour codes: the same error printed to a terminal or to a pipe is one error.
  let s = withoutEscapes(error).normalize("NFKC");
  for (const [re, to] of STEPS) s = s.replace(re, to as string);
  s = s.toLowerCase().replace(/\s+/g, " ").trim();
  if (s.length <= MAX_SIGNATURE) return s;
  const hash = new Bun.CryptoHasher("sha256").update(s).digest("hex").slice(0, 16);
  return `${s.slice(0, MAX_SIGNATURE)}#${hash}`;
}
