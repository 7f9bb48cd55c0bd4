// Validation issues (valibot's shape) as one line of text naming every problem with its path.

/** The part of a valibot issue this needs (kept structural: valibot itself stays at the boundaries). */
export interface SchemaIssue {
  readonly type: string;
  readonly expected: string | null;
  readonly message: string;
  readonly path?: readonly { readonly key: unknown }[] | undefined;
}

export interface IssueTextOptions {
  /** How an unknown key of a strict object reads ("unknown field" by default). */
  unknown?: string;
  /** Shown for an issue about the value itself; when absent, such an issue has no path prefix. */
  topLevel?: string;
}

/** `summary.model: expected string; http.port: ...`: every issue, each with its dotted path. */
export function describeIssues(issues: readonly SchemaIssue[], o: IssueTextOptions = {}): string {
  const seen = new Set<string>();
  for (const issue of issues) {
    const path = dotPath(issue) ?? o.topLevel;
    const unknown = issue.type === "strict_object" && issue.expected === "never";
    const what = unknown ? (o.unknown ?? "unknown field") : issue.message;
    seen.add(path ? `${path}: ${what}` : what);
  }
  return [...seen].join("; ");
}

function dotPath(issue: SchemaIssue): string | undefined {
  if (!issue.path?.length) return undefined;
  const keys = issue.path.map((p) => p.key);
  return keys.every((k) => typeof k === "string" || typeof k === "number") ? keys.join(".") : undefined;
}
