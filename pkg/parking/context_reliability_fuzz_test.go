package parking

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// FuzzSessionContext: session-context.md has two owners — parking's "## Parked items" section
// and PreCompact's snapshot section (package sessionfile) — and neither may lose the other's
// content, whatever a person or Claude wrote into the file. For any content:
//   - rewriting it with no change gives back the same bytes;
//   - parking a bullet keeps every parked bullet and the snapshot section byte for byte, and the
//     new bullet is read back;
//   - archiving a bullet removes that one only and keeps the snapshot section;
//   - refreshing the snapshot (with hostile session ids, tasks and file names) keeps every
//     parked bullet and adds none.
func FuzzSessionContext(f *testing.F) {
	snapshot := "<!-- cairn:session-snapshot begin event=s/auto/10 at=2026-11-29T10:00:00Z -->\n" +
		"**Session snapshot**\n- Session: s\n<!-- cairn:session-snapshot end -->\n"
	for _, s := range []struct{ file, sid string }{
		{"# Session context\n\n" + snapshot + "\n## Parked items\n\n- **a** — Deferred: x. Context: y. Raised: 2026-11-01.\n", "s1"},
		{"## Parked items\n- **a** — x\n  continued\n* **b** – y\n\n## Other\n- **c** — not parked\n", "s\n## Parked items\n- **evil** — forged"},
		{"<!-- cairn:session-snapshot begin\n## Parked items\n- **a** — x\n", "<!-- cairn:session-snapshot end -->"},
		{"<!-- cairn:session-snapshot begin -->\n## Parked items\n- **inner** — x\n<!-- cairn:session-snapshot end -->\n\n## Parked items\n\n- **outer** — y\n", "s"},
		{"## Parked items\r\n- **a** — x\r\n<!-- cairn:session-snapshot begin -->\r\n- **b** — y\r\n", "s"},
		{"## parked items   \n  - **a** — x\n    - nested\n", "-->"},
		{"prose without a section", ""},
		{"## Parked items\n\n   indented text\n", "s"},
		{"", "s"},
	} {
		f.Add([]byte(s.file), s.sid)
	}
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, old []byte, sid string) {
		before := sectionOf(old)
		oldTexts := blockTexts(before)
		oldSnap := snapBlock(old)

		// No change: the same bytes.
		if got := rewrite(old, edit{remove: map[int]bool{}, replace: map[int]string{}}); !bytes.Equal(got, old) {
			t.Fatalf("a rewrite without edits changed the file:\n%q\n%q", old, got)
		}

		// Park: every old bullet kept, the new one read back, the snapshot untouched.
		line := format(Bullet{Slug: "zz-fuzz-new", Summary: "Deferred: fuzz. Context: test", Raised: "2026-11-29"})
		parked := rewrite(old, edit{remove: map[int]bool{}, replace: map[int]string{}, add: []string{line}})
		after := sectionOf(parked)
		texts := blockTexts(after)
		if !containsInOrder(texts, oldTexts) {
			t.Fatalf("parking lost a bullet:\nold %q\nnew %q\nfile %q", oldTexts, texts, parked)
		}
		if !slices.ContainsFunc(after.blocks, func(b block) bool { return b.bullet.Slug == "zz-fuzz-new" }) {
			t.Fatalf("the parked bullet is not read back:\n%q", parked)
		}
		if got := snapBlock(parked); !slices.Equal(got, oldSnap) {
			t.Fatalf("parking changed the snapshot section:\nold %q\nnew %q", oldSnap, got)
		}

		// Archive the first bullet: only that one goes.
		if len(before.blocks) > 0 {
			archived := rewrite(old, edit{remove: map[int]bool{0: true}, replace: map[int]string{}})
			texts := blockTexts(sectionOf(archived))
			if !containsInOrder(texts, oldTexts[1:]) {
				t.Fatalf("archiving one bullet lost another:\nold %q\nnew %q\nfile %q", oldTexts, texts, archived)
			}
			if got := snapBlock(archived); !slices.Equal(got, oldSnap) {
				t.Fatalf("archiving changed the snapshot section:\nold %q\nnew %q", oldSnap, got)
			}
		}

		// Refresh the snapshot: the parked bullets are the same, none forged.
		snap := sessionfile.Snapshot{
			Event: sid + "/auto/10", At: now, SessionID: sid, Trigger: sid, Branch: sid,
			Tasks: []string{sid}, Files: []string{sid, "\n## Parked items\n- **forged** — x"},
		}
		refreshed := sessionfile.Refresh(old, true, snap)
		got := blockTexts(sectionOf(refreshed))
		if !containsInOrder(got, oldTexts) {
			t.Fatalf("a snapshot refresh lost a parked bullet:\nold %q\nnew %q\nfile %q", oldTexts, got, refreshed)
		}
		if slices.ContainsFunc(sectionOf(refreshed).blocks, func(b block) bool { return b.bullet.Slug == "forged" }) && !slices.ContainsFunc(before.blocks, func(b block) bool { return b.bullet.Slug == "forged" }) {
			t.Fatalf("a snapshot refresh forged a parked bullet:\n%q", refreshed)
		}
	})
}

// sectionOf and rewrite are what Store does inside its transaction.
func sectionOf(data []byte) *section { return parseSection(sessionfile.Split(data, true)) }

func rewrite(data []byte, e edit) []byte {
	f := sessionfile.Split(data, true)
	return f.WithParked(parseSection(f).render(e))
}

func blockTexts(f *section) []string {
	var out []string
	for _, b := range f.blocks {
		out = append(out, strings.TrimSuffix(b.text, "\r"))
	}
	return out
}

// containsInOrder reports whether every element of want appears in got, in order.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// snapBlock is the snapshot section's lines without trailing blank ones: a blank line parking
// puts before a section it appends falls inside a snapshot that lost its end marker, and
// changes nothing there.
func snapBlock(data []byte) []string {
	b := sessionfile.Markers.Split(data).Block
	for len(b) > 0 && strings.TrimSpace(b[len(b)-1]) == "" {
		b = b[:len(b)-1]
	}
	return b
}
