#!/bin/sh
# install.sh — build cairn's binaries into a directory.
#
# This first version builds; wiring the hooks into .claude/settings.json and installing the
# skills comes with `cairn install` (see README). Usage:
#   ./install.sh [--bin DIR] [--dry-run]
set -e

usage() {
	echo "usage: $0 [--bin DIR] [--dry-run]" >&2
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
bin="$here/bin"
dry=
while [ $# -gt 0 ]; do
	case "$1" in
	--bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
	--dry-run) dry=1; shift ;;
	-h|--help) usage ;;
	*) usage ;;
	esac
done

command -v go >/dev/null 2>&1 || { echo "install.sh: error: go is not installed (https://go.dev/dl/)" >&2; exit 1; }

if [ -n "$dry" ]; then
	echo "would build ./hooks/... into $bin"
	exit 0
fi
mkdir -p "$bin"
cd "$here"
go build -trimpath -o "$bin/" ./hooks/...
echo "built: $(ls "$bin" | tr '\n' ' ')→ $bin"
