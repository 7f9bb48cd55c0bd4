// blessed's widget modules (their types are the index's: see blessed-widgets.ts).
declare module "blessed/lib/widgets/screen" {
  const Screen: unknown;
  export default Screen;
}
declare module "blessed/lib/widgets/box" {
  const Box: unknown;
  export default Box;
}
declare module "blessed/lib/tput" {
  const Tput: unknown;
  export default Tput;
}
declare module "blessed/lib/unicode" {
  const Unicode: unknown;
  export default Unicode;
}
