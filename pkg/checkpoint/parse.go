package checkpoint

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/flatmatter"
	"github.com/cairn-hooks/cairn/pkg/plain"
)

// This file reads checkpoints without YAML, which is what the hooks need: PreCompact looks for
// the event in its own automatic checkpoints' frontmatter. Reading checkpoints as people write
// them, YAML included, is package saved's (the CLI's), so the hooks link no YAML library (its
// init alone costs a hook a tenth of its budget).

// Frontmatter is what a checkpoint's frontmatter says; empty or zero where it is missing or
// unreadable.
type Frontmatter struct {
	Status      string
	Kind        string // KindSaved, KindAuto or KindHandoff (see kindOf)
	Branch      string
	Worktree    string    // the linked worktree it was written in; "" in the main checkout
	Timestamp   string    // as written
	Time        time.Time // Timestamp parsed, when it parses
	Duration    time.Duration
	HasDuration bool
	Files       []string
	Event       string
	Session     string // a hand-off's session
}

// ReadFrontmatter converts decoded frontmatter fields (from YAML, or from SplitLoose) into a
// Frontmatter: a field of an unexpected type is converted or left empty.
func ReadFrontmatter(fm map[string]any) Frontmatter {
	var c Frontmatter
	c.Status = plain.Line(scalar(fm["status"]), 0)
	c.Kind = kindOf(plain.Line(scalar(fm["kind"]), 0), c.Status)
	c.Branch = plain.Line(scalar(fm["branch"]), 0)
	c.Worktree = plain.Line(scalar(fm["worktree"]), 0)
	c.Event = plain.Line(scalar(fm["event"]), 0)
	c.Session = plain.Line(scalar(fm["session"]), 0)
	switch t := fm["timestamp"].(type) {
	case time.Time:
		c.Time, c.Timestamp = t, t.Format(timestampLayout)
	default:
		c.Timestamp = plain.Line(scalar(t), 0)
		for _, layout := range []string{time.RFC3339, timestampLayout, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
			if tm, err := time.Parse(layout, c.Timestamp); err == nil {
				c.Time = tm
				break
			}
		}
	}
	if s := scalar(fm["session_duration_s"]); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < math.MaxInt64/float64(time.Second) {
			c.Duration, c.HasDuration = time.Duration(f)*time.Second, true
		}
	}
	switch v := fm["files_modified"].(type) {
	case []any:
		for _, f := range v {
			if s := plain.Line(scalar(f), 0); s != "" {
				c.Files = append(c.Files, s)
			}
		}
	default:
		if s := plain.Line(scalar(v), 0); s != "" {
			c.Files = []string{s}
		}
	}
	return c
}

// MaxRead bounds how much of a checkpoint file is read: one written by cairn is a few KiB, so a
// larger file is read through its first MiB only.
const MaxRead = 1 << 20

// scalar renders a decoded YAML value as text: strings as they are, numbers and booleans
// formatted, anything else (maps, lists, null) as "".
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return v.Format(timestampLayout)
	}
	return ""
}

// SplitLoose reads a checkpoint's frontmatter with the line reader (flatmatter): what PreCompact
// uses to find its own event line, and what saved falls back to when YAML refuses one. A block
// without its closing line is all frontmatter.
func SplitLoose(data []byte) (map[string]any, []byte) {
	fm, body, _ := flatmatter.Split(data)
	return fm, body
}

// ParseBody splits the markdown after the frontmatter into the heading and the four sections.
// Lines escaped by Render lose one backslash. Text before the first section heading (other than
// the "## Working on:" line) belongs to Summary.
func ParseBody(body []byte) (heading string, s Sections) {
	text := lf(string(body))
	var parts [4][]string
	cur := 0
	seenHeading := false
	for _, l := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(l, strings.TrimSpace(workingOn)); ok && !seenHeading {
			heading, seenHeading = plain.Line(h, 0), true
			continue
		}
		if i, ok := sectionHeading(l); ok {
			cur, seenHeading = i, true
			continue
		}
		if strings.HasPrefix(l, `\`) && isStructural(strings.TrimLeft(l, `\`)) {
			l = l[1:]
		}
		parts[cur] = append(parts[cur], l)
	}
	var out [4]string
	for i, p := range parts {
		out[i] = trimSection(strings.Join(p, "\n"))
	}
	return heading, Sections{Summary: out[0], Decisions: out[1], Remaining: out[2], Notes: out[3]}
}
