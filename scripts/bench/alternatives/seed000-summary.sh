#!/usr/bin/env bash
# The original /session workflow's `/session summary` (docs/DESIGN.md, What cairn is for): its
# five steps as one script, the bash blocks as that workflow writes them. Adapted only to run
# without Claude (docs/BENCHMARKS.md):
#  - SLUG uses Claude Code's spelling (see seed000-resume.sh).
#  - Step 1 "Call TaskList" is Claude's tool: read here from Claude Code's task files
#    ($HOME/.claude/tasks/$CLAUDE_CODE_SESSION_ID/*.json) with grep and sed.
#  - Step 2 "read each file with the Read tool" and Step 5 "draft the digest": bash builtins.
#  - The steps run in one shell instead of one Bash tool call each.

# Step 1: Collect completed tasks
COMPLETED=$(grep -l '"status": *"completed"' "$HOME/.claude/tasks/${CLAUDE_CODE_SESSION_ID}"/*.json 2>/dev/null |
    xargs -r sed -n 's/.*"subject": *"\([^"]*\)".*/\1/p')

# Step 2: Collect parked items
PROJECT="$(git rev-parse --show-toplevel)"
SLUG="$(echo "$PROJECT" | sed 's|[^A-Za-z0-9]|-|g')"
MEMORY_DIR="$HOME/.claude/projects/$SLUG/memory/"
FILES=$(ls "$MEMORY_DIR"/session-open-*.md 2>/dev/null || echo "none")
PARKED=""
N=0
if [ "$FILES" != "none" ]; then
    while IFS= read -r f; do
        name="" desc=""
        while IFS= read -r line; do
            case "$line" in
            name:*) name="${line#name:}"; name="${name# }" ;;
            description:*) desc="${line#description:}"; desc="${desc# }" ;;
            esac
        done <"$f"
        PARKED+="- [ ] $name — $desc"$'\n'
        N=$((N + 1))
    done <<<"$FILES"
fi

# Step 3: Collect recent git commits
COMMITS=$(git log --oneline --since="$(date -u -d '8 hours ago' '+%Y-%m-%dT%H:%M:%SZ' 2>/dev/null || date -u -v-8H '+%Y-%m-%dT%H:%M:%SZ')" 2>/dev/null | head -20) # timeout: 3000
[ -n "$COMMITS" ] || COMMITS=$(git log --oneline -15) # timeout: 3000

# Step 4: Collect archived items from this session
ARCHIVED=$([ -f .claude/logs/session-archive.jsonl ] && tail -20 .claude/logs/session-archive.jsonl || echo "none") # timeout: 5000
TODAY=$(date -u +%Y-%m-%d)
ARCHIVED=$(printf '%s\n' "$ARCHIVED" | grep "\"ts\":\"$TODAY")

# Step 5: Compose and route the digest
DIGEST="## Session Summary — $TODAY

### Completed
$(printf '%s\n' "$COMPLETED" | sed 's/^/- /')

### Parked / Pending ($N items)
$PARKED
### Archived this session
$ARCHIVED

### Recent commits
$(printf '%s\n' "$COMMITS" | sed 's/^/- /')"
LINES=$(printf '%s\n' "$DIGEST" | wc -l)
if [ "$LINES" -le 10 ]; then
    printf '%s\n' "$DIGEST"
    exit 0
fi
mkdir -p .temp/
OUTPUT=".temp/output-session-summary-$(date +%Y-%m-%d).md"
# Anti-overwrite: increment counter if slug already exists
if [ -f "$OUTPUT" ]; then
    n=2
    while [ -f "${OUTPUT%.md}-$n.md" ]; do n=$((n + 1)); done
    OUTPUT="${OUTPUT%.md}-$n.md"
fi
printf '%s\n' "$DIGEST" >"$OUTPUT"
echo "Session summary: $(printf '%s\n' "$COMPLETED" | grep -c .) completed, $N parked, $(printf '%s\n' "$COMMITS" | grep -c .) commits"
echo "→ $OUTPUT"
