#!/bin/sh
# install-claude.sh [CACHE_DIR]
#
# Installs a Claude Code release from npm into CACHE_DIR/claude-<version>
# (default CACHE_DIR: ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e) and prints
# the absolute path of its `claude` executable on stdout. The version is
# CAIRN_E2E_CLAUDE_VERSION, else the pinned one below. Idempotent: an
# existing install of that version is reused. All npm output goes to stderr.
#
# Use it as:  CAIRN_CLAUDE=$(sh testscripts/e2e/install-claude.sh) CAIRN_E2E=1 go test ./testscripts/e2e/
# The matrix: CAIRN_E2E_CLAUDE_VERSION=2.1.100 sh testscripts/e2e/install-claude.sh
#
# Releases up to about 2.1.1xx ship as a node script (cli.js, needs node on
# PATH at run time); later ones as a native binary (bin/claude.exe).
#
# Keep CLAUDE_VERSION in sync with pinnedClaudeVersion in harness_test.go.
set -eu

CLAUDE_VERSION=${CAIRN_E2E_CLAUDE_VERSION:-2.1.332}
case $CLAUDE_VERSION in
*[!0-9.]* | '')
	echo "install-claude.sh: CAIRN_E2E_CLAUDE_VERSION=$CLAUDE_VERSION is not a version like 2.1.332" >&2
	exit 2
	;;
esac

cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e}
prefix=$cache/claude-$CLAUDE_VERSION

# find_bin prints a working claude executable under $prefix, or fails.
find_bin() {
	# The wrapper package's postinstall copies the native binary over
	# bin/claude.exe. If install scripts did not run, fall back to the
	# platform package's binary. Older releases have neither: the package
	# itself is the program, cli.js, run by node.
	for b in \
		"$prefix/node_modules/@anthropic-ai/claude-code/bin/claude.exe" \
		"$prefix"/node_modules/@anthropic-ai/claude-code-*/claude \
		"$prefix/node_modules/@anthropic-ai/claude-code/cli.js"; do
		[ -f "$b" ] && [ -x "$b" ] || continue
		v=$("$b" --version 2>/dev/null) || continue
		case $v in
		"$CLAUDE_VERSION "* | "$CLAUDE_VERSION")
			printf '%s\n' "$b"
			return 0
			;;
		esac
	done
	return 1
}

if bin=$(find_bin); then
	printf '%s\n' "$bin"
	exit 0
fi

command -v npm >/dev/null 2>&1 || {
	echo "install-claude.sh: npm not found; install Node.js/npm first" >&2
	exit 1
}

mkdir -p "$prefix"
echo "install-claude.sh: installing @anthropic-ai/claude-code@$CLAUDE_VERSION into $prefix" >&2
# --no-audit/--no-fund keep it quiet; the engines warning (node >=22) is
# harmless for the native releases, and node 20 runs the cli.js ones.
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
	"@anthropic-ai/claude-code@$CLAUDE_VERSION" >&2

if bin=$(find_bin); then
	printf '%s\n' "$bin"
	exit 0
fi
echo "install-claude.sh: installed, but no working claude $CLAUDE_VERSION executable found under $prefix" >&2
exit 1
