// Lend the terminal to another program (the pager) and take it back: the TUI's modes are undone and written
// out before the program starts, nothing of the TUI is drawn while it runs, and all is redrawn after.
import type blessed from "blessed";

interface ScreenInternals {
  leave(): void;
  enter(): void;
  realloc(): void;
  render(): void;
  program: {
    mouseEnabled?: boolean;
    enableMouse(): void;
    input: NodeJS.ReadStream;
    output: NodeJS.WriteStream;
  };
}

export interface LentTerminal {
  /** The terminal back to the TUI: raw keys, the alternate screen, the mouse, a full redraw. */
  reclaim(): void;
}

export function lendTerminal(screen: blessed.Widgets.Screen): LentTerminal {
  const s = screen as unknown as ScreenInternals;
  const { program } = s;
  const { input, output } = program;
  const mouse = program.mouseEnabled === true;
  // Keypad and mouse modes off, cursor shown, normal screen; leave() flushes blessed's buffered output (a
  // terminal write is synchronous), so all of it is on the terminal before the program writes anything.
  s.leave();
  input.pause();
  input.setRawMode?.(false);
  // Renders while the program runs (live updates, a resize) would draw over it: they are dropped.
  const write = output.write;
  output.write = (() => true) as typeof output.write;
  let reclaimed = false;
  return {
    reclaim() {
      if (reclaimed) return;
      reclaimed = true;
      output.write = write;
      input.setRawMode?.(true);
      input.resume();
      s.enter();
      if (mouse) program.enableMouse();
      s.realloc();
      s.render();
    },
  };
}
