#!/usr/bin/env bash
# The original /session workflow's `/session resume` (docs/DESIGN.md, What cairn is for): its
# four steps as one script, the bash blocks as that workflow writes them. Adapted only to run
# without Claude (docs/BENCHMARKS.md, "How the original workflows were adapted"):
#  - SLUG uses Claude Code's spelling (every non-alphanumeric character becomes '-', leading dash
#    kept) instead of the workflow's `sed 's|[/.]|-|g' | sed 's|^-||'`, which names a directory
#    Claude Code never creates for a path starting with '/'; same two processes, same cost.
#  - Steps 1–4 run in one shell: in Claude Code each block is a separate Bash tool call (a shell
#    start each), so this is cheaper than the real skill.
#  - Step 3 says "read each file with the Read tool" and Step 4 "render": done here with bash
#    builtins only (no extra process per file), the cheapest shell rendering there is.

# Step 1: Resolve the memory directory
PROJECT="$(git rev-parse --show-toplevel)"
SLUG="$(echo "$PROJECT" | sed 's|[^A-Za-z0-9]|-|g')"
MEMORY_DIR="$HOME/.claude/projects/$SLUG/memory/"
echo "$MEMORY_DIR"

# Step 2: Age-out expired items (≥ 30 days) silently
find "$MEMORY_DIR" -name "session-open-*.md" -mtime +30 -delete 2>/dev/null # timeout: 5000
echo "cleanup done"

# Step 3: Collect remaining items and compute age (verbatim)
NOW=$(date +%s)
AGES=$(
for f in "$MEMORY_DIR"/session-open-*.md; do
    [ -f "$f" ] || continue
    MTIME=$(if [ "$(uname -s)" = "Darwin" ]; then stat -f "%m" "$f"; else stat -c "%Y" "$f"; fi) # timeout: 5000
    AGE=$(((NOW - MTIME) / 86400))
    echo "$AGE $f"
done
)

# Step 4: Render grouped list (what Claude does after reading each file)
if [ -z "$AGES" ]; then
    echo "No pending session items."
    exit 0
fi
printf '## Session Pending — %(%Y-%m-%d)T\n' -1
last=""
while read -r age f; do
    name="" desc=""
    while IFS= read -r line; do
        case "$line" in
        name:*) name="${line#name:}"; name="${name# }" ;;
        description:*) desc="${line#description:}"; desc="${desc# }" ;;
        esac
    done <"$f"
    if [ "$age" -eq 0 ]; then
        group="### This session"
    else
        printf -v day '%(%Y-%m-%d)T' $((NOW - age * 86400))
        group="### Earlier ($day)"
    fi
    if [ "$group" != "$last" ]; then
        printf '\n%s\n' "$group"
        last="$group"
    fi
    stale=""
    [ "$age" -ge 14 ] && stale="⚠ stale — "
    echo "- [ ] $stale$name — $desc"
done < <(printf '%s\n' "$AGES" | sort -n)
echo
echo "→ /session archive <slug> to close an item"
echo "→ /session summary for a full session digest"
