package parking

import (
	"strings"

	"github.com/cairn-hooks/cairn/pkg/sessionctx"
)

// Heading opens the parked-items section of session-context.md.
const Heading = "## Parked items"

// The PreCompact snapshot section of session-context.md (package sessionctx) is not parking's
// and is never looked into. Its extent follows mdblock's one rule: from the begin marker to the
// end marker, or — when the end marker was lost — to the next "## " heading, so that both
// packages agree on where it stops and a damaged snapshot never swallows the parked items.
var (
	snapshotBegin = sessionctx.Markers.Begin
	snapshotEnd   = sessionctx.Markers.End
)

// newFileHead starts a session-context.md that parking creates.
const newFileHead = "# Session context\n\n" + Heading + "\n\n"

// contextFile is session-context.md cut into lines, with the parked-items section located.
// Only lines inside the section are ever changed; every other byte is written back as read.
type contextFile struct {
	lines  []string // each with its line end; the last may have none
	head   int      // index of the heading line, -1 when there is none
	end    int      // index of the first line after the section
	blocks []block  // the section's bullets, in order
}

// block is one bullet: its first line and any indented continuation lines.
type block struct {
	start, end int // line indexes, end exclusive
	bullet     Bullet
	dated      bool   // the bullet carries a valid Raised date
	text       string // the block as written, without its final line end
}

func parseContext(data []byte) *contextFile {
	f := &contextFile{head: -1}
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			f.lines = append(f.lines, s)
			break
		}
		f.lines = append(f.lines, s[:i+1])
		s = s[i+1:]
	}
	inSnap := false
	for i, l := range f.lines {
		t := trimEOL(l)
		if inSnap {
			if t == snapshotEnd {
				inSnap = false
				continue
			}
			if !strings.HasPrefix(t, "## ") {
				continue
			}
			inSnap = false // the end marker is missing: the section stops at this heading
		}
		if strings.HasPrefix(t, snapshotBegin) {
			inSnap = true
			continue
		}
		if strings.EqualFold(strings.TrimRight(t, " \t"), Heading) {
			f.head = i
			break
		}
	}
	if f.head < 0 {
		f.end = -1
		return f
	}
	f.end = len(f.lines)
	for i := f.head + 1; i < len(f.lines); i++ {
		t := trimEOL(f.lines[i])
		if strings.HasPrefix(t, "## ") || strings.HasPrefix(t, snapshotBegin) {
			f.end = i
			break
		}
	}
	for i := f.head + 1; i < f.end; {
		if !isBulletLine(f.lines[i]) {
			i++
			continue
		}
		j := i + 1
		for j < f.end && isContinuation(f.lines[j]) {
			j++
		}
		var joined, raw []string
		for k := i; k < j; k++ {
			joined = append(joined, strings.TrimSpace(trimEOL(f.lines[k])))
			raw = append(raw, trimEOL(f.lines[k]))
		}
		if b, ok := ParseBullet(strings.Join(joined, " ")); ok {
			f.blocks = append(f.blocks, block{start: i, end: j, bullet: b, dated: b.Raised != "", text: strings.Join(raw, "\n")})
		}
		i = j
	}
	return f
}

func trimEOL(l string) string {
	return strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
}

// isBulletLine reports a top-level list item: at most three spaces, then "-", "*" or "+" and a blank.
func isBulletLine(l string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || !strings.ContainsRune("-*+", rune(t[0])) {
		return false
	}
	return (t[1] == ' ' || t[1] == '\t') && strings.TrimSpace(t[2:]) != ""
}

// isContinuation reports an indented, non-blank line that continues the bullet above it.
func isContinuation(l string) bool {
	if strings.TrimSpace(l) == "" || isBulletLine(l) {
		return false
	}
	return l[0] == ' ' || l[0] == '\t'
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// edit is what a transaction changes in the section.
type edit struct {
	remove  map[int]bool   // block index → drop the block
	replace map[int]string // block index → one new line in its place
	add     []string       // new bullet lines, appended after the last bullet
}

func (e *edit) empty() bool {
	return len(e.remove) == 0 && len(e.replace) == 0 && len(e.add) == 0
}

// render writes the file back with e applied. exists says whether the file was there at all.
func (f *contextFile) render(e edit, exists bool) []byte {
	var b strings.Builder
	addLines := func() {
		for _, l := range e.add {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if f.head < 0 {
		if !exists {
			b.WriteString(newFileHead)
			addLines()
			return []byte(b.String())
		}
		whole := strings.Join(f.lines, "")
		b.WriteString(whole)
		if len(e.add) == 0 {
			return []byte(whole)
		}
		if whole != "" && !strings.HasSuffix(whole, "\n") {
			b.WriteByte('\n')
		}
		if whole != "" && !strings.HasSuffix(whole, "\n\n") {
			b.WriteByte('\n')
		}
		b.WriteString(Heading + "\n\n")
		addLines()
		return []byte(b.String())
	}
	// Where new bullets go: after the last bullet, else after the heading and one blank line.
	insertAt, blankBefore := f.head+1, true
	if len(f.blocks) > 0 {
		insertAt, blankBefore = f.blocks[len(f.blocks)-1].end, false
	} else if insertAt < f.end && isBlank(f.lines[insertAt]) {
		insertAt, blankBefore = insertAt+1, false
	}
	blockAt := map[int]int{}
	for i, bl := range f.blocks {
		blockAt[bl.start] = i
	}
	writeLine := func(l string) { b.WriteString(l) }
	ensureEOL := func() {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	insert := func() {
		if len(e.add) == 0 {
			return
		}
		ensureEOL()
		if blankBefore {
			b.WriteByte('\n')
		}
		addLines()
		if insertAt < len(f.lines) && !isBlank(f.lines[insertAt]) && !isBulletLine(f.lines[insertAt]) {
			b.WriteByte('\n')
		}
	}
	for i := 0; i < len(f.lines); {
		if i == insertAt {
			insert()
		}
		if bi, ok := blockAt[i]; ok && i < f.end {
			bl := f.blocks[bi]
			switch {
			case e.remove[bi]:
			case e.replace[bi] != "":
				ensureEOL()
				b.WriteString(e.replace[bi])
				if bl.end < len(f.lines) || strings.HasSuffix(f.lines[bl.end-1], "\n") {
					b.WriteByte('\n')
				}
			default:
				for k := bl.start; k < bl.end; k++ {
					writeLine(f.lines[k])
				}
			}
			i = bl.end
			continue
		}
		writeLine(f.lines[i])
		i++
	}
	if insertAt >= len(f.lines) {
		insert()
	}
	return []byte(b.String())
}
