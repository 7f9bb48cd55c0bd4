// The summary rules applied to every answer, whatever the model did: decisions start `Do: ` / `Don't: `
// (legacy markers rewritten), at most 8 of each list, times as `YYYY-MM-DD HH:mm`, fields of bounded length.
import type { LooseSummary } from "./summary-schema.ts";
import {
  MAX_DECISIONS,
  MAX_FIELD_CHARS,
  MAX_PAST_DISCUSSIONS,
  emptyCurrent,
  type PastDiscussion,
  type Summary,
} from "./summary-types.ts";

export interface RuleNotes {
  /** Decisions whose language-dependent marker (要：, 不要：, する：, しない：) was rewritten. */
  markersRewritten: number;
  /** Decisions / past topics beyond the limit of 8 that were left out. */
  decisionsCut: number;
  pastCut: number;
}

const LEGACY_MARKERS: [RegExp, "Do: " | "Don't: "][] = [
  [/^不要\s*[：:]\s*/, "Don't: "],
  [/^要\s*[：:]\s*/, "Do: "],
  [/^しない\s*[：:]\s*/, "Don't: "],
  [/^する\s*[：:]\s*/, "Do: "],
];
const DONT = /^(?:don['’‘]?t|do\s+not|dont)\s*[:：\-–]\s*/i;
const DO = /^do\s*[:：\-–]\s*/i;
/** A rule opened by a negative word (the closed list: Don't, Do not, Never, 不要, 別, しない), with or without a colon. */
const NEGATIVE_OPENER = /^(?:(?:don['’‘]?t|do\s+not|never)(?:\s*[:：\-–]\s*|\s+)|(?:不要|別|しない)\s*[:：]?\s*)/i;
const LIST_MARKER = /^(?:[-*•]|\d{1,2}[.)])\s+/;
const BOLD_OPENER = /^(\*\*|__)([^*_]{1,12}?)\1\s*/;
/** "Don't forget to X" is a positive rule: do X. */
const FORGET_TO = /^(?:don['’‘]?t|do\s+not|never)\s+forget\s+(?:to\s+)?/i;

export function hasLegacyMarker(decision: string): boolean {
  return LEGACY_MARKERS.some(([re]) => re.test(decision.trim()));
}

/** `Do: …` / `Don't: …`; undefined for an empty entry. An entry with no prefix is a rule to follow (`Do: `),
 * unless it opens with a negative word (`Don't: `, the word dropped). */
export function normalizeDecision(raw: string, notes?: RuleNotes): string | undefined {
  // A list marker ("- ", "1. ") or bold around the opener ("**Don't:**") is markdown, not part of the rule.
  let text = clip(raw.replace(/\s+/g, " ").trim().replace(LIST_MARKER, "").replace(BOLD_OPENER, "$2"));
  for (const [re, prefix] of LEGACY_MARKERS) {
    if (re.test(text)) {
      if (notes) notes.markersRewritten++;
      text = prefix + text.replace(re, "");
      break;
    }
  }
  let prefix: string = "Do: ";
  if (DONT.test(text)) {
    prefix = "Don't: ";
    text = text.replace(DONT, "");
  } else if (DO.test(text)) text = text.replace(DO, "");
  else if (FORGET_TO.test(text)) text = text.replace(FORGET_TO, "");
  else if (NEGATIVE_OPENER.test(text)) {
    prefix = "Don't: ";
    text = text.replace(NEGATIVE_OPENER, "");
  }
  text = text.trim();
  return text === "" ? undefined : clip(prefix + text);
}

/**
 * `YYYY-MM-DD HH:mm` (UTC, as the transcript's times) from what a model wrote: seconds and a T are dropped, a time
 * with a zone (+08:00, Z) is turned to UTC; "" when it is no time.
 */
export function normalizeMinute(raw: string): string {
  const zoned = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?\s*(Z|UTC|[+-]\d{2}:?\d{2})$/i.exec(
    raw.trim(),
  );
  if (zoned) {
    const zone = /^(z|utc)$/i.test(zoned[3]!) ? "Z" : zoned[3]!.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
    const ms = Date.parse(`${zoned[1]}T${zoned[2]}:00${zone}`);
    if (Number.isFinite(ms)) return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
  }
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(raw.trim());
  if (m) return `${m[1]} ${m[2]}`;
  const d = /^(\d{4}-\d{2}-\d{2})$/.exec(raw.trim());
  return d ? `${d[1]} 00:00` : "";
}

/** A field cut to MAX_FIELD_CHARS (UTF-16 units, as the summary.json schema counts), ending in "…". */
export function clip(text: string): string {
  if (text.length <= MAX_FIELD_CHARS) return text;
  let end = MAX_FIELD_CHARS - 1;
  // Never half an emoji (a lone surrogate is no valid Unicode).
  if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return text.slice(0, end) + "…";
}

/**
 * A Summary from a lenient one. A key the answer left out keeps its value from `fallback` (the previous
 * summary), so an answer missing one list never erases it.
 */
export function applySummaryRules(loose: LooseSummary, fallback: Summary): { summary: Summary; notes: RuleNotes } {
  const notes: RuleNotes = { markersRewritten: 0, decisionsCut: 0, pastCut: 0 };
  const decisions: string[] = [];
  const seen = new Set<string>();
  for (const raw of loose.key_decisions ?? fallback.key_decisions) {
    const d = normalizeDecision(raw, notes);
    if (!d || seen.has(d.toLowerCase())) continue;
    seen.add(d.toLowerCase());
    decisions.push(d);
  }
  // The prompt asks for the most important first: the tail is what goes.
  notes.decisionsCut = Math.max(0, decisions.length - MAX_DECISIONS);

  const past: PastDiscussion[] = [];
  const topics = new Map<string, number>();
  for (const p of loose.past_discussions ?? fallback.past_discussions) {
    const entry: PastDiscussion = {
      topic: clip(p.topic.trim()),
      description: clip(p.description.trim()),
      direction: clip(p.direction.trim()),
      last_discussed: normalizeMinute(p.last_discussed),
    };
    if (!entry.topic && !entry.description) continue;
    const key = entry.topic.toLowerCase();
    const at = topics.get(key);
    if (at !== undefined && key !== "")
      past[at] = entry; // one entry per topic: the later one wins
    else {
      topics.set(key, past.length);
      past.push(entry);
    }
  }
  notes.pastCut = Math.max(0, past.length - MAX_PAST_DISCUSSIONS);

  const c =
    loose.current_discussion === undefined ? fallback.current_discussion : (loose.current_discussion ?? emptyCurrent());
  return {
    summary: {
      key_decisions: decisions.slice(0, MAX_DECISIONS),
      past_discussions: keepNewest(past, MAX_PAST_DISCUSSIONS),
      current_discussion: {
        topic: clip(c.topic.trim()),
        description: clip(c.description.trim()),
        perspectives: clip(c.perspectives.trim()),
        direction: clip(c.direction.trim()),
      },
    },
    notes,
  };
}

/** At most `n` entries: the oldest by last_discussed go first (undated count as oldest); order is kept. */
function keepNewest(list: PastDiscussion[], n: number): PastDiscussion[] {
  if (list.length <= n) return list;
  const ranked = list
    .map((p, i) => ({ p, i }))
    .sort((a, b) => b.p.last_discussed.localeCompare(a.p.last_discussed) || b.i - a.i);
  const keep = new Set(ranked.slice(0, n).map((r) => r.i));
  return list.filter((_, i) => keep.has(i));
}
