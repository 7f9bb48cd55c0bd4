// Change notification for a shared memory: the archive's change stamp, read every interval; a new stamp
// means another host (or this one) wrote. One read at a time; a failed read is reported once until one succeeds.
export class ArchivePoller {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private last: string | undefined;
  private failing = false;

  constructor(
    private readonly stamp: () => Promise<string>,
    private readonly onChange: () => void,
    private readonly onError: (err: unknown) => void,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    void this.poll();
  }

  private async poll(): Promise<void> {
    try {
      const s = await this.stamp();
      this.failing = false;
      if (this.last !== undefined && s !== this.last && !this.closed) this.onChange();
      this.last = s;
    } catch (err) {
      if (!this.failing && !this.closed) this.onError(err);
      this.failing = true;
    }
    if (!this.closed) this.timer = setTimeout(() => void this.poll(), this.intervalMs);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
