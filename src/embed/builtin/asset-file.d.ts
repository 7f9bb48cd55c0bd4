// Binary assets imported `with { type: "file" }` resolve to a path (embedded by `bun build --compile`).
declare module "*.bin" {
  const path: string;
  export default path;
}
