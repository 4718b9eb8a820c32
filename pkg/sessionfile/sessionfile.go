// Package sessionfile reads and writes .claude/state/session-context.md (the session context
// file: docs/DESIGN.md, What cairn is for), the one file three owners share:
//
//   - the snapshot block, PreCompact's: which session compacted, when, on which branch, its
//     open tasks and the files it edited since the last compaction ([Snapshot], [Refresh]);
//   - the "## Parked items" section, package parking's: it is handed the section's lines and
//     hands back new ones ([Split], [File.Parked], [File.WithParked]);
//   - everything else — a title, prose a person wrote — which no one rewrites.
//
// One parser decides where each part ends (mdblock's rule for the block: at its end marker, or
// before the next "## " heading when that was lost), so that a damaged snapshot never swallows
// the parked items and an edit of one part keeps the others byte for byte.
package sessionfile

import (
	"path/filepath"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/mdblock"
)

// Rel is the file's place relative to the project root, with '/', as messages name it.
const Rel = ".claude/state/session-context.md"

// Path is the file's place under the project root.
func Path(root string) string { return filepath.Join(root, filepath.FromSlash(Rel)) }

// Markers delimit the snapshot block.
var Markers = mdblock.Markers{
	Begin: "<!-- cairn:session-snapshot begin",
	End:   "<!-- cairn:session-snapshot end -->",
}

// ParkedHeading opens the parked-items section (matched case-insensitively on read).
const ParkedHeading = "## Parked items"

// title starts a file cairn creates.
const title = "# Session context"

// MaxSize bounds the file: it normally holds a snapshot and ten bullets, so a larger one is
// refused rather than read, which keeps a hook's memory bounded.
const MaxSize = 4 << 20

// File is session-context.md cut into lines, each with its line end (the last may have none),
// with the parked-items section located. Only lines inside the section are ever changed through
// it; every other byte is written back as read.
type File struct {
	lines  []string
	exists bool
	head   int // index of the section's heading line, -1 when there is none
	end    int // index of the first line after the section
}

// Split cuts data (the file's content; exists says whether there was a file) and locates the
// parked-items section: the first "## Parked items" heading outside the snapshot block, to the
// next "## " heading or snapshot block.
func Split(data []byte, exists bool) *File {
	f := &File{exists: exists, head: -1, end: -1}
	for s := string(data); s != ""; {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			f.lines = append(f.lines, s)
			break
		}
		f.lines = append(f.lines, s[:i+1])
		s = s[i+1:]
	}
	snapStart, snapEnd := Markers.Find(f.lines)
	for i, l := range f.lines {
		if i >= snapStart && i < snapEnd {
			continue
		}
		if strings.EqualFold(strings.TrimRight(l, " \t\r\n"), ParkedHeading) {
			f.head = i
			break
		}
	}
	if f.head < 0 {
		return f
	}
	f.end = len(f.lines)
	for i := f.head + 1; i < len(f.lines); i++ {
		if strings.HasPrefix(f.lines[i], "## ") || strings.HasPrefix(f.lines[i], Markers.Begin) {
			f.end = i
			break
		}
	}
	return f
}

// HasParked reports whether the file has a parked-items section.
func (f *File) HasParked() bool { return f.head >= 0 }

// Followed reports whether a heading or the snapshot block follows the section.
func (f *File) Followed() bool { return f.head >= 0 && f.end < len(f.lines) }

// Parked returns the lines of the parked-items section after its heading, each with its line
// end; nil when there is no section.
func (f *File) Parked() []string {
	if f.head < 0 {
		return nil
	}
	return f.lines[f.head+1 : f.end]
}

// WithParked returns the file with the section's lines after its heading replaced by body. A
// file without the section gets one at its end (a new file: a title and the section), but only
// when body has something to put in it.
func (f *File) WithParked(body string) []byte {
	var b strings.Builder
	if f.head < 0 {
		whole := strings.Join(f.lines, "")
		if body == "" {
			return []byte(whole)
		}
		if !f.exists {
			b.WriteString(title + "\n\n")
		} else {
			b.WriteString(whole)
			if whole != "" && !strings.HasSuffix(whole, "\n") {
				b.WriteByte('\n')
			}
			if whole != "" && !strings.HasSuffix(whole, "\n\n") {
				b.WriteByte('\n')
			}
		}
		b.WriteString(ParkedHeading + "\n\n")
		b.WriteString(body)
		return []byte(b.String())
	}
	for _, l := range f.lines[:f.head+1] {
		b.WriteString(l)
	}
	if body != "" && !strings.HasSuffix(f.lines[f.head], "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(body)
	rest := f.lines[f.end:]
	if len(rest) > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	for _, l := range rest {
		b.WriteString(l)
	}
	return []byte(b.String())
}
