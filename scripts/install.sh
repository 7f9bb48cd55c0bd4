#!/bin/sh
# Install memvoy for one user: the binary into ~/.local/bin, the man page, bash/zsh/fish completions and
# the systemd user unit (not enabled). Works from a release tarball, an unpacked release, or a build tree.
set -eu
# The folders made are readable by all, as the files are (644, 755): under a umask of 077 a shared --prefix
# (/opt/memvoy, /usr/local) got 0700 folders that no other user could run the binary from.
umask 022

usage() {
  cat <<'EOF'
Usage: install.sh [--prefix DIR] [SOURCE]

Install memvoy: the binary into PREFIX/bin, memvoy.1 into PREFIX/share/man/man1, completions
for bash, zsh and fish, and the systemd user unit into PREFIX/share/memvoy (not enabled).

  SOURCE        a release tarball (memvoy-VERSION-OS-ARCH.tar.gz), an unpacked release folder,
                or a build folder (dist/ after `bun run build`). Default: the folder holding this
                script when it is a release, else ../dist beside it.
  --prefix DIR  where to install (default: $PREFIX, else ~/.local)

A release's SHA256SUMS is checked before anything is installed, and so is the tarball's
.sha256 file when it lies beside the tarball.
EOF
}

die() { echo "install.sh: $*" >&2; exit 2; }

prefix=""
prefix_given=no
source=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix="$2"; prefix_given=yes; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; prefix_given=yes; shift ;;
    -*) die "unknown option $1 (see install.sh --help)" ;;
    *) [ -z "$source" ] || die "unexpected argument $1"; source="$1"; shift ;;
  esac
done

if [ "$prefix_given" = yes ]; then [ -n "$prefix" ] || die "--prefix is empty: name a folder"
elif [ -n "${PREFIX:-}" ]; then prefix="$PREFIX"
elif [ -n "${HOME:-}" ]; then prefix="$HOME/.local"
else die "HOME is not set: name where to install with --prefix DIR"
fi
# The shell leaves a ~ as it is in --prefix=~/x and PREFIX=~/x: it is the user's home, as for memvoy --home.
case "$prefix" in
  "~"|"~/"*) [ -n "${HOME:-}" ] || die "HOME is not set: give --prefix as a full path, not $prefix"
    prefix="$HOME${prefix#\~}" ;;
esac
# An absolute prefix: the unit's ExecStart and the PATH advice must name the binary from anywhere.
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac

here="$(cd "$(dirname "$0")" && pwd)"
if [ -z "$source" ]; then
  if [ -f "$here/memvoy" ] && [ -f "$here/SHA256SUMS" ]; then source="$here"; else source="$here/../dist"; fi
fi

sha256_check() { # sha256_check DIR FILE: verify a checksum file inside DIR
  if command -v sha256sum >/dev/null 2>&1; then (cd "$1" && sha256sum --check --quiet "$2")
  elif command -v shasum >/dev/null 2>&1; then (cd "$1" && shasum -a 256 --check --quiet "$2")
  else die "neither sha256sum nor shasum is installed: cannot verify the release"
  fi
}

work=""
tmp=""
cleanup() {
  [ -z "$work" ] || rm -rf "$work"
  [ -z "$tmp" ] || rm -f "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

work="$(mktemp -d "${TMPDIR:-/tmp}/memvoy-install.XXXXXX")" || die "cannot make a temporary folder (TMPDIR=${TMPDIR:-/tmp})"
if [ -f "$source" ]; then
  case "$source" in *.tar.gz|*.tgz) ;; *) die "$source is not a .tar.gz release" ;; esac
  tarball="$(cd "$(dirname "$source")" && pwd)/$(basename "$source")"
  if [ -f "$tarball.sha256" ]; then
    sha256_check "$(dirname "$tarball")" "$tarball.sha256" || die "$(basename "$tarball") does not match its .sha256: not installing"
  fi
  mkdir "$work/release"
  tar -xzf "$tarball" -C "$work/release" || die "could not unpack $tarball"
  source="$(find "$work/release" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
  [ -n "$source" ] || die "$tarball holds no release folder"
fi
[ -d "$source" ] || die "no such release or build folder: $source"
source="$(cd "$source" && pwd)"
[ -f "$source/memvoy" ] || die "$source has no memvoy binary (run bun run build first)"

