// Selection and scroll offset of a list shown in a window of `height` rows.
export class ListCursor {
  selected = 0;
  offset = 0;

  constructor(
    public count = 0,
    public height = 1,
  ) {}

  setCount(count: number): void {
    this.count = Math.max(0, count);
    this.clamp();
  }

  setHeight(height: number): void {
    this.height = Math.max(1, height);
    this.clamp();
  }

  move(delta: number): void {
    this.select(this.selected + delta);
  }

  home(): void {
    this.select(0);
  }

  end(): void {
    this.select(this.count - 1);
  }

  select(index: number): void {
    this.selected = index;
    this.clamp();
  }

  /** Indexes of the rows in view. */
  visible(): { first: number; last: number } {
    return { first: this.offset, last: Math.min(this.count, this.offset + this.height) - 1 };
  }

  private clamp(): void {
    if (this.count === 0) {
      this.selected = 0;
      this.offset = 0;
      return;
    }
    this.selected = Math.min(Math.max(0, this.selected), this.count - 1);
    if (this.selected < this.offset) this.offset = this.selected;
    if (this.selected >= this.offset + this.height) this.offset = this.selected - this.height + 1;
    this.offset = Math.max(0, Math.min(this.offset, Math.max(0, this.count - this.height)));
  }
}
