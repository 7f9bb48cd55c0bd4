// The two blessed widgets memvoy draws with, from their own modules: blessed's index also loads every other
// widget (file manager, terminal, images, video...), which a launch would pay for at start.
import type blessed from "blessed";
import ScreenWidget from "blessed/lib/widgets/screen";
import BoxWidget from "blessed/lib/widgets/box";

export const screen = ScreenWidget as unknown as (options?: blessed.Widgets.IScreenOptions) => blessed.Widgets.Screen;
export const box = BoxWidget as unknown as (options?: blessed.Widgets.BoxOptions) => blessed.Widgets.BoxElement;
