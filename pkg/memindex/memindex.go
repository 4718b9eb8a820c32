// Package memindex reads and edits MEMORY.md, the index that Claude Code keeps of its auto
// memory in <config>/projects/<slug>/memory/. Claude Code adds a pointer line for every memory
// file it writes there,
//
//   - [Title](file.md) — one-line hook
//
// and loads the first 200 lines of the index into every session. The legacy session-open-*.md
// parked items live in the same directory, so when cairn removes one, the lines pointing at it go
// too: otherwise every later session starts with a pointer to nothing.
//
// The index is Claude Code's file, not cairn's. A pointer line is removed whole, with its line
// ending; every other byte (the other lines, their order, their line endings, a byte-order
// mark, a last line without an ending) stays as it was. An index that is not UTF-8, larger
// than MaxSize or not a regular file is never edited.
package memindex

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Name is the index's file name in the memory directory.
const Name = "MEMORY.md"

// MaxSize bounds the index cairn reads or edits. Claude Code loads 200 lines of it, a few tens
// of KiB; an index of megabytes is not one cairn should rewrite from a hook that must finish in
// milliseconds (docs/DESIGN.md, Budgets), so it is left alone.
const MaxSize = 1 << 20

// errNotUTF8 reports an index that is not valid UTF-8: cairn cannot tell its lines apart as
// Claude Code would, so it leaves the file alone.
var errNotUTF8 = errors.New("not UTF-8")

// Path is the index of the memory directory dir.
func Path(dir string) string { return filepath.Join(dir, Name) }

// Pointer is one line of an index that opens with a link to a file.
type Pointer struct {
	Line   int    // 1-based
	Text   string // the line without its ending
	Target string // the link destination, without angle brackets, backslash escapes or a title
	File   string // the file the target names in the index's own directory; "" when it names none
}

// line is one line of an index: data[start:end] is its text, data[end:next] its ending.
type line struct{ start, end, next int }

// split cuts data into lines ending in "\n", "\r\n" or a lone "\r" (CommonMark's line endings:
// a lone "\r" is one, so an index saved with old Mac endings is not one long line). A UTF-8
// byte-order mark is not part of the first line; the first line starts after it.
func split(data []byte) []line {
	var out []line
	i := 0
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		i = 3
	}
	for i < len(data) {
		j := bytes.IndexAny(data[i:], "\r\n")
		if j < 0 {
			out = append(out, line{i, len(data), len(data)})
			break
		}
		end, next := i+j, i+j+1
		if data[end] == '\r' && next < len(data) && data[next] == '\n' {
			next++
		}
		out = append(out, line{i, end, next})
		i = next
	}
	return out
}

// Pointers returns the lines of data that open a list item with a link (see target), in order;
// lines inside fenced code blocks are code, not pointers. Data that is not UTF-8 has none
// (errNotUTF8).
func Pointers(data []byte) ([]Pointer, error) {
	if !utf8.Valid(data) {
		return nil, errNotUTF8
	}
	var out []Pointer
	var f fence
	for n, l := range split(data) {
		text := string(data[l.start:l.end])
		if f.skip(text) {
			continue
		}
		if target, ok := target(text); ok {
			out = append(out, Pointer{Line: n + 1, Text: text, Target: target, File: file(target)})
		}
	}
	return out, nil
}

// Remove returns data without the pointer lines whose File drop accepts, and those lines as
// they were, without their endings. Only whole lines go, each with its own ending; when none
// does, data itself is returned. Data that is not UTF-8 is returned as it is, with errNotUTF8.
func Remove(data []byte, drop func(file string) bool) ([]byte, []string, error) {
	if !utf8.Valid(data) {
		return data, nil, errNotUTF8
	}
	var out []byte
	var gone []string
	kept := 0 // data[:kept] is copied to out, or will be
	var f fence
	for _, l := range split(data) {
		text := string(data[l.start:l.end])
		if f.skip(text) {
			continue
		}
		target, ok := target(text)
		if !ok || !drop(file(target)) {
			continue
		}
		out = append(out, data[kept:l.start]...)
		kept = l.next
		gone = append(gone, text)
	}
	if gone == nil {
		return data, nil, nil
	}
	return append(out, data[kept:]...), gone, nil
}

