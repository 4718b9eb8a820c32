package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/timeline"
)

func TestMemoryTails(t *testing.T) {
	root := t.TempDir()
	if m := Memory(root); len(m) != 0 {
		t.Fatalf("%+v", m)
	}
	os.MkdirAll(filepath.Join(root, "memory"), 0o755)
	var ctx strings.Builder
	for i := range 40 {
		ctx.WriteString(strings.Repeat("x", i) + "\n")
	}
	os.WriteFile(filepath.Join(root, ContextFile), []byte(ctx.String()), 0o644)
	os.WriteFile(filepath.Join(root, LearningsFile), []byte("{\"a\":1}\n{\"a\":2}\n"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, TimelineFile))
	m := Memory(root)
	if len(m) != 2 || m[0].Label != "last context" || len(m[0].Lines) != 30 || m[0].Lines[29] != strings.Repeat("x", 39) ||
		m[1].Label != "recent learnings" || len(m[1].Lines) != 2 {
		t.Fatalf("%+v", m)
	}

	// A huge file is read through its last window only, starting at a whole line.
	big := strings.Repeat(strings.Repeat("y", 99)+"\n", 5000) + "last\n"
	os.Remove(filepath.Join(root, TimelineFile))
	os.WriteFile(filepath.Join(root, TimelineFile), []byte(big), 0o644)
	m = Memory(root)
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
		os.WriteFile(filepath.Join(root, TimelineFile), []byte(done+rec[:cut]), 0o644)
		m := Memory(root)
		if len(m) != 1 || len(m[0].Lines) != 1 || m[0].Lines[0]+"\n" != done {
			t.Fatalf("cut at %d: %+v", cut, m)
		}
	}
	// A complete record without its newline, and prose a person appended, are shown.
	os.WriteFile(filepath.Join(root, TimelineFile), []byte(done+rec), 0o644)
	if m := Memory(root); len(m[0].Lines) != 2 || m[0].Lines[1] != rec {
		t.Fatalf("%+v", m)
	}
	os.WriteFile(filepath.Join(root, ContextFile), []byte("a note {without a newline"), 0o644)
	if m := Memory(root); m[0].Lines[0] != "a note {without a newline" {
		t.Fatalf("%+v", m)
	}
}

func TestTimeline(t *testing.T) {
	root := t.TempDir()
	ev := timeline.Event{Time: t0, Event: timeline.SessionStart, Session: "s1", Branch: "main", Source: "startup"}
	if err := timeline.Append(disk(root), root, ev); err != nil {
		t.Fatal(err)
	}
	if err := timeline.Append(disk(root), root, timeline.Event{Time: t0, Event: timeline.SessionEnd, Session: "s1", Reason: "other"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, TimelineFile))
	want := `{"ts":"2026-04-18T21:30:00Z","event":"session_start","session":"s1","branch":"main","source":"startup"}
{"ts":"2026-04-18T21:30:00Z","event":"session_end","session":"s1","reason":"other"}
`
	if string(data) != want {
		t.Fatalf("%s", data)
	}
}

func TestParsePorcelain(t *testing.T) {
	out := " M a.go\x00M  b.go\x00R  new.go\x00old.go\x00?? memory/projects/p/checkpoints/x.md\x00?? .claude/state/session.json\x00?? memory/timeline.jsonl.lock\x00?? dir/new file.txt\x00 D gone.go\x00MM a.go\x00"
	got := parsePorcelain([]byte(out), []string{"memory/projects/p/checkpoints/", ".claude/state/", TimelineFile})
	if want := "a.go|b.go|new.go|dir/new file.txt|gone.go"; strings.Join(got, "|") != want {
		t.Fatalf("%q", got)
	}
}

// IsName agrees with SplitName on every kind of name, valid dates and invalid ones.
func TestIsNameMatchesSplitName(t *testing.T) {
	for _, n := range []string{
		"20260418-143000-x.md", "20240229-000000-leap.md", "20230229-000000-noleap.md", "21000229-000000-c.md",
		"20000229-235959-y2k.md", "20261301-000000-m13.md", "20261200-000000-d0.md", "20260431-000000-apr31.md",
		"20260418-240000-h24.md", "20260418-236000-m60.md", "20260418-235960-s60.md", "20260418-143000-.md",
		"20260418-143000.md", "20260418_143000-x.md", "2026041a-143000-x.md", "20260418-143000-x.txt",
		"+2026418-143000-x.md", "20260418-1430000x.md", "x.md", "", "00000101-000000-zero.md",
	} {
		_, _, want := SplitName(n)
		if got := IsName(n); got != want {
			t.Errorf("IsName(%q) = %v, SplitName says %v", n, got, want)
		}
	}
}

func FuzzIsName(f *testing.F) {
	f.Add("20260418-143000-x.md")
	f.Fuzz(func(t *testing.T, n string) {
		if _, _, want := SplitName(n); IsName(n) != want {
			t.Fatalf("IsName(%q) != %v", n, want)
		}
	})
}
