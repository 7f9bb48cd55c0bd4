// The bash, zsh and fish completion scripts: thin glue that asks `memvoy __complete` for the candidates.

const BASH = `# bash completion for memvoy (memvoy completion bash)
_memvoy() {
  local IFS=$'\\n' cur="\${COMP_WORDS[COMP_CWORD]}" out
  out=$(command memvoy __complete "$COMP_CWORD" "\${COMP_WORDS[@]}" 2>/dev/null) || return 0
  # --flag=value: bash completes the part after "=" (a word of its own)
  [[ "$cur" == "=" ]] && cur=""
  # names as the shell's own file completion gives them: a space escaped, a folder ending in "/"
  case "$out" in
    __files__) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    __dirs__) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    *) COMPREPLY=($out) ;;
  esac
}
complete -F _memvoy memvoy
`;

const ZSH = `#compdef memvoy
# zsh completion for memvoy (memvoy completion zsh)
_memvoy() {
  local -a out
  out=("\${(@f)$(command memvoy __complete $((CURRENT - 1)) "\${words[@]}" 2>/dev/null)}")
  out=(\${out:#})
  # --flag=value: the candidates are values; keep "--flag=" out of the word being completed
  [[ "$PREFIX" == --*=* ]] && compset -P '*='
  case "$out[1]" in
    __files__) _files ;;
    __dirs__) _files -/ ;;
    *) (( \${#out} )) && compadd -Q -V memvoy -- "\${out[@]}" ;;
  esac
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _memvoy "$@"
else
  compdef _memvoy memvoy
fi
`;

const FISH = `# fish completion for memvoy (memvoy completion fish)
function __memvoy_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l out (command memvoy __complete (count $tokens) $tokens $cur 2>/dev/null)
    # --flag=value: the candidates are values; fish completes the whole token, "--flag=" included
    set -l flag (string match -r -- '^--[a-z][a-z-]*=' "$cur")
    set -l value (string replace -r -- '^--[a-z][a-z-]*=' '' "$cur")
    switch "$out[1]"
        case __files__
            printf '%s\\n' "$flag"(__fish_complete_path "$value")
        case __dirs__
            printf '%s\\n' "$flag"(__fish_complete_directories "$value")
        case '*'
            printf '%s\\n' "$flag"$out
    end
end
complete -c memvoy -f -k -a '(__memvoy_complete)'
`;

export const SHELLS = { bash: BASH, zsh: ZSH, fish: FISH } as const;
export type Shell = keyof typeof SHELLS;
/** Where install.sh puts each script, relative to the data directory (~/.local/share). */
export const SCRIPT_FILES: Record<Shell, string> = { bash: "memvoy.bash", zsh: "_memvoy", fish: "memvoy.fish" };
