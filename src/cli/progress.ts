// A one-line progress bar redrawn in place on a terminal stream (stderr).

export function progressBar(stream: NodeJS.WriteStream, width = 30, unit = "messages") {
  const started = performance.now();
  let last = 0;
  const draw = (done: number, total: number) => {
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const fill = Math.round(frac * width);
    const secs = (performance.now() - started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    stream.write(`\r[${"#".repeat(fill)}${".".repeat(width - fill)}] ${done}/${total} ${unit}  ${rate}/s\x1b[K`);
  };
  return {
    update(done: number, total: number): void {
      const now = performance.now();
      if (now - last < 100 && done < total) return;
      last = now;
      draw(done, total);
    },
    done(): void {
      stream.write("\n");
    },
  };
}

/** A one-line status redrawn in place (stderr on a terminal): a label, and a rate of `count` per second. */
export function progressLine(stream: NodeJS.WriteStream) {
  const started = performance.now();
  let last = 0;
  let shown = false;
  return {
    update(label: string, count: number): void {
      const now = performance.now();
      if (now - last < 100) return;
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
