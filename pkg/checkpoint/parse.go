package checkpoint

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/adrg/frontmatter"
)

// maxRead bounds how much of a checkpoint file is read: one written by cairn is a few KiB, so a
// larger file is read through its first MiB only.
const maxRead = 1 << 20

// Checkpoint is a checkpoint file as read back.
type Checkpoint struct {
	Path  string    // absolute
	Name  string    // the file name
	Title string    // from the file name: the part after the timestamp, without ".md"
	Saved time.Time // from the file name's timestamp prefix, local time

	// From the frontmatter; empty or zero when missing or unreadable.
	Status      string
	Branch      string
	Timestamp   string    // as written
	Time        time.Time // Timestamp parsed, when it parses
	Duration    time.Duration
	HasDuration bool
	Files       []string
	Event       string

	Heading string // the text after "## Working on: "
	Sections
}

// Parse reads a checkpoint's content. It is tolerant, since people and Claude edit these files
// by hand: a frontmatter that is not valid YAML is read line by line as "key: value" and
// "  - item"; a field of an unexpected type is converted or left empty; a body without the four
// headings is all Summary. Parse never fails; what it cannot read stays empty.
func Parse(data []byte) Checkpoint {
	var c Checkpoint
	var fm map[string]any
	body, err := frontmatter.Parse(bytes.NewReader(data), &fm)
	if err != nil || fm == nil {
		// YAML refused it, or the opening "---" has no closing line (which frontmatter reads
		// as no frontmatter at all, leaving the fields in the body).
		fm, body = looseFrontmatter(data)
	}
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
	c.Heading, c.Sections = parseBody(body)
	return c
}

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

// looseFrontmatter reads a frontmatter that YAML refused: the lines between a first "---" line
// and the next one, as "key: value" pairs and "- item" list entries under the last key.
func looseFrontmatter(data []byte) (map[string]any, []byte) {
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

// parseBody splits the markdown after the frontmatter into the heading and the four sections.
// Lines escaped by Render lose one backslash. Text before the first section heading (other than
// the "## Working on:" line) belongs to Summary.
func parseBody(body []byte) (heading string, s Sections) {
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

// Load reads the checkpoint at path (at most its first MiB). Symlinks and other non-regular
// files are refused, so that a link in the checkpoint directory cannot make restore print a file
// from elsewhere.
func Load(path string) (Checkpoint, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Checkpoint{}, err
	}
	if !fi.Mode().IsRegular() {
		return Checkpoint{}, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return Checkpoint{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRead))
	if err != nil {
		return Checkpoint{}, err
	}
	c := Parse(data)
	c.Path = path
	c.Name = fi.Name()
	c.Title, c.Saved, _ = splitName(c.Name)
	return c, nil
}
