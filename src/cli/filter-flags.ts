// --since/--until/--role/--sender: one flag set and one help block for search, history and export.
import type { FlagSpecs, Parsed } from "./args.ts";
import { str } from "./args.ts";

export const FILTER_FLAGS: FlagSpecs = {
  since: { type: "string" },
  until: { type: "string" },
  role: { type: "string" },
  sender: { type: "string" },
};

export const FILTER_USAGE = `  --since TIME  only messages sent at or after TIME
  --until TIME  only messages sent up to the end of TIME (09:30:15: that second; 09:30: that
                minute; a date alone: that day)
  --role R      only messages of this role: user or assistant
  --sender NAME only this sender's messages (any ASCII case: Alice finds alice)
                TIME is RFC 3339 (2026-05-01T09:30:00Z), a local date or time
                ("2026-05-01", "2026-05-01 09:30", like --at), today, yesterday, or a
                relative form counted back from now: 30m, 12h, 3d, 2w, 1y`;

/** The filter options as MemoryApi takes them (parsed and checked there, so every surface shares the rules). */
export function filterOptions(p: Parsed): { since?: string; until?: string; role?: string; sender?: string } {
  const out: { since?: string; until?: string; role?: string; sender?: string } = {};
  for (const k of ["since", "until", "role", "sender"] as const) {
    const v = str(p, k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
