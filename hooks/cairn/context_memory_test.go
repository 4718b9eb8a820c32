package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMemoryTails(t *testing.T) {
	root := t.TempDir()
	if m := memoryTails(root); len(m) != 0 {
		t.Fatalf("%+v", m)
	}
	os.MkdirAll(filepath.Join(root, "memory"), 0o755)
	var ctx strings.Builder
	for i := range 40 {
		ctx.WriteString(strings.Repeat("x", i) + "\n")
	}
	os.WriteFile(filepath.Join(root, memoryContextFile), []byte(ctx.String()), 0o644)
	os.WriteFile(filepath.Join(root, memoryLearningsFile), []byte("{\"a\":1}\n{\"a\":2}\n"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, memoryTimelineFile))
	m := memoryTails(root)
	if len(m) != 2 || m[0].Label != "last context" || len(m[0].Lines) != 30 || m[0].Lines[29] != strings.Repeat("x", 39) ||
		m[1].Label != "recent learnings" || len(m[1].Lines) != 2 {
		t.Fatalf("%+v", m)
	}

	// A huge file is read through its last window only, starting at a whole line.
	big := strings.Repeat(strings.Repeat("y", 99)+"\n", 5000) + "last\n"
	os.Remove(filepath.Join(root, memoryTimelineFile))
	os.WriteFile(filepath.Join(root, memoryTimelineFile), []byte(big), 0o644)
	m = memoryTails(root)
	if tl := m[2].Lines; len(tl) != 5 || tl[4] != "last" || tl[0] != strings.Repeat("y", 99) {
		t.Fatalf("%q", tl)
	}
}

// A writer killed mid-append leaves the timeline ending in a torn record until the next append:
// restore's tail shows the finished records only, whichever byte the record was cut at.
func TestMemoryTailsSkipATornRecord(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "memory"), 0o755)
	done := `{"ts":"2026-04-18T21:30:00Z","event":"session_start","session":"s1"}` + "\n"
	rec := `{"ts":"2026-04-18T21:31:00Z","event":"session_end","session":"s1","reason":"clear"}`
	for cut := 1; cut < len(rec); cut++ {
		os.WriteFile(filepath.Join(root, memoryTimelineFile), []byte(done+rec[:cut]), 0o644)
		m := memoryTails(root)
		if len(m) != 1 || len(m[0].Lines) != 1 || m[0].Lines[0]+"\n" != done {
			t.Fatalf("cut at %d: %+v", cut, m)
		}
	}
	// A complete record without its newline, and prose a person appended, are shown.
	os.WriteFile(filepath.Join(root, memoryTimelineFile), []byte(done+rec), 0o644)
	if m := memoryTails(root); len(m[0].Lines) != 2 || m[0].Lines[1] != rec {
		t.Fatalf("%+v", m)
	}
	os.WriteFile(filepath.Join(root, memoryContextFile), []byte("a note {without a newline"), 0o644)
	if m := memoryTails(root); m[0].Lines[0] != "a note {without a newline" {
		t.Fatalf("%+v", m)
	}
}
