#!/bin/sh
# install.sh — build cairn, install its binaries, and wire them into Claude Code.
#
# Builds every binary under hooks/ with the Go toolchain, installs them into
#   <project>/.claude/cairn/bin/        (default; a .gitignore keeps them out of git)
#   ~/.claude/cairn/bin/                (--user; $CLAUDE_CONFIG_DIR/cairn/bin when set,
#                                        and a cairn symlink in ~/.local/bin when that exists)
# then runs `cairn install`, which merges cairn's hook entries into .claude/settings.json
# (~/.claude/settings.json with --user) without disturbing anything else, and installs the
# skills. Running it again upgrades in place; nothing is duplicated.
#
# Usage: ./install.sh [--project DIR | --user] [--allow-bash] [--dry-run] [--uninstall]
set -e

usage() {
	cat >&2 <<'EOF'
usage: install.sh [--project DIR | --user] [--allow-bash] [--dry-run] [--uninstall]

  --project DIR  install into DIR/.claude (default: the git top level of the current directory)
  --user         install for every project, into ~/.claude (or $CLAUDE_CONFIG_DIR)
  --allow-bash   let Claude run the cairn CLI without asking (a permissions.allow rule)
  --dry-run      print every change, change nothing
  --uninstall    remove cairn's hooks, skills and binaries; its data (.agents/, .claude/state/,
                 memory/, .notes/) is kept
EOF
	exit 2
}

die() {
	echo "install.sh: error: $*" >&2
	exit 1
}

src=$(cd "$(dirname "$0")" && pwd)
project=
user=
dry=
uninstall=
allow=
while [ $# -gt 0 ]; do
	case $1 in
	--project)
		case ${2-} in
		'' | -*)
			echo "install.sh: --project needs a directory: --project DIR" >&2
			usage
			;;
		esac
		project=$2
		shift 2
		;;
	--project=*)
		project=${1#--project=}
		[ -n "$project" ] || {
			echo "install.sh: --project needs a directory: --project=DIR" >&2
			usage
		}
		shift
		;;
	--user) user=1; shift ;;
	--allow-bash) allow=--allow-bash; shift ;;
	--dry-run | -n) dry=1; shift ;;
	--uninstall) uninstall=1; shift ;;
	-h | --help) usage ;;
	*)
		echo "install.sh: unknown argument: $1" >&2
		usage
		;;
	esac
done
[ -z "$user" ] || [ -z "$project" ] || {
	echo "install.sh: --user and --project are exclusive" >&2
	usage
}
[ -z "$uninstall" ] || [ -z "$allow" ] || {
	echo "install.sh: --allow-bash makes no sense with --uninstall" >&2
	usage
}

if [ -n "$user" ]; then
	[ -n "$CLAUDE_CONFIG_DIR" ] || [ -n "$HOME" ] || die "neither CLAUDE_CONFIG_DIR nor HOME is set"
	bin=${CLAUDE_CONFIG_DIR:-$HOME/.claude}/cairn/bin
	where="user scope"
else
	if [ -z "$project" ]; then
		project=$(git rev-parse --show-toplevel 2>/dev/null) ||
			die "$(pwd) is not in a git repository: pass --project DIR (or --user)"
		# Run from cairn's own checkout, the default would wire cairn into its source tree.
		# (Named with --project, it is a deliberate choice, and allowed.)
		[ "$(cd "$project" && pwd -P)" != "$(cd "$src" && pwd -P)" ] ||
			die "$project is cairn's own checkout, not a project to install into: pass --project DIR (or --user)"
	fi
	[ -d "$project" ] || die "$project is not a directory"
	project=$(cd "$project" && pwd)
	bin=$project/.claude/cairn/bin
	where="project $project"
fi
# Everything removed or replaced below lives in this directory and nowhere else.
case $bin in
*/cairn/bin) ;;
*) die "refusing to use $bin as cairn's bin directory" ;;
esac

# binaries are the files install.sh puts in $bin, and the only ones --uninstall removes.
binaries="cairn cairn-mcp sessionstart userpromptsubmit precompact postcompact sessionend pretooluse"

