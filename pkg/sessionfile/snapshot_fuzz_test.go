package sessionfile

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/mdblock"
)

// FuzzSnapshotRefresh: refreshing the PreCompact snapshot section of session-context.md never
// panics, whatever the file holds and whatever the payload's session id, trigger, branch, task
// and file names are; the result has exactly one well-formed snapshot section (one begin line,
// then one end line), keeps every line outside the old section, is idempotent (a repeated
// PreCompact changes nothing), and Recorded reads back the compaction's identity.
func FuzzSnapshotRefresh(f *testing.F) {
	for _, s := range []struct{ file, sid, text string }{
		{"# Session context\n\n## Parked items\n\n- **a** — x.\n", "s1", "main"},
		{"<!-- cairn:session-snapshot begin event=x/y/1 at=bad -->\nold\n", "s/../x", "a\nb"},
		{"<!-- cairn:session-snapshot begin\n## Parked items\n<!-- cairn:session-snapshot begin\n", "a-->b", "<!--"},
		{"x\r\n<!-- cairn:session-snapshot end -->\r\n<!-- cairn:session-snapshot begin event=s/auto/5 -->\r\n", "s\x00", "\xff"},
		{"", "", ""},
	} {
		f.Add([]byte(s.file), s.sid, s.text)
	}
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, old []byte, sid, text string) {
		s := Snapshot{
			Event: sid + "/" + text + "/42", At: at, SessionID: sid, Trigger: text, Branch: text,
			Tasks: []string{text, sid}, Files: []string{text},
		}
		for _, exists := range []bool{true, false} {
			out := Refresh(old, exists, s)
			lines := mdblock.Lines(out)
			begins, ends := 0, 0
			bi, ei := -1, -1
			for i, l := range lines {
				if strings.HasPrefix(l, Markers.Begin) {
					begins, bi = begins+1, i
				}
				if strings.TrimSuffix(l, "\r") == Markers.End {
					ends, ei = ends+1, i
				}
			}
			// Lines outside the block are the old file's, which may hold stray end markers of its
			// own; the block's begin line is always the only begin line.
			if begins != 1 || ei < bi {
				t.Fatalf("exists=%v: %d begin lines (at %d), end at %d:\n%q", exists, begins, bi, ei, out)
			}
			blk := Markers.Split(out)
			if len(blk.Block) == 0 || blk.Block[len(blk.Block)-1] != Markers.End {
				t.Fatalf("exists=%v: the section does not end with its end line:\n%q", exists, out)
			}
			if exists {
				b, a := Markers.Split(old).Place()
				if !slices.Equal(blk.Before, b) || !slices.Equal(blk.After, a) {
					t.Fatalf("lines outside the section changed:\nold %q\nnew %q", old, out)
				}
			}
			if again := Refresh(out, true, s); !bytes.Equal(again, out) {
				t.Fatalf("exists=%v: a repeated refresh changed the file:\n%q\n%q", exists, out, again)
			}
			// The identity reads back as written when it is one plain word of UTF-8, as Claude
			// Code's session ids and triggers are (hookio turns a payload's invalid bytes into
			// U+FFFD, as the writer does; a control character or a space ends a word).
			if got := Event(out); len(sid+text) < 100 && sid != "" && plainWord(sid) && plainWord(text) && got != s.Event {
				t.Fatalf("Event = %q; want %q", got, s.Event)
			}
		}
	})
}

// plainWord reports whether s is valid UTF-8 made of graphic runes that are neither spaces nor
// the characters a comment marker is made of.
func plainWord(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || strings.ContainsRune("<>-", r) {
			return false
		}
	}
	return true
}
