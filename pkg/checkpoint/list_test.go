package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// seed writes checkpoints at t0+i minutes on the given branches and returns their paths.
func seedCheckpoints(t *testing.T, root string, specs ...[2]string) []string {
	t.Helper()
	var paths []string
	for i, s := range specs {
		saved, err := Save(disk(root), root, Entry{Title: s[0], Branch: s[1], Time: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, saved.Path)
	}
	return paths
}

func TestListNewestFirstByNameNotMtime(t *testing.T) {
	root := t.TempDir()
	paths := seedCheckpoints(t, root, [2]string{"one", "main"}, [2]string{"two", "feat"}, [2]string{"three", "main"})
	// Make the oldest the most recently modified: the order must not change.
	future := time.Now().Add(time.Hour)
	os.Chtimes(paths[0], future, future)
	os.WriteFile(filepath.Join(Dir(root), "README.md"), []byte("not a checkpoint"), 0o644)
	os.Mkdir(filepath.Join(Dir(root), "20260101-000000-dir.md"), 0o755)

	all, err := List(root, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range all {
		got = append(got, l.Title+"@"+l.Branch+"#"+string(rune('0'+l.N)))
	}
	if want := "three@main#1 two@feat#2 one@main#3"; strings.Join(got, " ") != want {
		t.Fatalf("got %v; want %s", got, want)
	}
	main, _ := List(root, "main")
	if len(main) != 2 || main[0].N != 1 || main[1].N != 3 || main[1].Title != "one" {
		t.Fatalf("branch list %+v", main)
	}
	if p, ok := Newest(root); !ok || p != paths[2] {
		t.Fatalf("Newest = %s %v", p, ok)
	}
	if _, ok := Newest(t.TempDir()); ok {
		t.Fatal("Newest in an empty project")
	}
}

func TestSelect(t *testing.T) {
	root := t.TempDir()
	if _, err := Select(root, ""); !errors.Is(err, ErrNone) {
		t.Fatalf("empty: %v", err)
	}
	seedCheckpoints(t, root,
		[2]string{"auth refactor", "feat/auth"},
		[2]string{"api pagination", "main"},
		[2]string{"auth tests", "main"},
	)
	for _, tc := range []struct {
		which   string
		title   string
		n       int
		matches int
	}{
		{"", "auth-tests", 1, 1},
		{"1", "auth-tests", 1, 1},
		{"3", "auth-refactor", 3, 1},
		{"Auth", "auth-tests", 1, 2},
		{"auth refactor", "auth-refactor", 3, 1},
		{"PAGINATION", "api-pagination", 2, 1},
		{"20260418-1431", "api-pagination", 2, 1},
		{" 2 ", "api-pagination", 2, 1},
	} {
		s, err := Select(root, tc.which)
		if err != nil {
			t.Errorf("%q: %v", tc.which, err)
			continue
		}
		if s.Title != tc.title || s.N != tc.n || s.Matches != tc.matches {
			t.Errorf("%q: got %s #%d (%d matches); want %s #%d (%d)", tc.which, s.Title, s.N, s.Matches, tc.title, tc.n, tc.matches)
		}
	}
	for _, which := range []string{"4", "0", "-1", "nothing-like-it", "日本", "../"} {
		if s, err := Select(root, which); err == nil {
			t.Errorf("%q selected %s", which, s.Name)
		}
	}
}

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
