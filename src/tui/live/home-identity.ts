// Whether the home the TUI opened is still there: its folder and its archive keep the device and inode they had.
import { identityChange, pathIdentity } from "../../shared/path-identity.ts";

export class HomeIdentity {
  private readonly start: (string | undefined)[];

  constructor(private readonly paths: readonly string[]) {
    this.start = paths.map(pathIdentity);
  }

  /**
   * What happened to the first path that is gone or replaced since the start, or since it was first seen (a home
   * made after the start: memvoy demo or add, then Ctrl-L); undefined while all are there.
   */
  lost(): string | undefined {
    for (const [i, path] of this.paths.entries()) this.start[i] ??= pathIdentity(path);
    return identityChange(this.paths, this.start, true);
  }
}
