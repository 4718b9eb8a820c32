package sessionfile

import (
	"fmt"
	"time"

	"github.com/cairn-hooks/cairn/pkg/mdblock"
)

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
		return mdblock.Join([]string{title, ""}, render(s), []string{"", ParkedHeading})
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

// Event returns the compaction identity recorded in the file's snapshot section, or "".
func Event(data []byte) string { return Markers.Split(data).Attrs["event"] }
