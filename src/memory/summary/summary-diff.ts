// What a run changed in the summary: decisions and topics added or removed, the current topic.
import type { Summary } from "./summary-types.ts";

export interface SummaryChanges {
  decisionsAdded: string[];
  decisionsRemoved: string[];
  topicsAdded: string[];
  topicsRemoved: string[];
  topicsUpdated: string[];
  currentTopic?: { from: string; to: string };
}

export function diffSummaries(before: Summary, after: Summary): SummaryChanges {
  const had = new Set(before.key_decisions);
  const has = new Set(after.key_decisions);
  const oldTopics = new Map(before.past_discussions.map((p) => [p.topic, JSON.stringify(p)]));
  const newTopics = new Map(after.past_discussions.map((p) => [p.topic, JSON.stringify(p)]));
  const changes: SummaryChanges = {
    decisionsAdded: after.key_decisions.filter((d) => !had.has(d)),
    decisionsRemoved: before.key_decisions.filter((d) => !has.has(d)),
    topicsAdded: [...newTopics.keys()].filter((t) => !oldTopics.has(t)),
    topicsRemoved: [...oldTopics.keys()].filter((t) => !newTopics.has(t)),
    topicsUpdated: [...newTopics.entries()]
      .filter(([t, json]) => oldTopics.has(t) && oldTopics.get(t) !== json)
      .map(([t]) => t),
  };
  if (before.current_discussion.topic !== after.current_discussion.topic) {
    changes.currentTopic = { from: before.current_discussion.topic, to: after.current_discussion.topic };
  }
  return changes;
}

export function noChanges(c: SummaryChanges): boolean {
  return (
    !c.currentTopic &&
    [c.decisionsAdded, c.decisionsRemoved, c.topicsAdded, c.topicsRemoved, c.topicsUpdated].every((l) => l.length === 0)
  );
}
