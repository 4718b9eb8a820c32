package runstate

// The whiteboard: a run's MEMORY.md is a snapshot block owned by the PreCompact hook, between two
// marker lines, and five prose sections owned by people and Claude. The hook rewrites only its
// block; prose is never changed or dropped, and the whole file is kept within WhiteboardLines by
// shortening the block, never the prose.

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/mdblock"
)

// WhiteboardLines caps MEMORY.md, as the original whiteboard did: a whiteboard longer than that
// is a second context to lose, not a summary.
const WhiteboardLines = 200

// Sections are the five prose sections, in order.
var Sections = []string{"Current state", "In progress", "Next", "Decisions", "Blockers"}

const (
	beginPrefix = "<!-- cairn:snapshot begin"
	endMarker   = "<!-- cairn:snapshot end -->"
)

// Snapshot is what the PreCompact hook knows about the run at a compaction.
type Snapshot struct {
	// Event identifies the compaction (session, trigger, transcript length): a repeated PreCompact
	// for the same event keeps the recorded compaction time, so its output is byte-identical.
	Event string
	At    time.Time // when the compaction began (taken from the block when Event matches)

	RunID     string // the run's id: state.json's run_id, else its directory's name
	State     State  // the run's state.json
	StateNote string // e.g. "state.json is unreadable"; shown instead of silence

	Trigger      string
	Instructions *string

	Tasks []string // open tasks, in progress first, already labelled
	Files []string // files edited since the last compaction, most recent first
}

// Template is a new MEMORY.md: a title, the block, and the five empty sections.
func Template(runID string, block []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Run %s — whiteboard\n\n", clean(runID))
	for _, l := range block {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, s := range Sections {
		fmt.Fprintf(&b, "\n## %s\n", s)
	}
	return b.Bytes()
}

var markers = mdblock.Markers{Begin: beginPrefix, End: endMarker}

// WhiteboardResult is what RefreshWhiteboard did.
type WhiteboardResult struct {
	Data      []byte
	Dropped   int  // snapshot lines dropped to stay within WhiteboardLines
	ProseOver bool // the prose alone is over WhiteboardLines; the block is minimal
	Lines     int  // lines in the new file
}

// RefreshWhiteboard returns MEMORY.md with its block rebuilt from s: the block is replaced in place, or
// inserted after a leading "# " title (or at the top) when missing, or the file is created from
// Template when it does not exist. Nothing outside the block changes, except that a separating
// blank line is added after a newly inserted block.
func RefreshWhiteboard(old []byte, exists bool, s Snapshot) WhiteboardResult {
	if !exists {
		block, dropped, over := fit(s, WhiteboardLines-countLines(Template(s.RunID, nil)))
		data := Template(s.RunID, block)
		return WhiteboardResult{Data: data, Dropped: dropped, ProseOver: over, Lines: countLines(data)}
	}
	f := markers.Split(old)
	if at, err := time.Parse(time.RFC3339, f.Attrs["at"]); err == nil && f.Attrs["event"] != "" && f.Attrs["event"] == attr(s.Event) {
		s.At = at
	}
	before, after := f.Place()
	budget := WhiteboardLines - len(before) - len(after)
	block, dropped, over := fit(s, budget)
	data := mdblock.Join(before, block, after)
	return WhiteboardResult{Data: data, Dropped: dropped, ProseOver: over, Lines: countLines(data)}
}

func countLines(b []byte) int { return bytes.Count(b, []byte("\n")) }

// maxListItems caps each list in the block: the whiteboard points at what to re-read; past this,
// a "… N more" line says how many more there are.
const maxListItems = 50

// listLines is how many lines render gives a list of total items showing n of them.
func listLines(total, n int) int {
	switch {
	case total == 0:
		return 1 // "none"
	case n < total:
		return 1 + n + 1 // heading, n items, "… N more"
	default:
		return 1 + n
	}
}

// fit renders the block within budget lines, shortening it step by step: first the list tails
// (files, then tasks) give way to "… N more" lines, then the optional lines go, then the block
// shrinks to one line. The prose is never touched: when even the one-line block does not fit,
// the prose alone is over the cap, and the block says so. The lengths are counted, not rendered,
// so fitting costs the same whatever the lists hold.
func fit(s Snapshot, budget int) (block []string, dropped int, proseOver bool) {
	nt, nf := min(len(s.Tasks), maxListItems), min(len(s.Files), maxListItems)
	full := render(s, nt, nf, true)
	if len(full) <= budget {
		return full, 0, false
	}
	shortened := func(b []string) ([]string, int) {
		n := len(full) - len(b) + 1 // the note line itself takes one
		return withNote(b, n), n
	}
	base := len(full) - listLines(len(s.Tasks), nt) - listLines(len(s.Files), nf)
	for nf > 0 || nt > 0 {
		if nf > 0 {
			nf--
		} else {
			nt--
		}
		if base+listLines(len(s.Tasks), nt)+listLines(len(s.Files), nf)+1 <= budget {
			b, n := shortened(render(s, nt, nf, true))
			return b, n, false
		}
	}
	if b, n := shortened(render(s, 0, 0, false)); len(b) <= budget {
		return b, n, false
	}
	n := len(full) - 3
	one := fmt.Sprintf("- Run: %s · phase: %s — snapshot cut by %d lines to keep MEMORY.md within %d lines", val(s.RunID), val(s.State.Get("phase")), n, WhiteboardLines)
	over := budget < 3
	if over {
		one = fmt.Sprintf("- Run: %s · phase: %s — snapshot cut to its minimum: the prose below is over %d lines; trim it", val(s.RunID), val(s.State.Get("phase")), WhiteboardLines-3)
	}
	return []string{beginLine(s), one, endMarker}, n, over
}

func withNote(b []string, n int) []string {
	note := fmt.Sprintf("- (snapshot shortened by %d lines to keep MEMORY.md within %d lines)", n, WhiteboardLines)
	out := append([]string(nil), b[:len(b)-1]...)
	return append(out, note, b[len(b)-1])
}

func beginLine(s Snapshot) string {
	ev := s.Event
	if ev == "" {
		ev = "-"
	}
	return fmt.Sprintf("%s event=%s at=%s -->", beginPrefix, attr(ev), s.At.UTC().Format(time.RFC3339))
}

func attr(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == '>' {
			return '_'
		}
		return r
	}, s)
}