# A cloned project can commit symlinks: a .claude, .claude/cairn or bin directory that is a link
# would send the binaries, and an uninstall's deletions, somewhere else — another project, or
# the user's own ~/.claude. Each is refused before anything is written, and each that exists
# must resolve inside the target.
# (Each directory is checked by name, never through a word-split list: a path may hold spaces.)
check_dir() {
	d=$1
	if [ -L "$d" ]; then
		die "$d is a symlink; cairn does not install through one (it could lead out of $target): remove the link, or install with --user"
	fi
	if [ -e "$d" ]; then
		[ -d "$d" ] || die "$d exists and is not a directory"
		real=$(cd "$d" && pwd -P)
		case $real in
		"$real_target" | "$real_target"/*) ;;
		*) die "$d resolves to $real, outside $target" ;;
		esac
	fi
}
if [ -n "$user" ]; then
	target=${CLAUDE_CONFIG_DIR:-$HOME/.claude}
else
	target=$project
fi
if [ -d "$target" ]; then
	real_target=$(cd "$target" && pwd -P)
	if [ -n "$user" ]; then
		check_dir "$target/cairn"
	else
		check_dir "$project/.claude"
		check_dir "$project/.claude/cairn"
	fi
	check_dir "$bin"
fi

tmp=
cleanup() {
	[ -z "$tmp" ] || rm -rf "$tmp" "$tmp.err"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# cairn_run CAIRN COMMAND [ARGS…] runs `cairn install` or `cairn uninstall` for this scope.
cairn_run() {
	c=$1
	shift
	cmd=$1
	shift
	if [ -n "$user" ]; then
		"$c" "$cmd" --user --bin "$bin" "$@"
	else
		"$c" "$cmd" --project "$project" --bin "$bin" "$@"
	fi
}

# cache is where the last build's binaries are kept, so that an upgrade or an uninstall with
# nothing changed links nothing: go build leaves an output whose build ID says it is up to date,
# and relinks any other. It is the user's cache directory (as cairn search's index); nothing in it
# is trusted beyond that check, and an unwritable one only costs the time.
cache=
if [ "$(uname -s 2>/dev/null)" = Darwin ] && [ -n "${HOME:-}" ]; then
	cache=$HOME/Library/Caches/cairn/build
elif case ${XDG_CACHE_HOME:-} in /*) true ;; *) false ;; esac; then
	cache=$XDG_CACHE_HOME/cairn/build
elif [ -n "${HOME:-}" ]; then
	cache=$HOME/.cache/cairn/build
fi

gobuild() {
	(cd "$src" && go build -trimpath \
		-ldflags "-X github.com/cairn-hooks/cairn/pkg/version.stamp=cairn-build-version:$version;" \
		-o "$tmp/" ./hooks/...)
}

# build compiles every binary into a fresh temporary directory and sets $tmp.
build() {
	command -v go >/dev/null 2>&1 ||
		die "go is not installed; cairn needs Go $(sed -n 's/^go //p' "$src/go.mod") or later (https://go.dev/dl/)"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-install.XXXXXX")
	version=$(git -C "$src" describe --tags --always --dirty 2>/dev/null) || version=dev
	echo "building cairn $version from $src"
	# Only what starts as an executable does (ELF, Mach-O, PE): go build refuses to replace any
	# other file, and should it still refuse, the build runs again from nothing.
	seeded=
	if [ -n "$cache" ] && [ -d "$cache" ] && [ ! -L "$cache" ]; then
		for name in $binaries; do
			f=$cache/$name
			[ -f "$f" ] && [ ! -L "$f" ] || continue
			case $(od -An -tx1 -N4 "$f" 2>/dev/null | tr -d ' \n') in
			7f454c46 | cffaedfe | cefaedfe | feedfacf | feedface | 4d5a*) ;;
			*) continue ;;
			esac
			if cp -p "$f" "$tmp/$name" 2>/dev/null; then seeded=1; fi
		done
	fi
	if [ -z "$seeded" ]; then
		# Nothing to start from: go's own progress (go: downloading …) is shown as it comes.
		echo "first build: go fetches and compiles cairn's dependencies; on a cold Go cache this takes a few minutes"
		gobuild || exit 1
	elif ! gobuild 2>"$tmp.err"; then
		rm -f "$tmp"/* "$tmp.err"
		gobuild
	fi
	rm -f "$tmp.err"
	# Kept for the next run, each file renamed into place (two installs at once each leave whole
	# binaries); not on a dry run, which changes nothing.
	if [ -z "$dry" ] && [ -n "$cache" ] && mkdir -p "$cache" 2>/dev/null && [ ! -L "$cache" ]; then
		for f in "$tmp"/*; do
			name=$(basename "$f")
			new=$(mktemp "$cache/.$name.XXXXXX" 2>/dev/null) || continue
			if cp -p "$f" "$new" 2>/dev/null; then mv -f "$new" "$cache/$name"; else rm -f "$new"; fi
		done
	fi
}

# link is the ~/.local/bin/cairn that --user maintains, when ~/.local/bin exists.
link=
if [ -n "$user" ] && [ -n "$HOME" ] && [ -d "$HOME/.local/bin" ]; then
	link=$HOME/.local/bin/cairn
fi

# ourlink reports whether $link is the symlink install.sh made.
ourlink() {
	[ -n "$link" ] && [ -L "$link" ] && [ "$(readlink "$link")" = "$bin/cairn" ]
}

# straylink reports whether $link links to a directory in which an earlier install.sh, whose
# ln followed that link, left cairn's own link: $link/cairn pointing at $bin/cairn.
straylink() {
	[ -n "$link" ] && [ -L "$link" ] && [ -d "$link" ] && [ -L "$link/cairn" ] && [ "$(readlink "$link/cairn")" = "$bin/cairn" ]
}

# linkplan says what becomes of $link: "ok" (it is cairn's already), "make" (absent, or a link
# to a file, which ln -sfn replaces), or why it is left as it is: a file that is not a link, or
# a link to a directory (ln would otherwise create cairn's link inside that directory).
linkplan() {
	if [ -z "$link" ]; then
		echo none
	elif ourlink; then
		echo ok
	elif [ -L "$link" ] && [ -d "$link" ]; then
		echo dir
	elif [ -e "$link" ] && ! [ -L "$link" ]; then
		echo file
	else
		echo make
	fi
}

if [ -n "$uninstall" ]; then
	# The cairn that removes the entries is built from this checkout, never the one found in
	# $bin: a cloned repository can commit a bin/cairn of its own, and running it would run the
	# repository's code.
	build
	cairn=$tmp/cairn
	if [ -n "$dry" ]; then
		# install.sh's part first: cairn's ends with "dry run: nothing was changed".
		for name in $binaries .gitignore; do
			for f in "$bin/$name" "$bin/$name.exe"; do
				[ ! -f "$f" ] || [ -L "$f" ] || echo "remove $f"
			done
		done
		! ourlink || echo "remove $link"
		! straylink || echo "remove $link/cairn"
		cairn_run "$cairn" uninstall --dry-run
		exit 0
	fi
	cairn_run "$cairn" uninstall
	# Only the files install.sh put there, by name; the directories only when that left them
	# empty. Nothing else in them, and nothing through a link, is ever removed.
	if [ -d "$bin" ]; then
		for name in $binaries; do
			for f in "$bin/$name" "$bin/$name.exe" "$bin/.$name".new*; do
				if [ -f "$f" ] && [ ! -L "$f" ]; then rm -f "$f"; fi
			done
		done
		if [ -f "$bin/.gitignore" ] && [ ! -L "$bin/.gitignore" ] && [ "$(cat "$bin/.gitignore")" = "*" ]; then
			rm -f "$bin/.gitignore"
		fi
		if rmdir "$bin" 2>/dev/null; then
			rmdir "$(dirname "$bin")" 2>/dev/null || true
			echo "removed $bin"
		else
			echo "install.sh: warning: $bin holds files install.sh did not put there; left as it is" >&2
		fi
	fi
	if ourlink; then
		rm -f "$link"
		echo "removed $link"
	fi
	if straylink; then
		rm -f "$link/cairn"
		echo "removed $link/cairn (the link an earlier install.sh made through $link)"
	fi
	exit 0
fi

# Every place a binary goes is checked before anything is built or written: a committed link
# there (to a directory, mv would move the binary into it: outside the project) or a directory is
# refused, so that a refusal leaves nothing installed. mv -T would rename over a link, but it is
# GNU's alone.
for name in $binaries; do
	for f in "$bin/$name" "$bin/$name.exe"; do
		if [ -L "$f" ]; then
			die "$f is a symlink; cairn does not install a binary through one (it could lead out of $target): remove the link and run install.sh again"
		fi
		if [ -e "$f" ] && ! [ -f "$f" ]; then
			die "$f exists and is not a file; remove it and run install.sh again"
		fi
	done
done
plan=$(linkplan)
linkwarn() {
	case $plan in
	dir) echo "install.sh: warning: $link is a symlink to a directory, not cairn's; left as it is, and no cairn link made in $(dirname "$link")" >&2 ;;
	file) echo "install.sh: warning: $link exists and is not a symlink; left as it is" >&2 ;;
	esac
}

build
if [ -n "$dry" ]; then
	echo "install into $bin/: $(cd "$tmp" && ls | tr '\n' ' ')"
	[ -n "$user" ] || [ -f "$bin/.gitignore" ] || echo "create $bin/.gitignore"
	[ "$plan" != make ] || echo "link $link -> $bin/cairn"
	linkwarn
	cairn_run "$tmp/cairn" install --dry-run $allow
	exit 0
fi

mkdir -p "$bin"
# Nothing below writes through a link a repository committed inside $bin: a link where a file of
# install.sh's goes is removed (never followed), new files are created exclusively (mktemp, or
# the shell's noclobber), and a binary replaces whatever is at its name by a rename.
if [ -z "$user" ]; then
	if [ -L "$bin/.gitignore" ]; then rm -f "$bin/.gitignore"; fi
	if [ ! -e "$bin/.gitignore" ]; then (set -C && printf '*\n' >"$bin/.gitignore"); fi
fi
# Each binary is copied beside its target and renamed over it, so a hook that Claude Code starts
# meanwhile runs either the old binary or the new one, never half of one.
for f in "$tmp"/*; do
	name=$(basename "$f")
	case " $binaries " in
	*" ${name%.exe} "*) ;;
	*) die "the build made $name, which install.sh does not know: add it to \$binaries" ;;
	esac
	new=$(mktemp "$bin/.$name.newXXXXXX")
	cp "$f" "$new"
	chmod 755 "$new"
	mv -f "$new" "$bin/$name"
done
echo "installed $(cd "$tmp" && ls | tr '\n' ' ')into $bin"
if [ "$plan" = make ]; then
	# -n: should the link have become one to a directory meanwhile, replace it, never write in it.
	ln -sfn "$bin/cairn" "$link"
	echo "linked $link -> $bin/cairn"
fi
linkwarn
cairn_run "$bin/cairn" install $allow
echo "cairn is installed for $where"
