// Short human formats for the TUI: compact times, counts, home paths.
import { homedir } from "node:os";
import { nsToLocalSeconds } from "../../shared/time.ts";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "14:05" today, "Nov 28" this year, "2025-03-01" before; "-" for unknown (0). */
export function shortTime(ns: bigint, nowNs: bigint): string {
  if (ns <= 0n) return "-";
  const full = nsToLocalSeconds(ns);
  const now = nsToLocalSeconds(nowNs);
  if (full.slice(0, 10) === now.slice(0, 10)) return full.slice(11, 16);
  if (full.slice(0, 4) === now.slice(0, 4)) return `${MONTHS[Number(full.slice(5, 7)) - 1]} ${full.slice(8, 10)}`;
  return full.slice(0, 10);
}

/** 1234567 -> "1,234,567" */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** The home with the user's home folder shown as ~. */
export function tildePath(path: string, home: string = process.env.HOME || homedir()): string {
  return home && (path === home || path.startsWith(home + "/")) ? "~" + path.slice(home.length) : path;
}
