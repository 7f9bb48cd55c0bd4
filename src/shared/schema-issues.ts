// Validation issues (valibot's shape) as one line of text naming every problem with its path.

/** The part of a valibot issue this needs (kept structural: valibot itself stays at the boundaries). */
export interface SchemaIssue {
  readonly type: string;
  readonly expected: string | null;
  readonly message: string;
  readonly received?: string;
  readonly path?: readonly { readonly key: unknown }[] | undefined;
}

export interface IssueTextOptions {
  /** How an unknown key of a strict object reads ("unknown field" by default). */
  unknown?: string;
  /** Shown for an issue about the value itself; when absent, such an issue has no path prefix. */
  topLevel?: string;
  /** How an absent field reads ("missing"); by default the validator's message. */
  missing?: string;
  /** Leave the path out where the message already starts with it ("limit must be a whole number ..."). */
  omitNamedPath?: boolean;
  /**
   * Arrays whose items an issue names by position from 1, as the checks after the schema do ("message 2"), with
   * the item's noun: `{ messages: "message" }` reads `messages.1.sender` as `message 2, sender`.
   */
  items?: Readonly<Record<string, string>>;
}

/** One validation problem: where (dotted path, absent for the value itself) and what. */
export interface IssueFact {
  path?: string;
  problem: string;
}

/** Every issue as a fact with its dotted path, duplicates dropped: the data an input error carries. */
export function issueFacts(issues: readonly SchemaIssue[], o: IssueTextOptions = {}): IssueFact[] {
  const seen = new Map<string, IssueFact>();
  for (const issue of issues) {
    const item = itemPath(issue, o.items);
    const path = item?.path ?? dotPath(issue) ?? o.topLevel;
    const unknown = issue.type === "strict_object" && issue.expected === "never";
    const absent = o.missing !== undefined && issue.received === "undefined" && dotPath(issue) !== undefined;
    const problem = unknown ? (o.unknown ?? "unknown field") : absent ? o.missing! : issue.message;
    const fact: IssueFact = { problem };
    if (item?.field && o.omitNamedPath && problem.startsWith(`${item.field} `)) fact.path = item.item;
    else if (path && !(o.omitNamedPath && problem.startsWith(`${path} `))) fact.path = path;
    seen.set(describeIssueFacts([fact]), fact);
  }
  return [...seen.values()];
}

/** `summary.model: expected string; http.port: ...`: every fact, each with its path. */
export function describeIssueFacts(facts: readonly IssueFact[]): string {
  return facts.map((f) => (f.path ? `${f.path}: ${f.problem}` : f.problem)).join("; ");
}

/** `summary.model: expected string; http.port: ...`: every issue, each with its dotted path. */
export function describeIssues(issues: readonly SchemaIssue[], o: IssueTextOptions = {}): string {
  return describeIssueFacts(issueFacts(issues, o));
}

function dotPath(issue: SchemaIssue): string | undefined {
  if (!issue.path?.length) return undefined;
  const keys = issue.path.map((p) => p.key);
  return keys.every((k) => typeof k === "string" || typeof k === "number") ? keys.join(".") : undefined;
}

/** An issue inside an item of one of `items`' arrays: the item by position from 1, and the field in it. */
function itemPath(
  issue: SchemaIssue,
  items: Readonly<Record<string, string>> | undefined,
): { item: string; field: string; path: string } | undefined {
  const keys = (issue.path ?? []).map((p) => p.key);
  const noun = typeof keys[0] === "string" && items ? items[keys[0]] : undefined;
  if (noun === undefined || typeof keys[1] !== "number") return undefined;
  if (!keys.slice(2).every((k) => typeof k === "string" || typeof k === "number")) return undefined;
  const item = `${noun} ${keys[1] + 1}`;
  const field = keys.slice(2).join(".");
  return { item, field, path: field ? `${item}, ${field}` : item };
}
