// Package sessionctx maintains the PreCompact snapshot section of .claude/state/session-context.md
// (seed 003): which session compacted, when, on which branch, its open tasks and the files it
// edited since the last compaction. The file's other parts — the "## Parked items" section that
// pkg/parking owns, and any prose — are kept byte for byte.
package sessionctx

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/mdblock"
	"github.com/cairn-hooks/cairn/pkg/project"
)

// Path is the file's place under the project root.
func Path(root string) string { return filepath.Join(project.StateDir(root), "session-context.md") }

// Markers delimit the snapshot section. pkg/parking ends its section at the begin marker too.
var Markers = mdblock.Markers{
	Begin: "<!-- cairn:session-snapshot begin",
	End:   "<!-- cairn:session-snapshot end -->",
}

// maxItems bounds each list: the file is read by people and by Claude, not a log.
const maxItems = 30

// Snapshot is what the PreCompact hook records.
type Snapshot struct {
	Event     string    // compaction identity: a repeated PreCompact keeps the recorded time
	At        time.Time // when the compaction began
	SessionID string
	Trigger   string
	Branch    string
	Tasks     []string // open tasks, labelled, in progress first
	Files     []string // edited since the last compaction, most recent first
}

// Refresh returns the file with its snapshot section rebuilt from s; a missing file is created
// with a title, the section and an empty "## Parked items" section.
func Refresh(old []byte, exists bool, s Snapshot) []byte {
	if !exists {
		return mdblock.Join([]string{"# Session context", ""}, render(s), []string{"", "## Parked items"})
	}
	f := Markers.Split(old)
	if at, err := time.Parse(time.RFC3339, f.Attrs["at"]); err == nil && f.Attrs["event"] == event(s.Event) {
		s.At = at
	}
	before, after := f.Place()
	return mdblock.Join(before, render(s), after)
}

func event(e string) string {
	if e == "" {
		return "-"
	}
	return mdblock.Clean(e, 200)
}

func render(s Snapshot) []string {
	l := []string{
		fmt.Sprintf("%s event=%s at=%s -->", Markers.Begin, event(s.Event), s.At.UTC().Format(time.RFC3339)),
		"**Session snapshot** (refreshed by cairn's PreCompact hook; edits inside this block are replaced)",
		fmt.Sprintf("- Session: %s · compaction: %s, %s", val(s.SessionID), s.At.UTC().Format(time.RFC3339), val(s.Trigger)),
		"- Branch: " + val(s.Branch),
	}
	l = list(l, "Open tasks", s.Tasks)
	l = list(l, "Files edited since the last compaction", s.Files)
	return append(l, Markers.End)
}

func list(l []string, title string, items []string) []string {
	if len(items) == 0 {
		return append(l, fmt.Sprintf("- %s: none", title))
	}
	l = append(l, fmt.Sprintf("- %s (%d):", title, len(items)))
	for i, it := range items {
		if i == maxItems {
			return append(l, fmt.Sprintf("  - … %d more", len(items)-maxItems))
		}
		l = append(l, "  - "+mdblock.Clean(it, 300))
	}
	return l
}

func val(s string) string {
	if s == "" {
		return "—"
	}
	return mdblock.Clean(s, 200)
}

// Recorded reads the identity of the last compaction recorded in the file's snapshot section —
// the session id and the transcript length PreCompact saw — so SessionStart can tell whether
// PreCompact ran for the compaction it follows.
func Recorded(data []byte) (sessionID string, size int64, ok bool) {
	ev := Markers.Split(data).Attrs["event"]
	i := strings.LastIndexByte(ev, '/')
	j := strings.IndexByte(ev, '/')
	if i <= 0 || j == i {
		return "", 0, false
	}
	n, err := strconv.ParseInt(ev[i+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return ev[:j], n, true
}

// Event returns the compaction identity recorded in the file's snapshot section, or "".
func Event(data []byte) string { return Markers.Split(data).Attrs["event"] }
