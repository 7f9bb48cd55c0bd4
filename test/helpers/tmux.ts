// Drive a program in a private tmux server: send keys, poll capture-pane until text appears (never a fixed
// sleep), then read the exit status and the terminal modes the program left behind.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let counter = 0;
const EXIT_MARK = "PROGRAM-EXITED=";

export interface TmuxOptions {
  width?: number;
  height?: number;
  /** Environment for the program (a clean one: PATH, HOME, LANG, TZ and TERM unless given). */
  env?: Record<string, string | undefined>;
  cwd?: string;
}

function run(args: string[]): { code: number; out: string; err: string } {
  const p = Bun.spawnSync(["tmux", ...args], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class TmuxSession {
  private readonly dir: string;
  private readonly socket: string;
  private alive = true;

  private constructor(dir: string) {
    this.dir = dir;
    this.socket = join(dir, "sock");
  }

  /** Start `argv` in a detached tmux session of the given size. */
  static start(argv: string[], o: TmuxOptions = {}): TmuxSession {
    const dir = mkdtempSync(join(tmpdir(), `memvoy-tmux-${process.pid}-${++counter}-`));
    const conf = join(dir, "tmux.conf");
    writeFileSync(conf, ["set -g status off", "set -g history-limit 0", 'set -g default-terminal "tmux-256color"', "set -sg escape-time 0"].join("\n") + "\n");
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: o.cwd ?? dir, LANG: "C.UTF-8", TZ: "UTC", TERM: "xterm-256color", ...o.env };
    const envArgs = Object.entries(env).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${quote(v!)}`);
    // `env -i` so the program sees exactly `env`, not the tmux server's environment. Afterwards the shell
    // reports the exit code and the terminal modes, and keeps the pane alive so its state can be read.
    const program = `env -i ${envArgs.join(" ")} ${argv.map(quote).join(" ")}`;
    const report = `printf '\\n${EXIT_MARK}%s %s\\n' "$code" "$(stty -a | tr -s ' ;' '\\n\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' ')"`;
    const cmd = `cd ${quote(o.cwd ?? dir)} && ${program}; code=$?; ${report}; exec sleep 3600`;
    const s = new TmuxSession(dir);
    const r = run(["-S", s.socket, "-f", conf, "new-session", "-d", "-s", "t", "-x", String(o.width ?? 80), "-y", String(o.height ?? 24), cmd]);
    if (r.code !== 0) throw new Error(`tmux new-session failed: ${r.err}`);
    return s;
  }

  /** Keys by tmux name (Down, Enter, Escape, C-s, BSpace, PageDown...). */
  keys(...keys: string[]): void {
    const r = run(["-S", this.socket, "send-keys", "-t", "t", ...keys]);
    if (r.code !== 0) throw new Error(`tmux send-keys failed: ${r.err}`);
  }

  /** Literal text. */
  type(text: string): void {
    const r = run(["-S", this.socket, "send-keys", "-t", "t", "-l", text]);
    if (r.code !== 0) throw new Error(`tmux send-keys failed: ${r.err}`);
  }

  /** The screen as text; with `escapes`, including colour/attribute sequences. */
  capture(escapes = false): string {
    return run(["-S", this.socket, "capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", "t"]).out;
  }

  /** A tmux format value of the pane (pane_dead, pane_dead_status, alternate_on, cursor_flag...). */
  format(name: string): string {
    return run(["-S", this.socket, "display-message", "-p", "-t", "t", `#{${name}}`]).out.trim();
  }

  resize(width: number, height: number): void {
    run(["-S", this.socket, "resize-window", "-t", "t", "-x", String(width), "-y", String(height)]);
  }

  /**
   * Poll the screen until `expected` shows (a string, a regexp, or a predicate); returns that screen.
   * Polls back off to `maxPollMs` (benchmarks pass a few ms to time the moment text appears).
   */
  async waitFor(expected: string | RegExp | ((screen: string) => boolean), timeoutMs = 15_000, maxPollMs = 100): Promise<string> {
    const test = typeof expected === "string" ? (s: string) => s.includes(expected) : expected instanceof RegExp ? (s: string) => expected.test(s) : expected;
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    for (let delay = Math.min(10, maxPollMs); ; delay = Math.min(delay * 2, maxPollMs)) {
      screen = this.capture();
      if (test(screen)) return maxPollMs < 10 ? screen : this.settled(screen, test);
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(expected)}; the screen was:\n${screen}`);
      await Bun.sleep(delay);
    }
  }

  /**
   * A redraw can be caught half-way: once the text shows, capture again until two captures agree (bounded),
   * so the assertions that follow see a whole frame.
   */
  private async settled(first: string, test: (s: string) => boolean): Promise<string> {
    let prev = first;
    for (let i = 0; i < 20; i++) {
      await Bun.sleep(15);
      const next = this.capture();
      if (next === prev && test(next)) return next;
      prev = next;
    }
    return prev;
  }

  /** Poll until the screen no longer shows `text`. */
  async waitForGone(text: string, timeoutMs = 15_000): Promise<string> {
    return this.waitFor((s) => !s.includes(text), timeoutMs);
  }

  /** Wait for the program to end; returns its exit status and the terminal modes it left (icanon, echo). */
  async exited(timeoutMs = 15_000): Promise<{ code: number; modes: string[] }> {
    const screen = await this.waitFor(new RegExp(`${EXIT_MARK}\\d+ `), timeoutMs);
    const m = new RegExp(`${EXIT_MARK}(\\d+) ([^\\n]*)`).exec(screen)!;
    return { code: Number(m[1]), modes: m[2]!.trim().split(/\s+/) };
  }

  /** Raw bytes into the pane (send-keys -H): mouse reports and other sequences no key name covers. */
  bytes(data: string): void {
    const hex = [...new TextEncoder().encode(data)].map((b) => b.toString(16).padStart(2, "0"));
    const r = run(["-S", this.socket, "send-keys", "-t", "t", "-H", ...hex]);
    if (r.code !== 0) throw new Error(`tmux send-keys -H failed: ${r.err}`);
  }

  /** Any tmux command on this server (set-option, show-buffer...); returns its stdout. */
  command(...args: string[]): string {
    const r = run(["-S", this.socket, ...args]);
    if (r.code !== 0) throw new Error(`tmux ${args[0]} failed: ${r.err}`);
    return r.out;
  }

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    run(["-S", this.socket, "kill-server"]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
