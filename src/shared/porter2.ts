// Porter2 stems of lower-case ASCII words, exactly as wink-porter2-stemmer gives them (the index holds its
// stems), without its regular expressions: each one costs a fresh process a compile on first use.

const VOWELS = "aeiouy";
const isVowel = (c: string | undefined) => c !== undefined && VOWELS.includes(c);

/** Whether `s` holds a vowel before index `end`. */
function vowelBefore(s: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowel(s[i])) return true;
  return false;
}

const words = (list: string) => list.split(" ");
const rules = (list: string) => words(list).map((r) => r.split(":") as [string, string]);

const EXCEPTIONS = new Map(
  rules(
    "skis:ski skies:sky dying:die lying:lie tying:tie idly:idl gently:gentl ugly:ugli early:earli only:onli singly:singl sky:sky news:news atlas:atlas cosmos:cosmos bias:bias andes:andes",
  ),
);
/** The start a stem shares with an exceptional word of it that does not begin with it (die: "d", for dying). */
const EXCEPTIONAL_STARTS = new Map(
  [...EXCEPTIONS]
    .filter(([word, stem]) => !word.startsWith(stem))
    .map(([word, stem]) => {
      let n = 0;
      while (word[n] === stem[n]) n++;
      return [stem, stem.slice(0, n)] as const;
    }),
);

/** For a stem some exceptional word does not begin with (die, of dying), the start they share; undefined else. */
export function exceptionalStart(stem: string): string | undefined {
  return EXCEPTIONAL_STARTS.get(stem);
}

const INVARIANT_AFTER_1A = new Set(words("inning outing canning herring proceed exceed succeed earring"));

/** What follows the first non-vowel after the first vowel, when something does ('' else): R1 of `s`, R2 of R1. */
function region(s: string): string {
  let i = 0;
  while (i < s.length && !isVowel(s[i])) i++;
  while (i < s.length && isVowel(s[i])) i++;
  return i < s.length - 1 ? s.slice(i + 1) : "";
}

function regions(s: string): { r1: string; r2: string } {
  let r1 = region(s);
  if (r1 === "") return { r1, r2: "" };
  for (const p of ["gener", "commun", "arsen"])
    if (s.startsWith(p)) {
      r1 = s.slice(p.length);
      break;
    }
  return { r1, r2: region(r1) };
}

/** A short syllable ends the word (as the stemmer tests it). */
function isShort(s: string): boolean {
  const n = s.length;
  if (n >= 3 && !isVowel(s[n - 3]) && isVowel(s[n - 2]) && !isVowel(s[n - 1]) && !"wx3".includes(s[n - 1]!))
    return true;
  return (n === 1 || n === 2) && isVowel(s[0]) && (n === 1 || !isVowel(s[1]));
}

/** The longest of `suffixes` that `s` ends with, or undefined. */
const longestSuffix = (s: string, suffixes: readonly string[]) => {
  let best: string | undefined;
  for (const x of suffixes) if (s.endsWith(x) && (best === undefined || x.length > best.length)) best = x;
  return best;
};

/**
 * A y that is not a vowel becomes 3 (the first one after a vowel, and a leading one). Then a final u goes: the
 * stemmer's class of trailing apostrophes, as Bun transpiles it, holds the letter u too, and the index holds the
 * stems it gave (`menu` as `men`).
 */
function prelude(s: string): string {
  if (s[0] === "y") s = "3" + s.slice(1);
  for (let i = 0; i + 1 < s.length; i++)
    if ("aeiou".includes(s[i]!) && s[i + 1] === "y") {
      s = s.slice(0, i + 1) + "3" + s.slice(i + 2);
      break;
    }
  return s.endsWith("u") ? s.slice(0, -1) : s;
}

function step1a(s: string): string {
  const n = s.length;
  if (n >= 5 && s.endsWith("sses")) return s.slice(0, -2);
  if (s.endsWith("ied") || s.endsWith("ies")) {
    if (n >= 5) return s.slice(0, -3) + "i";
    if (n === 4) return s.slice(0, -3) + "ie";
  }
  if (n >= 3 && (s.endsWith("us") || s.endsWith("ss"))) return s;
  if (n >= 2 && s.endsWith("s")) {
    const part = s.slice(0, -1);
    if (vowelBefore(part, part.length - 1)) return part;
  }
  return s;
}