if [ -f "$source/SHA256SUMS" ]; then
  sha256_check "$source" SHA256SUMS || die "checksums in $source/SHA256SUMS do not match: not installing"
  echo "checksums verified"
fi

# A relative XDG_CONFIG_HOME is ignored, as the XDG Base Directory spec says (and memvoy does).
config_home="${HOME:-}/.config"
case "${XDG_CONFIG_HOME:-}" in /*) config_home="$XDG_CONFIG_HOME" ;; esac
if [ -n "${HOME:-}" ] && [ "$prefix" = "$HOME/.local" ]; then fish_dir="$config_home/fish/completions"
else fish_dir="$prefix/share/fish/vendor_completions.d"; fi
unit="$source/memvoy.service"
[ -f "$unit" ] || unit="$here/../contrib/memvoy.service"

# Every folder is made and found writable before the first file goes in, so a refused prefix installs nothing.
writable() {
  mkdir -p "$1" 2>/dev/null && [ -w "$1" ] || die "cannot write to $1: choose another --prefix (or run as a user who may write there)"
}
writable "$prefix/bin"
if [ -f "$source/memvoy.1" ]; then writable "$prefix/share/man/man1"; fi
if [ -d "$source/completions" ]; then
  writable "$prefix/share/bash-completion/completions"
  writable "$prefix/share/zsh/site-functions"
  writable "$fish_dir"
fi
if [ -f "$unit" ]; then writable "$prefix/share/memvoy"; fi

# Each file goes in through a temp file and a rename, so a running memvoy is never half-replaced.
put() { # put SRC DEST MODE [CHECK]: with CHECK, the copy must run (`--version`) before it takes DEST's place
  tmp="$2.install.$$"
  { cp "$1" "$tmp" && chmod "$3" "$tmp"; } || die "could not install $2 (see above); $2 is as it was"
  if [ -n "${4:-}" ] && ! "$tmp" --version >/dev/null; then
    die "the memvoy binary does not run on this machine (a release for another system or processor?); $2 is as it was"
  fi
  mv -f "$tmp" "$2" || die "could not install $2 (see above); $2 is as it was"
  tmp=""
  echo "  $2"
}

echo "installing memvoy into $prefix"
put "$source/memvoy" "$prefix/bin/memvoy" 755 check
if [ -f "$source/memvoy.1" ]; then put "$source/memvoy.1" "$prefix/share/man/man1/memvoy.1" 644; fi
if [ -d "$source/completions" ]; then
  put "$source/completions/memvoy.bash" "$prefix/share/bash-completion/completions/memvoy" 644
  put "$source/completions/_memvoy" "$prefix/share/zsh/site-functions/_memvoy" 644
  put "$source/completions/memvoy.fish" "$fish_dir/memvoy.fish" 644
fi
if [ -f "$unit" ]; then
  # systemd reads % as a specifier and splits ExecStart at spaces: escape the one, quote the path for the other.
  exec_path="$(printf '%s' "$prefix/bin/memvoy" | sed -e 's/%/%%/g' -e 's/\\/\\\\/g' -e 's/"/\\"/g')"
  case "$exec_path" in *[[:space:]\"\'\\]*) exec_path="\"$exec_path\"" ;; esac
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      ExecStart=/usr/local/bin/memvoy\ *) printf 'ExecStart=%s %s\n' "$exec_path" "${line#ExecStart=/usr/local/bin/memvoy }" ;;
      # the set-up steps at its top copy this file, whose ExecStart names the binary installed here
      "#   install -Dm644 contrib/memvoy.service "*)
        printf '#   install -Dm644 "%s" %s\n' "$prefix/share/memvoy/memvoy.service" "${line#\#   install -Dm644 contrib/memvoy.service }" ;;
      *) printf '%s\n' "$line" ;;
    esac
  done < "$unit" > "$work/memvoy.service" || die "could not write the systemd unit into $work"
  put "$work/memvoy.service" "$prefix/share/memvoy/memvoy.service" 644
fi

echo "done: $("$prefix/bin/memvoy" --version)"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on your PATH; add it, e.g. export PATH=\"$prefix/bin:\$PATH\"" ;; esac
echo "zsh: add $prefix/share/zsh/site-functions to fpath before compinit if it is not there already"
echo "daemon: see $prefix/share/memvoy/memvoy.service (systemctl --user, described at its top)"
