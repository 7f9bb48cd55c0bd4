// The two blessed widgets memvoy draws with, from their own modules: blessed's index also loads every other
// widget (file manager, terminal, images, video...), which a launch would pay for at start.
import type blessed from "blessed";
import ScreenWidget from "blessed/lib/widgets/screen";
import BoxWidget from "blessed/lib/widgets/box";
import Tput from "blessed/lib/tput";
import "./wide-cells.ts";

export const screen = ScreenWidget as unknown as (options?: blessed.Widgets.IScreenOptions) => blessed.Widgets.Screen;
export const box = BoxWidget as unknown as (options?: blessed.Widgets.BoxOptions) => blessed.Widgets.BoxElement;

type CapFunction = (this: unknown, params: unknown[]) => unknown;
interface TputInternals {
  options: { stringify?: boolean };
  _compile(info: unknown, key: string, cap: unknown): unknown;
}

// blessed compiles every string capability of the terminal (about 260, each through new Function) when the
// screen opens; a few dozen are ever used. Each is compiled on its first use instead (a launch saves the rest).
const proto = (Tput as unknown as { prototype: TputInternals }).prototype;
const compileNow = proto._compile;
proto._compile = function (this: TputInternals, info, key, cap) {
  const now = typeof cap !== "string" || cap === "" || this.options.stringify || key.endsWith("_file");
  if (now) return compileNow.call(this, info, key, cap);
  let compiled: CapFunction | undefined;
  const tput = this;
  return function (this: unknown, params: unknown[]) {
    compiled ??= compileNow.call(tput, info, key, cap) as CapFunction;
    return compiled.call(this, params);
  };
};
