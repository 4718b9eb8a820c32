// Package brief writes what cairn tells Claude: the text the SessionStart and UserPromptSubmit
// hooks hand over as additionalContext. The store packages return data; this package lays it
// out for the model, and nothing else does:
//
//   - the read order, the restore protocol and the whiteboard after a compaction (ReadOrder);
//   - the one-line notices of automatic parking (Parked, Refused);
//   - the broadcasts other sessions sent (Deliveries).
//
// Everything goes under a hard budget (budget, MaxContext): parts go in priority order, a part
// that does not fit is cut at a line boundary, and every cut is announced with a line naming
// where the rest is ("… 12 more lines: see MEMORY.md"), never silently truncated. Every name
// taken from the project — a file, a run, a branch, a title — goes through plain.Name, so that
// none can add a line of its own.
package brief

import (
	"fmt"
	"strings"
)

// MaxContext is the most cairn injects in one hook output. Claude Code moves anything over 10,000
// characters to a file and hands Claude a preview (docs/DESIGN.md, Facts about Claude Code);
// cairn stays under it with a margin and announces its own cuts instead.
const MaxContext = 9500

// budget holds parts in priority order until Max characters (counted as Claude Code counts them,
// in UTF-16 units) are used.
type budget struct {
	Max  int
	b    strings.Builder
	used int
	cuts []string
	full bool
}

// utf16Len is Claude Code's length of s: UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Add appends text (a whole part, lines separated by '\n'); source names where the rest can be
// read when the part is cut ("" means the part is dropped whole rather than cut). It reports
// whether the part went in whole.
func (b *budget) Add(text, source string) bool {
	if text == "" {
		return true
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if !b.full && b.used+utf16Len(text)+b.reserve(0) <= b.Max {
		b.write(text)
		return true
	}
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	total := len(lines)
	kept := 0
	if !b.full && source != "" {
		// Keep whole lines while the rest of the budget, less room for this cut's notice and any
		// later one, allows.
		for _, l := range lines {
			l = strings.TrimSuffix(l, "\n") + "\n"
			if b.used+utf16Len(l)+b.reserve(1)+noticeLen(total-kept-1, source) > b.Max {
				break
			}
			b.write(l)
			kept++
		}
	}
	b.full = true
	if source == "" {
		source = "(dropped)"
	}
	b.cuts = append(b.cuts, notice(total-kept, source))
	return false
}

func (b *budget) write(s string) {
	b.b.WriteString(s)
	b.used += utf16Len(s)
}

// reserve is the room the notices already owed need, plus extra more of them at worst size.
func (b *budget) reserve(extra int) int {
	n := 0
	for _, c := range b.cuts {
		n += utf16Len(c)
	}
	return n + extra*80
}

func notice(n int, source string) string {
	if source == "(dropped)" {
		return fmt.Sprintf("… %d more lines not shown\n", n)
	}
	return fmt.Sprintf("… %d more lines: see %s\n", n, source)
}

func noticeLen(n int, source string) int { return utf16Len(notice(n+1, source)) }

// String returns the assembled text with the cut notices last.
func (b *budget) String() string {
	if len(b.cuts) == 0 {
		return b.b.String()
	}
	s := b.b.String() + strings.Join(b.cuts, "")
	for utf16Len(s) > b.Max && len(s) > 0 {
		// Only reachable with a budget smaller than the notices themselves.
		r := []rune(s)
		s = string(r[:len(r)-1])
	}
	return s
}
