package checkpoint

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tasks"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

func autoInput() AutoInput {
	instr := "keep the api_key=sk-ant-abcdefghijklmnopqrstuvwxyz0123 out of it"
	return AutoInput{
		SessionID: "sess-1", Trigger: "manual", TranscriptSize: 12345, Instructions: &instr,
		Branch: "feat/x", Now: t0, Started: t0.Add(-90 * time.Minute),
		Run: &Run{ID: "fix-42", Issue: "42", Phase: "review", PlanOpen: "2 of 5",
			Gates: []Gate{{"spec", "pass"}, {"quality", ""}}},
		Open:        []tasks.Task{{Subject: "write tests", Status: tasks.StatusInProgress}, {Subject: "docs", Status: tasks.StatusPending}},
		Completed:   []tasks.Task{{Subject: "parser", Status: tasks.StatusCompleted}},
		FilesEdited: []string{"pkg/a.go", "pkg/b.go"},
		Prompts:     []string{"now use token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "first prompt\nwith two lines"},
	}
}

func TestAutoContent(t *testing.T) {
	root := t.TempDir()
	path, written, err := Auto(disk(root), root, autoInput())
	if err != nil || !written {
		t.Fatal(written, err)
	}
	if filepath.Base(path) != "20260418-143000-auto-manual.md" {
		t.Fatal(path)
	}
	data, _ := os.ReadFile(path)
	text := string(data)
	for _, want := range []string{
		"status: auto\n", "branch: feat/x\n", "session_duration_s: 5400\n", "event: sess-1/manual/12345\n",
		"  - pkg/a.go\n", "## Working on: auto-manual\n",
		"Automatic checkpoint taken by cairn before a manual compaction of session sess-1.",
		"Run fix-42 (issue 42): phase review; gates: spec pass · quality –.",
		"Completed tasks:\n- parser",
		"1. [in progress] write tests\n2. docs\n- Open plan items: 2 of 5",
		"Compaction instructions: keep the api_key=[REDACTED] out of it",
		"- now use token [REDACTED]\n- first prompt with two lines",
		"2 files edited since the last compaction",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "sk-ant-") || strings.Contains(text, "ghp_") {
		t.Errorf("secret copied:\n%s", text)
	}
	tl, _ := os.ReadFile(filepath.Join(root, TimelineFile))
	if want := `{"ts":"2026-04-18T21:30:00Z","event":"compaction","session":"sess-1","branch":"feat/x","trigger":"manual","checkpoint":"memory/projects/` + filepath.Base(root) + `/checkpoints/20260418-143000-auto-manual.md"}` + "\n"; string(tl) != want {
		t.Errorf("timeline %s", tl)
	}
}

// Three repeated PreCompact calls for one compaction write one checkpoint and one timeline line,
// even with the clock moving between them; a new transcript length is a new compaction.
func TestAutoOncePerEvent(t *testing.T) {
	root := t.TempDir()
	in := autoInput()
	first, written, err := Auto(disk(root), root, in)
	if err != nil || !written {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(first)
	for i := 1; i <= 2; i++ {
		in.Now = t0.Add(time.Duration(i) * time.Second)
		p, written, err := Auto(disk(root), root, in)
		if err != nil || written || p != first {
			t.Fatalf("repeat %d: %s %v %v", i, p, written, err)
		}
	}
	if after, _ := os.ReadFile(first); !bytes.Equal(before, after) {
		t.Fatal("checkpoint rewritten")
	}
	names, _ := Names(root)
	tl, _ := os.ReadFile(filepath.Join(root, TimelineFile))
	if len(names) != 1 || bytes.Count(tl, []byte("\n")) != 1 {
		t.Fatalf("%d checkpoints, timeline %s", len(names), tl)
	}

	// The index lost: the event is found in the newest checkpoint's frontmatter.
	os.Remove(filepath.Join(root, IndexFile))
	if p, written, err := Auto(disk(root), root, in); err != nil || written || p != first {
		t.Fatalf("after index loss: %s %v %v", p, written, err)
	}

	in.TranscriptSize = 99999
	in.Now = t0.Add(time.Minute)
	p, written, err := Auto(disk(root), root, in)
	if err != nil || !written || p == first {
		t.Fatalf("new compaction: %s %v %v", p, written, err)
	}
	if names, _ := Names(root); len(names) != 2 {
		t.Fatal(names)
	}
}

// Claude Code may run the repeated PreCompact hooks in parallel: still one checkpoint.
func TestAutoConcurrent(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	writes := 0
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := autoInput()
			in.Now = t0.Add(time.Duration(i) * time.Second)
			_, w, err := Auto(disk(root), root, in)
			if err != nil {
				t.Error(err)
			}
			if w {
				mu.Lock()
				writes++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	names, _ := Names(root)
	if writes != 1 || len(names) != 1 {
		t.Fatalf("%d writes, %d files", writes, len(names))
	}
}

func TestAutoSameInputsSameBytes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pa, _, _ := Auto(disk(a), a, autoInput())
	pb, _, _ := Auto(disk(b), b, autoInput())
	da, _ := os.ReadFile(pa)
	db, _ := os.ReadFile(pb)
	if !bytes.Equal(da, db) {
		t.Fatal("same inputs gave different checkpoints")
	}
}

func TestAutoMinimal(t *testing.T) {
	root := t.TempDir()
	p, written, err := Auto(disk(root), root, AutoInput{Now: t0, TranscriptSize: -1})
	if err != nil || !written {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	fm, body := SplitLoose(data)
	c := ReadFrontmatter(fm)
	_, s := ParseBody(body)
	if title, _, _ := SplitName(filepath.Base(p)); title != "auto-unknown" || c.Event != "nosession/unknown/-1" || c.HasDuration || s.Remaining != "No open tasks recorded." {
		t.Fatalf("%s %+v %+v", p, c, s)
	}
	if ev, ok := eventOf(p); !ok || ev != "nosession/unknown/-1" {
		t.Fatalf("eventOf: %q %v", ev, ok)
	}
}

func TestAutoDryRunWritesNothing(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	p, written, err := Auto(safefile.DryRun{Out: &out, Roots: []string{root}}, root, autoInput())
	if err != nil || !written || p == "" {
		t.Fatal(p, written, err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("dry run wrote %v", ents)
	}
	if !strings.Contains(out.String(), "create "+p) || !strings.Contains(out.String(), "append "+filepath.Join(root, TimelineFile)) {
		t.Fatalf("%s", out.String())
	}
}

func TestModifiedFiles(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command(git, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(root, "tracked.go"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(root, "staged.go"), []byte("a"), 0o644)
	run("add", ".")
	run("commit", "-q", "-m", "init")
	os.WriteFile(filepath.Join(root, "tracked.go"), []byte("b"), 0o644)
	os.WriteFile(filepath.Join(root, "staged.go"), []byte("b"), 0o644)
	run("add", "staged.go")
	os.MkdirAll(filepath.Join(root, "new dir"), 0o755)
	os.WriteFile(filepath.Join(root, "new dir", "x.txt"), []byte("x"), 0o644)
	if _, err := Save(disk(root), root, Entry{Title: "t", Time: t0}); err != nil {
		t.Fatal(err)
	}
	timeline.Append(disk(root), root, timeline.Event{Time: t0, Event: timeline.SessionStart})
	files, err := ModifiedFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files, "|"); got != "staged.go|tracked.go|new dir/x.txt" {
		t.Fatalf("%q", files)
	}
	if files, err := ModifiedFiles(context.Background(), t.TempDir()); files != nil || err != nil {
		t.Fatalf("outside git: %v %v", files, err)
	}
}
