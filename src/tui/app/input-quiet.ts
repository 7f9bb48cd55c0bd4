// When the person at the keyboard last did something: background work that blocks the event loop waits for a
// pause in their keys and clicks, so that it never holds up the answer to one.
export class InputQuiet {
  private last = performance.now();
  private stopped = false;
  private readonly sleepers = new Set<() => void>();

  /** A key or a click just arrived. */
  touch(): void {
    this.last = performance.now();
  }

  /** Resolves once `ms` have passed with no input (at once after stop()). */
  async after(ms: number): Promise<void> {
    while (!this.stopped) {
      const wait = this.last + ms - performance.now();
      if (wait <= 0) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.ceil(wait));
        this.sleepers.add(wake);
      });
    }
  }

  /** The program is ending: nothing waits for a pause any more. */
  stop(): void {
    this.stopped = true;
    for (const wake of [...this.sleepers]) wake();
  }
}
