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
    normalBuffer(): void;
    showCursor(): void;
    disableMouse(): void;
    flush(): void;
    put: { keypad_local(): void };
    input: NodeJS.ReadStream;
    output: NodeJS.WriteStream;
  };
}

export interface LentTerminal {
  /** The terminal back to the TUI: raw keys, the alternate screen, the mouse, a full redraw. */
  reclaim(): void;
  /** The terminal left to the shell (the TUI is exiting): the modes undone again, whatever the program left. */
  release(): void;
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
  let returned = false;
  const giveBack = () => {
    const first = !returned;
    returned = true;
    output.write = write;
    return first;
  };
  return {
    reclaim() {
      if (!giveBack()) return;
      input.setRawMode?.(true);
      input.resume();
      s.enter();
      if (mouse) program.enableMouse();
      s.realloc();
      s.render();
    },
    release() {
      if (!giveBack()) return;
      program.put.keypad_local();
      program.disableMouse();
      program.showCursor();
      program.normalBuffer();
      program.flush();
    },
  };
}
