// A one-line progress bar redrawn in place on a terminal stream (stderr).

/** Writes at most one redraw per this many ms (the first update and a bar's last are always drawn). */
const REDRAW_MS = 100;

/**
 * Whether progress may be redrawn in place on `stream`: a terminal that can move the cursor back, so not TERM=dumb
 * (Emacs' shell, some CI consoles), where the carriage returns and erase sequences would show as text.
 */
export function redrawsInPlace(stream: { isTTY?: boolean }): boolean {
  return stream.isTTY === true && process.env.TERM !== "dumb";
}

/** Where progress is written: a terminal stream (stderr). */
type Sink = Pick<NodeJS.WriteStream, "write">;

/**
 * `clock`: ms, for tests. The first update is drawn at once, whenever it comes: performance.now() counts from
 * the process's start, so a first update within REDRAW_MS of it would otherwise be skipped.
 */
export function progressBar(stream: Sink, width = 30, unit = "messages", clock = () => performance.now()) {
  const started = clock();
  let last = Number.NEGATIVE_INFINITY;
  let ended = false;
  const draw = (done: number, total: number, skipped: number) => {
    const secs = (clock() - started) / 1000;
    const rate = secs > 0 ? Math.round(Math.max(0, done - skipped) / secs) : 0;
    stream.write(`\r${meter(done, total, width)} ${done}/${total} ${unit}  ${rate}/s\x1b[K`);
  };
  return {
    /** `skipped`: how many of `done` were there before this run (a resumed copy): shown, not in the rate. */
    update(done: number, total: number, skipped = 0): void {
      const now = clock();
      if (now - last < REDRAW_MS && done < total) return;
      last = now;
      draw(done, total, skipped);
    },
    /** End the bar's line (once: a second call writes nothing). */
    done(): void {
      if (ended) return;
      ended = true;
      stream.write("\n");
    },
  };
}

/** `[#####.....]`: the share done, `width` characters wide. */
export function meter(done: number, total: number, width = 20): string {
  const fill = total > 0 ? Math.round((Math.min(done, total) / total) * width) : width;
  return `[${"#".repeat(fill)}${".".repeat(width - fill)}]`;
}

/** A one-line status redrawn in place (stderr on a terminal): a label, and a rate of `count` per second. */
export function progressLine(stream: Sink, clock = () => performance.now()) {
  const started = clock();
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    /** Redraw (at most every REDRAW_MS, unless `force`: a new phase of the work shows at once). */
    update(label: string, count: number, force = false): void {
      const now = clock();
      if (!force && now - last < REDRAW_MS) return;
      last = now;
      shown = true;
      const secs = (now - started) / 1000;
      stream.write(`\r${label}, ${secs > 0 ? Math.round(count / secs) : 0}/s\x1b[K`);
    },
    done(): void {
      if (shown) stream.write("\r\x1b[K");
    },
  };
}
