#!/usr/bin/env bash
# The original /session workflow's `/session archive <partial-text>` (docs/DESIGN.md, What cairn
# is for): its five steps as one script, the bash blocks as that workflow writes them. Adapted
# only to run without Claude (docs/BENCHMARKS.md):
#  - SLUG uses Claude Code's spelling (see seed000-resume.sh).
#  - Step 2's "Grep with the partial text … also match against file basenames" is grep -il plus
#    a glob; "read the matched file with the Read tool to extract its name" is a bash read loop.
#  - The steps run in one shell instead of one Bash tool call each.
PARTIAL="$1"

# Step 1: Locate the memory directory and list candidates
PROJECT="$(git rev-parse --show-toplevel)"
SLUG="$(echo "$PROJECT" | sed 's|[^A-Za-z0-9]|-|g')"
MEMORY_DIR="$HOME/.claude/projects/$SLUG/memory/"
ls "$MEMORY_DIR"/session-open-*.md 2>/dev/null || echo "none"

# Step 2: Fuzzy-match the target item
MATCHES=$({
    grep -il -- "$PARTIAL" "$MEMORY_DIR"/session-open-*.md 2>/dev/null
    ls "$MEMORY_DIR"/session-open-*"$PARTIAL"*.md 2>/dev/null
} | sort -u)
COUNT=$(printf '%s\n' "$MATCHES" | grep -c .)
if [ "$COUNT" -ne 1 ]; then
    echo "Matches for '$PARTIAL': $COUNT — please disambiguate:"
    printf '%s\n' "$MATCHES"
    exit 1
fi
MATCHED="$MATCHES"
NAME=""
while IFS= read -r line; do
    case "$line" in name:*) NAME="${line#name:}"; NAME="${NAME# }"; break ;; esac
done <"$MATCHED"

# Step 3: Delete the memory file
rm "$MATCHED"
echo "deleted"

# Step 4: Append audit entry to resolution log
mkdir -p .claude/logs # timeout: 5000
echo "{\"ts\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"item\":\"$NAME\",\"action\":\"archived\"}" >>.claude/logs/session-archive.jsonl # timeout: 5000

# Step 5: Confirm to user
echo "Archived: $NAME"
