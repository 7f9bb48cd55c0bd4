// The prompt files (embedded by the build) and filling their {{PLACEHOLDERS}}.
import summarySystem from "./prompts/summary-system.md" with { type: "text" };
import summaryUser from "./prompts/summary-user.md" with { type: "text" };
import noiseSystem from "./prompts/noise-system.md" with { type: "text" };
import supersedeSystem from "./prompts/supersede-system.md" with { type: "text" };
import relevanceSystem from "./prompts/relevance-system.md" with { type: "text" };
import priorContextSystem from "./prompts/prior-context-system.md" with { type: "text" };
import priorSummaryTurn from "./prompts/prior-summary-turn.md" with { type: "text" };

export const PROMPTS = {
  summarySystem,
  summaryUser,
  noiseSystem,
  supersedeSystem,
  relevanceSystem,
  priorContextSystem,
  priorSummaryTurn,
};

/**
 * Replace every {{NAME}} of the template in one pass: a value is never searched again, so a message that
 * happens to hold `{{PART}}` reaches the model as written. Names with no value are left as they are.
 */
export function fill(template: string, values: Record<string, string>): string {
  return template
    .replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole))
    .trimEnd();
}

/**
 * The code fence around a JSON block of summary text: longer than any backtick run inside it (a field may hold
 * ```), so that the block cannot end early and leave the rest of a field as text outside it.
 */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}
