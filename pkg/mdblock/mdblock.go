// Package mdblock finds and replaces a machine-owned block inside a markdown file that people
// also edit: the block runs from a begin marker line (an HTML comment that may carry key=value
// attributes) to an end marker line. Everything outside the block is kept byte for byte.
// It stands alone because two owners share its rule: the whiteboard (runstate) and
// session-context.md (sessionfile).
package mdblock

import (
	"bytes"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/plain"
)

// Markers name one kind of block: Begin is the prefix of the begin line ("<!-- cairn:snapshot
// begin"), End the whole end line.
type Markers struct {
	Begin, End string
}

// File is a markdown file split around its block.
type File struct {
	Before, Block, After []string // Block includes both marker lines; nil when there is no block
	Attrs                map[string]string
}

// Split finds the first block. A begin marker without an end marker runs to the next "## "
// heading, so a damaged block is replaced rather than duplicated; further blocks are dropped,
// since a block has one owner. Lines are split on '\n' only, so CRLF files keep their '\r's.
func (m Markers) Split(data []byte) File {
	var f File
	lines := Lines(data)
	i, j := m.Find(lines)
	if i < 0 {
		f.Before = lines
		return f
	}
	f.Before = lines[:i]
	f.Attrs = map[string]string{}
	for _, field := range strings.Fields(strings.TrimPrefix(lines[i], m.Begin)) {
		if k, v, ok := strings.Cut(field, "="); ok && k != "" && v != "" {
			f.Attrs[k] = v
		}
	}
	f.Block = lines[i:j]
	rest := append([]string(nil), lines[j:]...)
	for k := 0; k < len(rest); k++ {
		if strings.HasPrefix(rest[k], m.Begin) {
			rest = append(rest[:k], rest[m.end(rest, k):]...)
			k--
		}
	}
	f.After = rest
	return f
}

// Find returns the line range [start, end) of the first block in lines, or -1, -1 when there is
// none. Lines may keep their line ends. It is the one rule for where a block ends, which every
// reader of a file with a block follows: at the end marker, or — when that was lost — before
// the next "## " heading or begin marker, so that a damaged block never swallows what follows.
func (m Markers) Find(lines []string) (start, end int) {
	for i, l := range lines {
		if strings.HasPrefix(l, m.Begin) {
			return i, m.end(lines, i)
		}
	}
	return -1, -1
}

// end returns the index just past the block that starts at i.
func (m Markers) end(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimRight(lines[j], "\r\n") == m.End {
			return j + 1
		}
		if strings.HasPrefix(lines[j], "## ") || strings.HasPrefix(lines[j], m.Begin) {
			return j
		}
	}
	return len(lines)
}

// Place returns the lines before and after where a block goes: its old place, or — when the file
// has none — after a leading "# " title (with one blank line between), else at the top, with a
// blank line kept between the block and what follows.
func (f File) Place() (before, after []string) {
	if f.Block != nil {
		return f.Before, f.After
	}
	lines := f.Before
	k := 0
	if len(lines) > 0 && strings.HasPrefix(lines[0], "# ") {
		k = 1
		if len(lines) > 1 && strings.TrimSpace(lines[1]) == "" {
			k = 2
		}
	}
	before = append([]string(nil), lines[:k]...)
	if k == 1 {
		before = append(before, "")
	}
	after = append([]string(nil), lines[k:]...)
	if len(after) > 0 && strings.TrimSpace(after[0]) != "" {
		after = append([]string{""}, after...)
	}
	return before, after
}

// Join writes groups of lines, each line ended by '\n'.
func Join(groups ...[]string) []byte {
	var b bytes.Buffer
	for _, g := range groups {
		for _, l := range g {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// Lines splits data on '\n', without a final empty line.
func Lines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Clean makes s one safe line inside a block: one line with its secrets redacted (plain.Field),
// with the comment markers that could end the block early defused, cut at max runes.
func Clean(s string, max int) string {
	s = plain.Field(s, 0)
	if strings.Contains(s, "<!--") || strings.Contains(s, "-->") {
		s = strings.ReplaceAll(s, "<!--", "<!‐‐")
		s = strings.ReplaceAll(s, "-->", "‐‐>")
	}
	return plain.Cut(s, max)
}
