package checkpoint

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// This file reads checkpoints without YAML, which is what the hooks need: PreCompact looks for
// the event in its own automatic checkpoints' frontmatter. Reading checkpoints as people write
// them, YAML included, is package saved's (the CLI's), so the hooks link no YAML library (its
// init alone costs a hook a tenth of its budget).

// Frontmatter is what a checkpoint's frontmatter says; empty or zero where it is missing or
// unreadable.
type Frontmatter struct {
	Status      string
	Branch      string
	Timestamp   string    // as written
	Time        time.Time // Timestamp parsed, when it parses
	Duration    time.Duration
	HasDuration bool
	Files       []string
	Event       string
}

// ReadFrontmatter converts decoded frontmatter fields (from YAML, or from SplitLoose) into a
// Frontmatter: a field of an unexpected type is converted or left empty.
func ReadFrontmatter(fm map[string]any) Frontmatter {
	var c Frontmatter
	c.Status = oneLine(scalar(fm["status"]))
	c.Branch = oneLine(scalar(fm["branch"]))
	c.Event = oneLine(scalar(fm["event"]))
	switch t := fm["timestamp"].(type) {
	case time.Time:
		c.Time, c.Timestamp = t, t.Format(timestampLayout)
	default:
		c.Timestamp = oneLine(scalar(t))
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
			if s := oneLine(scalar(f)); s != "" {
				c.Files = append(c.Files, s)
			}
		}
	default:
		if s := oneLine(scalar(v)); s != "" {
			c.Files = []string{s}
		}
	}
	return c
}

// eventOf reads the event of the checkpoint at path from its first 64 KiB with the line reader:
// Auto wrote that line itself (Render), and the line reader reads what Render writes as YAML does.
func eventOf(path string) (string, bool) {
	data, err := safefile.ReadHead(path, 64<<10)
	if err != nil {
		return "", false
	}
	fm, _ := SplitLoose(data)
	return ReadFrontmatter(fm).Event, true
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

// SplitLoose is the line reader for a frontmatter (what PreCompact uses, and what saved falls back
// to when YAML refuses one): the lines between a first "---" line
// and the next one, as "key: value" pairs and "- item" list entries under the last key.
func SplitLoose(data []byte) (map[string]any, []byte) {
	fm := map[string]any{}
	rest := data
	line, rest, ok := cutLine(rest)
	for ok && strings.TrimSpace(line) == "" {
		line, rest, ok = cutLine(rest)
	}
	if strings.TrimSpace(line) != "---" {
		return fm, data
	}
	key := ""
	for {
		line, rest, ok = cutLine(rest)
		if !ok && line == "" {
			return fm, nil // no closing line: all of it was frontmatter
		}
		t := strings.TrimSpace(line)
		if t == "---" {
			return fm, rest
		}
		if item, isItem := strings.CutPrefix(t, "- "); isItem && key != "" {
			list, _ := fm[key].([]any)
			fm[key] = append(list, unquote(item))
			continue
		}
		if k, v, found := strings.Cut(t, ":"); found && !strings.HasPrefix(line, " ") {
			key = strings.TrimSpace(k)
			if v = strings.TrimSpace(v); v != "" && v != "[]" {
				fm[key] = unquote(v)
			} else {
				fm[key] = nil
			}
		}
		if !ok {
			return fm, nil
		}
	}
}

func cutLine(b []byte) (line string, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return string(b), nil, false
	}
	return string(b[:i]), b[i+1:], true
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"') {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
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
			heading, seenHeading = oneLine(h), true
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
