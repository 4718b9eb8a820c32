#!/usr/bin/env bash
# The original run whiteboard's .claude/hooks/context-loader.sh (SessionStart; docs/DESIGN.md,
# What cairn is for), as that design describes it: inert without an active run; prints the read
# order — AGENTS.md and the rules, then the active run's state (MEMORY.md, state.json), then
# .agents/lessons-learned.md — naming the files that exist. The design gives no code, so this is
# the straightforward shell version of that description.
cat >/dev/null # the hook payload: not needed
ROOT="${CLAUDE_PROJECT_DIR:-$(git rev-parse --show-toplevel 2>/dev/null || pwd)}"
cd "$ROOT" || exit 0
[ -f .agents/runs/active ] || exit 0
RUN_DIR=$(head -n 1 .agents/runs/active)
case "$RUN_DIR" in */*) ;; *) RUN_DIR=".agents/runs/$RUN_DIR" ;; esac
echo "An active run is in progress. Before acting, read in this order:"
n=1
for f in AGENTS.md .agents/rules/*.md "$RUN_DIR/MEMORY.md" "$RUN_DIR/state.json" .agents/lessons-learned.md; do
    if [ -f "$f" ]; then
        echo "$n. $f"
        n=$((n + 1))
    fi
done
exit 0