// Read reads the index of the memory directory dir, without a lock. A missing index gives an
// error that is fs.ErrNotExist; one that is not a regular file (a symlink included), larger than
// MaxSize or not UTF-8 gives an error saying so, and is to be left alone.
func Read(dir string) ([]byte, error) {
	p := Path(dir)
	data, _, err := safefile.ReadFile(dir, p, MaxSize)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: %w", p, errNotUTF8)
	}
	return data, nil
}

// Drop removes the pointer lines whose File drop accepts from the index of the memory directory
// dir, through w (a writer confined to dir): under the lock, atomically, and with
// safefile.Recheck, because Claude Code rewrites the index without taking cairn's lock. It
// returns the lines removed. A missing index, or one without such a line, is not written.
func Drop(w safefile.Writer, dir string, drop func(file string) bool) ([]string, error) {
	var gone []string
	_, err := w.Update(Path(dir), 0o644, func(old []byte, exists bool) ([]byte, error) {
		gone = nil // with Recheck, edit may run again on newer content
		if !exists {
			return nil, safefile.ErrNoChange
		}
		out, lines, err := Remove(old, drop)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Path(dir), err)
		}
		if lines == nil {
			return nil, safefile.ErrNoChange
		}
		gone = lines
		return out, nil
	}, safefile.Limit(MaxSize), safefile.Recheck)
	if err != nil {
		return nil, err
	}
	return gone, nil
}

// file returns the name of the file that a link target names in the index's own directory:
// "session-open-x.md" for "session-open-x.md", "./session-open-x.md" or "session-open-x.md#top",
// with percent-escapes decoded; "" for a URL ("https://…", "file:…"), an absolute path or a
// path into another directory, which name some other file.
func file(target string) string {
	if i := strings.IndexAny(target, "#?"); i >= 0 {
		target = target[:i]
	}
	if hasScheme(target) || strings.HasPrefix(target, "/") {
		return ""
	}
	p := path.Clean(unpercent(target))
	if p == "." || p == ".." || strings.ContainsRune(p, '/') {
		return ""
	}
	return p
}

// unpercent decodes the %XX escapes of s; a malformed escape is kept as written. (net/url would
// do, at the cost of linking it into every hook that removes a parked item.)
func unpercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if h, l := unhex(s[i+1]), unhex(s[i+2]); h >= 0 && l >= 0 {
				b = append(b, byte(h<<4|l))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

// hasScheme reports a URL scheme (RFC 3986: a letter, then letters, digits, "+", "-", ".",
// then ":").
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// fence follows fenced code blocks (``` or ~~~, at most three spaces in), line by line.
type fence struct {
	ch byte // the fence character while inside a block, else 0
	n  int  // the opening fence's length
}

// skip reports whether text is part of a fenced code block, its fences included, and moves
// past it.
func (f *fence) skip(text string) bool {
	s, indent := trimIndent(text)
	if indent > 3 || len(s) < 3 || s[0] != '`' && s[0] != '~' {
		return f.ch != 0
	}
	run := 0
	for run < len(s) && s[run] == s[0] {
		run++
	}
	if f.ch != 0 {
		if s[0] == f.ch && run >= f.n && strings.TrimRight(s[run:], " \t") == "" {
			f.ch = 0
		}
		return true
	}
	if run < 3 || s[0] == '`' && strings.ContainsRune(s[run:], '`') {
		return false
	}
	f.ch, f.n = s[0], run
	return true
}

// trimIndent returns text without its leading spaces and tabs, and their width (a tab to the
// next multiple of four).
func trimIndent(text string) (string, int) {
	w := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return text[i:], w
		}
	}
	return "", w
}
