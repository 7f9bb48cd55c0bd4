// Whether the home the TUI opened is still there: its folder and its archive keep the device and inode they had.
import { pathIdentity as identity } from "../../shared/path-identity.ts";

export class HomeIdentity {
  private readonly start: (string | undefined)[];

  constructor(private readonly paths: readonly string[]) {
    this.start = paths.map(identity);
  }

  /** What happened to the first path that is gone or replaced since the start; undefined while all are there. */
  lost(): string | undefined {
    for (const [i, path] of this.paths.entries()) {
      if (this.start[i] === undefined) continue;
      const now = identity(path);
      if (now === this.start[i]) continue;
      return now === undefined ? `${path} was deleted` : `${path} was replaced`;
    }
    return undefined;
  }
}
