// The typed query of a pane: characters appended, the last one (a whole code point) taken back.
export class QueryInput {
  query = "";

  insert(text: string): void {
    this.query += text;
  }

  /** Remove the last character; false when there was none. */
  backspace(): boolean {
    if (this.query === "") return false;
    this.query = Array.from(this.query).slice(0, -1).join("");
    return true;
  }
}