// render builds the block with the first nt tasks and nf files; optional adds the lines that can
// go when space is short.
func render(s Snapshot, nt, nf int, optional bool) []string {
	l := []string{beginLine(s)}
	if optional {
		l = append(l, "_Snapshot refreshed by cairn's PreCompact hook; edits inside this block are replaced. The sections below are yours._")
	}
	st := &s.State
	l = append(l, fmt.Sprintf("- Run: %s · issue: %s · phase: %s", val(s.RunID), val(st.Get("issue")), val(st.Get("phase"))))
	l = append(l, fmt.Sprintf("- Branch: %s · PR: %s", val(st.Get("branch")), val(st.Get("pr"))))
	var g []string
	for _, n := range Gates {
		g = append(g, n+": "+val(st.Gate(n)))
	}
	l = append(l, "- Gates: "+strings.Join(g, " · "))
	l = append(l, fmt.Sprintf("- Open plan items: %s · state updated: %s", val(st.Get("plan_open")), val(st.Get("updated_at"))))
	if s.StateNote != "" {
		l = append(l, "- Note: "+clean(s.StateNote))
	}
	c := fmt.Sprintf("- Compaction: %s, %s", s.At.UTC().Format(time.RFC3339), val(s.Trigger))
	if s.Instructions != nil && strings.TrimSpace(*s.Instructions) != "" {
		c += fmt.Sprintf(", instructions: %q", clean(*s.Instructions))
	}
	l = append(l, c)
	if wt := st.Get("worktree"); optional && wt != "" {
		l = append(l, "- Worktree: "+clean(wt))
	}
	l = appendList(l, "Open tasks", s.Tasks, nt, optional)
	l = appendList(l, "Files edited since the last compaction", s.Files, nf, optional)
	return append(l, endMarker)
}

func appendList(l []string, title string, items []string, n int, optional bool) []string {
	if len(items) == 0 {
		if optional {
			l = append(l, fmt.Sprintf("- %s: none", title))
		}
		return l
	}
	l = append(l, fmt.Sprintf("- %s (%d):", title, len(items)))
	for _, it := range items[:n] {
		l = append(l, "  - "+clean(it))
	}
	if n < len(items) {
		l = append(l, fmt.Sprintf("  - … %d more", len(items)-n))
	}
	return l
}

func val(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return clean(s)
}

// clean makes s one safe line inside the block.
func clean(s string) string { return mdblock.Clean(s, 300) }

// WhiteboardEvent returns the compaction identity recorded in MEMORY.md's block, or "".
func WhiteboardEvent(data []byte) string { return markers.Split(data).Attrs["event"] }
