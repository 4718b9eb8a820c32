// Package whiteboard maintains a run's MEMORY.md (seed 001): a snapshot block owned by the
// PreCompact hook, between two marker lines, and five prose sections owned by people and Claude.
// The hook rewrites only its block; prose is never changed or dropped, and the whole file is
// kept within MaxLines by shortening the block, never the prose.
package whiteboard

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// MaxLines caps MEMORY.md (seed 001: "a whiteboard longer than that is a second context to
// lose, not a summary").
const MaxLines = 200

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

	RunID, Issue, Phase, Branch, Worktree, PR string
	Gates                                     [4]string // spec, quality, architecture, security
	PlanOpen, UpdatedAt                       string
	StateNote                                 string // e.g. "state.json is unreadable"; shown instead of silence

	Trigger      string
	Instructions *string

	Tasks []string // open tasks, in progress first, already labelled
	Files []string // files edited since the last compaction, most recent first
}

// GateNames label Snapshot.Gates.
var GateNames = [4]string{"spec", "quality", "architecture", "security"}

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

// Parsed splits MEMORY.md around its block.
type Parsed struct {
	Before, After []string // lines outside the block (the first block; later duplicates dropped)
	Block         []string // the block's lines, markers included; nil when there is none
	Event         string
	At            time.Time
}

var attrRE = regexp.MustCompile(`(\w+)=(\S+)`)

// Parse finds the block. A begin marker without an end marker runs to the next "## " heading, so
// a damaged block is replaced rather than duplicated. Extra blocks are dropped.
func Parse(data []byte) Parsed {
	var p Parsed
	lines := splitLines(data)
	i := 0
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], beginPrefix) {
			break
		}
		p.Before = append(p.Before, lines[i])
	}
	if i == len(lines) {
		return p
	}
	for _, m := range attrRE.FindAllStringSubmatch(lines[i], -1) {
		switch m[1] {
		case "event":
			p.Event = m[2]
		case "at":
			if t, err := time.Parse(time.RFC3339, m[2]); err == nil {
				p.At = t
			}
		}
	}
	j := blockEnd(lines, i)
	p.Block = lines[i:j]
	rest := lines[j:]
	// Drop any further blocks: there is one owner and one block.
	for k := 0; k < len(rest); k++ {
		if strings.HasPrefix(rest[k], beginPrefix) {
			e := blockEnd(rest, k)
			rest = append(rest[:k:k], rest[e:]...)
			k--
			continue
		}
	}
	p.After = rest
	return p
}

// blockEnd returns the index just past the block starting at i.
func blockEnd(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSuffix(lines[j], "\r") == endMarker {
			return j + 1
		}
		if strings.HasPrefix(lines[j], "## ") || strings.HasPrefix(lines[j], beginPrefix) {
			return j
		}
	}
	return len(lines)
}

// splitLines splits on '\n' only, so a CRLF file keeps its '\r's: prose is preserved byte for
// byte. Marker and heading checks ignore a trailing '\r'.
func splitLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Result is what Refresh did.
type Result struct {
	Data      []byte
	Dropped   int  // snapshot lines dropped to stay within MaxLines
	ProseOver bool // the prose alone is over MaxLines; the block is minimal
	Lines     int  // lines in the new file
}

