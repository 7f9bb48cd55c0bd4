// A recorded search's SQL statements (bench/lib/sql-trace.ts) as one program argument, and read back; no
// imports, so that the replay program (bench/lib/search-replay.ts) compiles to the little it runs.

/** One statement: how it was run (`exec` is Database.run), its arguments, and for `iterate` the rows taken. */
export interface TracedStep {
  sql: string;
  method: "all" | "values" | "get" | "run" | "iterate" | "exec";
  args: unknown[];
  take?: number;
}

/** The steps as one argument for the replay program (bigints and bytes tagged). */
export function encodeSteps(steps: readonly TracedStep[]): string {
  return JSON.stringify(steps, (_k, v) =>
    typeof v === "bigint" ? { $b: String(v) } : v instanceof Uint8Array ? { $u: Buffer.from(v).toString("base64") } : v,
  );
}

/** encodeSteps read back. */
export function decodeSteps(text: string): TracedStep[] {
  return JSON.parse(text, (_k, v) =>
    v !== null && typeof v === "object" && "$b" in v
      ? BigInt(v.$b)
      : v !== null && typeof v === "object" && "$u" in v
        ? new Uint8Array(Buffer.from(v.$u, "base64"))
        : v,
  ) as TracedStep[];
}
