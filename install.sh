#!/bin/sh
# install.sh — build cairn, install its binaries, and wire them into Claude Code.
#
# Builds every binary under hooks/ with the Go toolchain, installs them into
#   <project>/.claude/cairn/bin/        (default; a .gitignore keeps them out of git)
#   ~/.claude/cairn/bin/                (--user; $CLAUDE_CONFIG_DIR/cairn/bin when set,
#                                        and a cairn symlink in ~/.local/bin when that exists)
# then runs `cairn install`, which merges the four hook entries into .claude/settings.json
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
		[ $# -ge 2 ] || usage
		project=$2
		shift 2
		;;
	--project=*)
		project=${1#--project=}
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

tmp=
cleanup() {
	[ -z "$tmp" ] || rm -rf "$tmp"
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

# build compiles every binary into a fresh temporary directory and sets $tmp.
build() {
	command -v go >/dev/null 2>&1 ||
		die "go is not installed; cairn needs Go $(sed -n 's/^go //p' "$src/go.mod") or later (https://go.dev/dl/)"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-install.XXXXXX")
	version=$(git -C "$src" describe --tags --always --dirty 2>/dev/null) || version=dev
	echo "building cairn $version from $src"
	(cd "$src" && go build -trimpath \
		-ldflags "-X github.com/cairn-hooks/cairn/pkg/version.Version=$version" \
		-o "$tmp/" ./hooks/...)
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

if [ -n "$uninstall" ]; then
	cairn=$bin/cairn
	if [ ! -x "$cairn" ]; then
		# The binaries are gone already; build a cairn to find and remove the entries anyway.
		build
		cairn=$tmp/cairn
	fi
	if [ -n "$dry" ]; then
		cairn_run "$cairn" uninstall --dry-run
		[ ! -d "$bin" ] || echo "remove $bin/"
		! ourlink || echo "remove $link"
		exit 0
	fi
	cairn_run "$cairn" uninstall
	if [ -d "$bin" ]; then
		rm -rf "$bin"
		rmdir "$(dirname "$bin")" 2>/dev/null || true
		echo "removed $bin"
	fi
	if ourlink; then
		rm -f "$link"
		echo "removed $link"
	fi
	exit 0
fi

build
if [ -n "$dry" ]; then
	echo "install into $bin/: $(cd "$tmp" && ls | tr '\n' ' ')"
	[ -n "$user" ] || [ -f "$bin/.gitignore" ] || echo "create $bin/.gitignore"
	[ -z "$link" ] || ourlink || echo "link $link -> $bin/cairn"
	cairn_run "$tmp/cairn" install --dry-run $allow
	exit 0
fi

mkdir -p "$bin"
if [ -z "$user" ] && [ ! -f "$bin/.gitignore" ]; then
	printf '*\n' >"$bin/.gitignore"
fi
# Each binary is copied beside its target and renamed over it, so a hook that Claude Code starts
# meanwhile runs either the old binary or the new one, never half of one.
for f in "$tmp"/*; do
	name=$(basename "$f")
	cp "$f" "$bin/.$name.new"
	chmod 755 "$bin/.$name.new"
	mv -f "$bin/.$name.new" "$bin/$name"
done
echo "installed $(cd "$tmp" && ls | tr '\n' ' ')into $bin"
if [ -n "$link" ]; then
	if [ -e "$link" ] && ! [ -L "$link" ]; then
		echo "install.sh: warning: $link exists and is not a symlink; left as it is" >&2
	else
		ln -sf "$bin/cairn" "$link"
		echo "linked $link -> $bin/cairn"
	fi
fi
cairn_run "$bin/cairn" install $allow
echo "cairn is installed for $where"
