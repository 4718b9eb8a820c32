#!/bin/sh
# strace-repair.sh — counts the file system calls of SessionStart's repair path: a compaction
# whose PreCompact did not run, with an active run, so SessionStart records it late. It builds
# the hooks, plays the transcript of testscripts/testdata/sessionstart-repair.txtar (a PreCompact,
# its boundary, a turn, then a compaction with no PreCompact), and prints one line per traced
# process: "<binary>: N file syscalls" and the paths opened more than once.
#   scripts/strace-repair.sh            (needs strace: apt-get install strace)
set -eu
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { echo "strace-repair.sh: error: strace is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bin/" ./hooks/...
proj=$tmp/proj
mkdir -p "$proj" "$tmp/home" "$tmp/t"
git -C "$proj" init -q -b main
export HOME=$tmp/home CLAUDE_CONFIG_DIR=$tmp/home/.claude CLAUDE_PROJECT_DIR=$proj
cd "$proj"
"$tmp/bin/cairn" run start r1 >/dev/null
tr=$tmp/t/s1.jsonl
line() { printf '%s\n' "$@" >>"$tr"; }
line '{"type":"user","message":{"role":"user","content":"start"},"uuid":"u1"}' \
	'{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"'"$proj"'/a.go","old_string":"x","new_string":"y"}}]},"uuid":"a1"}'
printf '{"hook_event_name":"PreCompact","session_id":"s1","cwd":"%s","trigger":"manual","transcript_path":"%s","custom_instructions":null}' "$proj" "$tr" |
	"$tmp/bin/precompact"
boundary() {
	line '{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":1000},"uuid":"b'"$1"'"}' \
		'{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"},"uuid":"s'"$1"'"}'
}
boundary 1
line '{"type":"user","message":{"role":"user","content":"next"},"uuid":"u5"}' \
	'{"type":"assistant","message":{"id":"m5","role":"assistant","content":[{"type":"text","text":"done"}]},"uuid":"a5"}'
payload=$(printf '{"hook_event_name":"SessionStart","session_id":"s1","cwd":"%s","source":"compact","transcript_path":"%s"}' "$proj" "$tr")
printf '%s' "$payload" | strace -f -qq -e trace=%file -o "$tmp/trace" "$tmp/bin/sessionstart" >"$tmp/out"
grep -q 'recorded late' .agents/runs/r1/MEMORY.md || { echo "strace-repair.sh: error: SessionStart did not repair the missed PreCompact" >&2; exit 1; }
echo "sessionstart (repair): $(grep -vc -e '+++ exited' -e '--- SIG' "$tmp/trace") file syscalls"
echo "opened more than once:"
grep -o 'open[a-z0-9]*([^"]*"[^"]*"' "$tmp/trace" | sed 's/.*"\(.*\)"/\1/' | sed "s|$tmp/||" | sort | uniq -c | sort -rn | awk '$1 > 1'
