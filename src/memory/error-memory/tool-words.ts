// What common tools are about, in the words people use when they describe an error without naming the
// tool ("the rust build", "postgres rejects the login"): added to a record's words for the word-level match.
const TOOL_WORDS: Record<string, string> = {
  aws: "amazon cloud",
  bash: "shell script command",
  cargo: "rust crate compiler",
  curl: "http request url download",
  docker: "container image",
  git: "repository branch github commit",
  go: "golang compiler",
  helm: "kubernetes chart release",
  kubectl: "kubernetes cluster pod container",
  make: "makefile build compile",
  node: "javascript node",
  npm: "node javascript package install",
  pip: "python package install",
  psql: "postgres postgresql database sql",
  pytest: "python test",
  python: "python",
  ssh: "remote server login key",
  systemctl: "systemd service unit daemon",
  terraform: "infrastructure plan apply state",
  tsc: "typescript compiler type",
  yarn: "node javascript package install",
};

export function toolWords(tool: string): string {
  return `${tool} ${TOOL_WORDS[tool.toLowerCase()] ?? ""}`;
}
