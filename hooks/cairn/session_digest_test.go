package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

var digestNow = time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)

func digestDate(days int) string { return digestNow.AddDate(0, 0, -days).Format(parking.DateLayout) }

func TestDigestMarkdown(t *testing.T) {
	d := sessionDigest{
		Today:     digestNow,
		Completed: []string{"Write the parser", "Add\ntests"},
		Parked:    []parking.Item{{Name: "cache", Description: "Deferred: a cache", Raised: digestDate(20)}},
		Archived:  []parking.AuditEntry{{TS: "2026-03-10T08:00:00Z", Item: "old-idea", Action: "archived"}},
		Commits:   []string{"abc1234 parking: add the store"},
	}
	want := `## Session Summary — 2026-03-10

### Completed
- Write the parser
- Add tests

### Parked / Pending (1 item)
- [ ] ⚠ stale — cache — Deferred: a cache

### Archived this session
- old-idea — 2026-03-10T08:00:00Z

### Recent commits
- abc1234 parking: add the store
`
	if got := d.Markdown(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if digestLines(want) != 14 {
		t.Fatal(digestLines(want))
	}
	if got := (sessionDigest{Today: digestNow}).Markdown(); got != "## Session Summary — 2026-03-10\n\nNothing completed, parked, archived or committed this session.\n" {
		t.Fatal(got)
	}
	if got := d.Compact(".temp/x.md"); got != "Session summary — 2026-03-10: 2 completed, 1 parked, 1 archived, 1 commit\n→ .temp/x.md\n" {
		t.Fatal(got)
	}
}

// SaveDigest never overwrites: -2, -3 follow.
func TestSaveDigestCounter(t *testing.T) {
	root := t.TempDir()
	w := safefile.Disk{Roots: []string{root}}
	for i, want := range []string{"output-session-summary-2026-03-10.md", "output-session-summary-2026-03-10-2.md", "output-session-summary-2026-03-10-3.md"} {
		rel, err := saveDigest(w, root, digestNow, string(rune('a'+i)))
		if err != nil || rel != filepath.Join(".temp", want) {
			t.Fatalf("%s %v", rel, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".temp", "output-session-summary-2026-03-10.md")); string(b) != "a" {
		t.Fatalf("first digest overwritten: %q", b)
	}
}
