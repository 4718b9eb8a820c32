#!/usr/bin/env bash
# The original run whiteboard's .claude/hooks/save-session.sh (PreCompact; docs/DESIGN.md, What
# cairn is for), as that design describes it: inert without an active run; reads state.json "with
# grep and sed, not a JSON parser"; refreshes the durable snapshot in the run's MEMORY.md (run id,
# phase, the four gate verdicts, the open-plan-item count) between markers, keeps the file at 200
# lines, and never blocks a compaction (exit 0). The design gives no code, so this is the
# straightforward shell version of that description.
cat >/dev/null # the hook payload: not needed
ROOT="${CLAUDE_PROJECT_DIR:-$(git rev-parse --show-toplevel 2>/dev/null || pwd)}"
cd "$ROOT" || exit 0
[ -f .agents/runs/active ] || exit 0
RUN_DIR=$(head -n 1 .agents/runs/active)
case "$RUN_DIR" in */*) ;; *) RUN_DIR=".agents/runs/$RUN_DIR" ;; esac
STATE="$RUN_DIR/state.json"
MEMORY="$RUN_DIR/MEMORY.md"
[ -f "$STATE" ] || exit 0

get() { grep -o "\"$1\": *\"[^\"]*\"" "$STATE" | head -n 1 | sed 's/^"[^"]*": *"\(.*\)"$/\1/'; }
RUN_ID=$(get run_id)
PHASE=$(get phase)
GATE_SPEC=$(get gate_spec)
GATE_QUALITY=$(get gate_quality)
GATE_ARCHITECTURE=$(get gate_architecture)
GATE_SECURITY=$(get gate_security)
PLAN_OPEN=$(get plan_open)

BEGIN="<!-- save-session:begin -->"
END="<!-- save-session:end -->"
TMP="$MEMORY.tmp.$$"
{
    echo "$BEGIN"
    echo "## Snapshot ($(date -u +%Y-%m-%dT%H:%M:%SZ), before compaction)"
    echo "- run: ${RUN_ID:-?} · phase: ${PHASE:-?}"
    echo "- gates: spec=${GATE_SPEC:-—} quality=${GATE_QUALITY:-—} architecture=${GATE_ARCHITECTURE:-—} security=${GATE_SECURITY:-—}"
    echo "- open plan items: ${PLAN_OPEN:-0}"
    echo "$END"
    [ -f "$MEMORY" ] && sed "/^$BEGIN\$/,/^$END\$/d" "$MEMORY"
} | head -n 200 >"$TMP" && mv "$TMP" "$MEMORY"
exit 0
