package parking

import (
	"strings"

	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// section is the parked-items section of session-context.md as sessionfile hands it over: the
// lines after its heading, with the bullets located. Only the bullets a transaction changes are
// rewritten; every other line is written back as read.
type section struct {
	lines    []string // each with its line end; the last may have none
	present  bool     // the file has the section (else lines is empty)
	followed bool     // a heading or the snapshot block comes after the section
	blocks   []block  // the bullets, in order
}

// block is one bullet: its first line and any indented continuation lines.
type block struct {
	start, end int // line indexes, end exclusive
	bullet     Bullet
	dated      bool   // the bullet carries a valid Raised date
	text       string // the block as written, without its final line end
}

func parseSection(f *sessionfile.File) *section {
	s := &section{lines: f.Parked(), present: f.HasParked(), followed: f.Followed()}
	eachBullet(s.lines, func(start, end int, joined, raw string) {
		if b, ok := parseBullet(joined); ok {
			s.blocks = append(s.blocks, block{start: start, end: end, bullet: b, dated: b.Raised != "", text: raw})
		}
	})
	return s
}

// raisedDates is the Raised date of each bullet of the section in lines, in order, "" for an
// undated one: parseSection's bullets, parsed for their dates alone (raisedOf).
func raisedDates(lines []string) []string {
	var out []string
	eachBullet(lines, func(_, _ int, joined, _ string) {
		if raised, ok := raisedOf(joined); ok {
			out = append(out, raised)
		}
	})
	return out
}

// eachBullet calls fn with each bullet line of lines and its continuation lines (lines start to
// end, end exclusive): joined as one line of text, and raw as written, without the last line end.
func eachBullet(lines []string, fn func(start, end int, joined, raw string)) {
	for i := 0; i < len(lines); {
		if !isBulletLine(lines[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(lines) && isContinuation(lines[j]) {
			j++
		}
		var joined, raw []string
		for k := i; k < j; k++ {
			joined = append(joined, strings.TrimSpace(trimEOL(lines[k])))
			raw = append(raw, trimEOL(lines[k]))
		}
		fn(i, j, strings.Join(joined, " "), strings.Join(raw, "\n"))
		i = j
	}
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

// render returns the section's lines with e applied. New bullets go after the last bullet, else
// after the heading and one blank line.
func (s *section) render(e edit) string {
	var b strings.Builder
	addLines := func() {
		for _, l := range e.add {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if !s.present {
		addLines()
		return b.String()
	}
	insertAt, blankBefore := 0, true
	if len(s.blocks) > 0 {
		insertAt, blankBefore = s.blocks[len(s.blocks)-1].end, false
	} else if len(s.lines) > 0 && isBlank(s.lines[0]) {
		insertAt, blankBefore = 1, false
	}
	blockAt := map[int]int{}
	for i, bl := range s.blocks {
		blockAt[bl.start] = i
	}
	ensureEOL := func() {
		if out := b.String(); out != "" && !strings.HasSuffix(out, "\n") {
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
		if insertAt < len(s.lines) && !isBlank(s.lines[insertAt]) && !isBulletLine(s.lines[insertAt]) || insertAt == len(s.lines) && s.followed {
			b.WriteByte('\n')
		}
	}
	for i := 0; i < len(s.lines); {
		if i == insertAt {
			insert()
		}
		if bi, ok := blockAt[i]; ok {
			bl := s.blocks[bi]
			switch {
			case e.remove[bi]:
			case e.replace[bi] != "":
				ensureEOL()
				b.WriteString(e.replace[bi])
				if bl.end < len(s.lines) || strings.HasSuffix(s.lines[bl.end-1], "\n") {
					b.WriteByte('\n')
				}
			default:
				for k := bl.start; k < bl.end; k++ {
					b.WriteString(s.lines[k])
				}
			}
			i = bl.end
			continue
		}
		b.WriteString(s.lines[i])
		i++
	}
	if insertAt >= len(s.lines) {
		insert()
	}
	return b.String()
}
