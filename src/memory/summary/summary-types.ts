// The rolling summary's shape (summary.json): standing decisions, past topics, the current topic.

export interface PastDiscussion {
  topic: string;
  description: string;
  direction: string;
  /** `YYYY-MM-DD HH:mm` (UTC), or "" when unknown. */
  last_discussed: string;
}

export interface CurrentDiscussion {
  topic: string;
  description: string;
  perspectives: string;
  direction: string;
}

export interface Summary {
  /** At most 8, each starting `Do: ` or `Don't: `. */
  key_decisions: string[];
  /** At most 8. */
  past_discussions: PastDiscussion[];
  current_discussion: CurrentDiscussion;
}

export const MAX_DECISIONS = 8;
export const MAX_PAST_DISCUSSIONS = 8;
/** Longest text kept in one field (a runaway answer is cut, not refused). */
export const MAX_FIELD_CHARS = 2000;

export function emptyCurrent(): CurrentDiscussion {
  return { topic: "", description: "", perspectives: "", direction: "" };
}

export function emptySummary(): Summary {
  return { key_decisions: [], past_discussions: [], current_discussion: emptyCurrent() };
}

export function currentIsEmpty(c: CurrentDiscussion): boolean {
  return !c.topic && !c.description && !c.perspectives && !c.direction;
}

export function summaryIsEmpty(s: Summary): boolean {
  return s.key_decisions.length === 0 && s.past_discussions.length === 0 && currentIsEmpty(s.current_discussion);
}

/**
 * summary.json text: the three keys, pretty-printed; then `legacy`, the keys of Agenvoy's older format a save
 * keeps until a summary call has folded them in.
 */
export function summaryText(s: Summary, legacy: Record<string, unknown> = {}): string {
  return (
    JSON.stringify(
      {
        key_decisions: s.key_decisions,
        past_discussions: s.past_discussions,
        current_discussion: s.current_discussion,
        ...legacy,
      },
      null,
      2,
    ) + "\n"
  );
}

/** summary.json as read: missing, unreadable (corrupt), or a summary under the summary rules. */
export type SummaryFile =
  | { state: "missing" }
  | { state: "corrupt"; detail: string }
  | {
      state: "ok";
      /** The content under the summary rules (legacy markers rewritten, limits applied). */
      summary: Summary;
      /** Keys of the pre-v0.32.7 format, kept verbatim so the next merge can fold them in. */
      legacy: Record<string, unknown>;
      /** sha256 of the file's bytes. */
      sha: string;
    };
