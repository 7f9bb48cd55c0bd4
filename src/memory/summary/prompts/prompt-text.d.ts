// Prompt files are imported as text (`with { type: "text" }`) and embedded by the build.
declare module "*.md" {
  const text: string;
  export default text;
}
