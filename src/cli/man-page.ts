// memvoy.1: the man page, made from the same help texts as --help (main help, then each command's), so they cannot drift.
import { commandSpecs } from "./command-specs.ts";
import { mainHelp } from "./main.ts";

/** One line of help text as roff: verbatim, escapes neutralised, a leading dot or quote kept literal. */
function roffLine(line: string): string {
  const escaped = line.replaceAll("\\", "\\e").replaceAll("-", "\\-");
  return /^[.']/.test(escaped) ? "\\&" + escaped : escaped;
}

function verbatim(text: string): string[] {
  return [
    ".nf",
    ...text
      .replace(/^\n+|\s+$/g, "")
      .split("\n")
      .map(roffLine),
    ".fi",
  ];
}

/** The inverse of verbatim() for one block: how a test reads the help text back out of the page. */
export function unroff(line: string): string {
  return line.replace(/^\\&/, "").replaceAll("\\-", "-").replaceAll("\\e", "\\");
}

export async function renderManPage(version: string): Promise<string> {
  const specs = await commandSpecs(version);
  const out = [
    `.TH MEMVOY 1 "" "memvoy ${version}" "User Commands"`,
    ".SH NAME",
    "memvoy \\- the memory layer for AI agents",
    ".SH SYNOPSIS",
    ".B memvoy",
    "[\\fICOMMAND\\fR] [\\fIoptions\\fR]",
    ".SH DESCRIPTION",
    "The text of \\fBmemvoy \\-\\-help\\fR:",
    ...verbatim(mainHelp(version)),
    ".SH COMMANDS",
    "Each section is the text of \\fBmemvoy \\fICOMMAND\\fB \\-\\-help\\fR (or \\fBmemvoy \\fICOMMAND SUBCOMMAND\\fB \\-\\-help\\fR).",
  ];
  for (const s of specs) {
    out.push(`.SS ${s.name}`, ...verbatim(s.usage));
    for (const [sub, usage] of Object.entries(s.subcommandUsages))
      out.push(`.SS "${s.name} ${sub}"`, ...verbatim(usage));
  }
  out.push(
    ".SH FILES",
    ".TP",
    ".I ~/.config/memvoy",
    "the home (or \\fB$MEMVOY_HOME\\fR, or \\fB$XDG_CONFIG_HOME/memvoy\\fR): config.toml, sessions/, .store/",
    ".SH SEE ALSO",
    "The README of memvoy.",
  );
  return out.join("\n") + "\n";
}