// Refresh returns MEMORY.md with its block rebuilt from s: the block is replaced in place, or
// inserted after a leading "# " title (or at the top) when missing, or the file is created from
// Template when it does not exist. Nothing outside the block changes, except that a separating
// blank line is added after a newly inserted block.
func Refresh(old []byte, exists bool, s Snapshot) Result {
	if !exists {
		block, dropped, over := fit(s, MaxLines-countLines(Template(s.RunID, nil)))
		data := Template(s.RunID, block)
		return Result{Data: data, Dropped: dropped, ProseOver: over, Lines: countLines(data)}
	}
	p := Parse(old)
	if p.Event != "" && p.Event == s.Event && !p.At.IsZero() {
		s.At = p.At
	}
	before, after := p.Before, p.After
	if p.Block == nil {
		// Insert after a leading title and its blank line, else at the top.
		k := 0
		if len(before) > 0 && strings.HasPrefix(before[0], "# ") {
			k = 1
			if len(before) > 1 && strings.TrimSpace(before[1]) == "" {
				k = 2
			}
		}
		after = append([]string(nil), before[k:]...)
		before = append([]string(nil), before[:k]...)
		if k == 1 {
			before = append(before, "")
		}
		if len(after) > 0 && strings.TrimSpace(after[0]) != "" {
			after = append([]string{""}, after...)
		}
	}
	budget := MaxLines - len(before) - len(after)
	block, dropped, over := fit(s, budget)
	var b bytes.Buffer
	for _, group := range [][]string{before, block, after} {
		for _, l := range group {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	data := b.Bytes()
	return Result{Data: data, Dropped: dropped, ProseOver: over, Lines: countLines(data)}
}

func countLines(b []byte) int { return bytes.Count(b, []byte("\n")) }

// fit renders the block within budget lines, shortening it step by step: first the list tails
// (files, then tasks) give way to "… N more" lines, then the optional lines go, then the block
// shrinks to one line. The prose is never touched: when even the one-line block does not fit,
// the prose alone is over the cap, and the block says so.
func fit(s Snapshot, budget int) (block []string, dropped int, proseOver bool) {
	full := render(s, len(s.Tasks), len(s.Files), true)
	if len(full) <= budget {
		return full, 0, false
	}
	shortened := func(b []string) ([]string, int) {
		n := len(full) - len(b) + 1 // the note line itself takes one
		return withNote(b, n), n
	}
	nt, nf := len(s.Tasks), len(s.Files)
	for nf > 0 || nt > 0 {
		if nf > 0 {
			nf--
		} else {
			nt--
		}
		if b, n := shortened(render(s, nt, nf, true)); len(b) <= budget {
			return b, n, false
		}
	}
	if b, n := shortened(render(s, 0, 0, false)); len(b) <= budget {
		return b, n, false
	}
	n := len(full) - 3
	one := fmt.Sprintf("- Run: %s · phase: %s — snapshot cut by %d lines to keep MEMORY.md within %d lines", val(s.RunID), val(s.Phase), n, MaxLines)
	over := budget < 3
	if over {
		one = fmt.Sprintf("- Run: %s · phase: %s — snapshot cut to its minimum: the prose below is over %d lines; trim it", val(s.RunID), val(s.Phase), MaxLines-3)
	}
	return []string{beginLine(s), one, endMarker}, n, over
}

func withNote(b []string, n int) []string {
	note := fmt.Sprintf("- (snapshot shortened by %d lines to keep MEMORY.md within %d lines)", n, MaxLines)
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
	l = append(l, fmt.Sprintf("- Run: %s · issue: %s · phase: %s", val(s.RunID), val(s.Issue), val(s.Phase)))
	l = append(l, fmt.Sprintf("- Branch: %s · PR: %s", val(s.Branch), val(s.PR)))
	var g []string
	for i, n := range GateNames {
		g = append(g, n+": "+val(s.Gates[i]))
	}
	l = append(l, "- Gates: "+strings.Join(g, " · "))
	l = append(l, fmt.Sprintf("- Open plan items: %s · state updated: %s", val(s.PlanOpen), val(s.UpdatedAt)))
	if s.StateNote != "" {
		l = append(l, "- Note: "+clean(s.StateNote))
	}
	c := fmt.Sprintf("- Compaction: %s, %s", s.At.UTC().Format(time.RFC3339), val(s.Trigger))
	if s.Instructions != nil && strings.TrimSpace(*s.Instructions) != "" {
		c += fmt.Sprintf(", instructions: %q", clean(*s.Instructions))
	}
	l = append(l, c)
	if optional && s.Worktree != "" {
		l = append(l, "- Worktree: "+clean(s.Worktree))
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

// clean makes s one safe line inside the block: no newlines or control characters, no comment
// markers that could end the block early, bounded length.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "<!--", "<!‐‐")
	s = strings.ReplaceAll(s, "-->", "‐‐>")
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}