function step1b(s: string): string {
  const eed = s.endsWith("eedly") ? 5 : s.endsWith("eed") ? 3 : 0;
  if (eed > 0) {
    const { r1 } = regions(s);
    return r1.endsWith("eedly") || r1.endsWith("eed") ? s.slice(0, -eed) + "ee" : s;
  }
  const cut = s.endsWith("ed") ? 2 : s.endsWith("edly") ? 4 : s.endsWith("ingly") ? 5 : s.endsWith("ing") ? 3 : 0;
  if (cut === 0) return s;
  const sd = s.slice(0, -cut);
  if (!vowelBefore(sd, sd.length)) return s;
  if (sd.endsWith("at") || sd.endsWith("bl") || sd.endsWith("iz")) return sd + "e";
  if (/(bb|dd|ff|gg|mm|nn|pp|rr|tt)$/.test(sd)) return sd.slice(0, -1);
  return isShort(sd) && regions(sd).r1 === "" ? sd + "e" : sd;
}

function step1c(s: string): string {
  const n = s.length;
  return n >= 3 && (s[n - 1] === "y" || s[n - 1] === "3") && !isVowel(s[n - 2]) ? s.slice(0, -1) + "i" : s;
}

const STEP2 = words(
  "ization ational fulness ousness iveness tional biliti lessli entli ation alism aliti ousli iviti fulli enci anci abli izer ator alli bli ogi li",
);
/** Step 2's rewrites in the stemmer's order, `suffix:replacement` (then the li rule in step2). */
const STEP2_RULES = rules(
  "ational:ate ization:ize fulness:ful ousness:ous iveness:ive tional:tion biliti:ble lessli:less iviti:ive ousli:ous ation:ate entli:ent alism:al aliti:al fulli:ful alli:al ator:ate izer:ize enci:ence anci:ance abli:able bli:ble logi:log",
);

function step2(s: string): string {
  const match = longestSuffix(s, STEP2);
  if (match === undefined || !regions(s).r1.includes(match)) return s;
  for (const [suffix, by] of STEP2_RULES) if (s.endsWith(suffix)) return s.slice(0, -suffix.length) + by;
  const n = s.length;
  return n >= 3 && s.endsWith("li") && "cdeghkmnrt".includes(s[n - 3]!) ? s.slice(0, -2) : s;
}

const STEP3 = words("ational tional alize icate iciti ative ical ness ful");
const STEP3_RULES = rules("ational:ate tional:tion alize:al icate:ic iciti:ic ical:ic ness: ful:");

function step3(s: string): string {
  const match = longestSuffix(s, STEP3);
  if (match === undefined) return s;
  const { r1, r2 } = regions(s);
  if (!r1.includes(match)) return s;
  for (const [suffix, by] of STEP3_RULES) if (s.endsWith(suffix)) return s.slice(0, -suffix.length) + by;
  return r2.includes("ative") && s.endsWith("ative") ? s.slice(0, -5) : s;
}

const STEP4 = words("ement ance ence able ible ment ant ent ism ate iti ous ive ize al er ic");

function step4(s: string): string {
  const removable = longestSuffix(s, STEP4);
  const match = removable ?? (s.endsWith("ion") ? "ion" : undefined);
  if (match === undefined || !regions(s).r2.includes(match)) return s;
  if (removable !== undefined) return s.slice(0, -removable.length);
  return s.endsWith("sion") || s.endsWith("tion") ? s.slice(0, -3) : s;
}

function step5(s: string): string {
  const { r1, r2 } = regions(s);
  if (s.endsWith("e")) {
    const preceding = s.slice(0, -1);
    return r2.includes("e") || (r1.includes("e") && !isShort(preceding)) ? preceding : s;
  }
  if (s.endsWith("l")) return r2.endsWith("l") && s.endsWith("ll") ? s.slice(0, -1) : s;
  return s;
}

/** The Porter2 stem of a word of lower-case ASCII letters. */
export function porter2Ascii(word: string): string {
  if (word.length < 3) return word;
  const known = EXCEPTIONS.get(word);
  if (known !== undefined) return known;
  let s = step1a(prelude(word));
  if (!INVARIANT_AFTER_1A.has(s)) s = step5(step4(step3(step2(step1c(step1b(s))))));
  return s.replaceAll("3", "y");
}
