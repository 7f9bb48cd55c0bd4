// Run the latest scheduled action once input has been quiet for `delayMs` (timers injectable for tests).
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class Debouncer {
  private handle: unknown;

  constructor(
    private readonly delayMs: number,
    private readonly timers: Timers = realTimers,
  ) {}

  schedule(fn: () => void): void {
    this.cancel();
    this.handle = this.timers.set(() => {
      this.handle = undefined;
      fn();
    }, this.delayMs);
  }

  cancel(): void {
    if (this.handle !== undefined) this.timers.clear(this.handle);
    this.handle = undefined;
  }

  get pending(): boolean {
    return this.handle !== undefined;
  }
}
