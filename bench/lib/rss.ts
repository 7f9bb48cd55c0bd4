// Peak resident memory of this process: VmHWM from /proc on Linux, else the highest sampled RSS.
import { readFileSync } from "node:fs";

let sampled = 0;

/** Record the current RSS (call between phases where /proc is not available). */
export function sampleRss(): void {
  sampled = Math.max(sampled, process.memoryUsage.rss());
}

export function peakRssBytes(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  sampleRss();
  return sampled;
}

export const fmtMiB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
