// Short human formats for the TUI: compact times, counts, home paths.
import { knownUserHome } from "../../shared/user-home.ts";

/** Compact age: "now", "12m", "5h", "3d", "6w", "4mo", "2y"; "-" for unknown (0). At most 4 cells. */
export function age(ns: bigint, nowNs: bigint): string {
  if (ns <= 0n) return "-";
  const s = Number(nowNs - ns) / 1e9;
  if (s < 60) return "now";
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  if (s < 14 * 86_400) return `${Math.floor(s / 86_400)}d`;
  if (s < 70 * 86_400) return `${Math.floor(s / (7 * 86_400))}w`;
  if (s < 730 * 86_400) return `${Math.floor(s / (30.44 * 86_400))}mo`;
  return `${Math.floor(s / (365.25 * 86_400))}y`;
}

/** 1234567 -> "1,234,567" */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** The home with the user's home folder shown as ~. */
export function tildePath(path: string, home: string = knownUserHome() ?? ""): string {
  return home && (path === home || path.startsWith(home + "/")) ? "~" + path.slice(home.length) : path;
}
