package catalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tasks"
)

func autoInput() AutoInput {
	instr := "keep the api_key=sk-ant-abcdefghijklmnopqrstuvwxyz0123 out of it"
	var st runstate.State
	for k, v := range map[string]string{"issue": "42", "phase": "review", "plan_open": "2 of 5", "gate_spec": "pass", "gate_quality": ""} {
		st.Set(k, v)
	}
	return AutoInput{
		SessionID: "sess-1", Trigger: "manual", Event: "sess-1/manual/12345", Instructions: &instr,
		Branch: "feat/x", Now: t0, Started: t0.Add(-90 * time.Minute),
		Run: &runstate.Run{ID: "fix-42"}, State: &st,
		Open:        []tasks.Task{{Subject: "write tests", Status: tasks.StatusInProgress}, {Subject: "docs", Status: tasks.StatusPending}},
		Completed:   []tasks.Task{{Subject: "parser", Status: tasks.StatusCompleted}},
		FilesEdited: []string{"pkg/a.go", "pkg/b.go"},
		Prompts:     []string{"now use token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "first prompt\nwith two lines"},
	}
}

func TestAutoContent(t *testing.T) {
	root := t.TempDir()
	saved, written, err := catalogOf(disk(root), root).Auto(autoInput())
	if err != nil || !written {
		t.Fatal(written, err)
	}
	path := saved.Path
	if filepath.Base(path) != "20260418-143000-before-manual-compaction.md" {
		t.Fatal(path)
	}
	data, _ := os.ReadFile(path)
	text := string(data)
	for _, want := range []string{
		"status: auto\nkind: auto\n", "branch: feat/x\n", "session_duration_s: 5400\n", "event: sess-1/manual/12345\n",
		"  - pkg/a.go\n", "## Working on: before-manual-compaction\n",
		"Automatic checkpoint taken by cairn before a manual compaction of session sess-1.",
		"Run fix-42 (issue 42): phase review; gates: spec pass · quality – · architecture – · security –.",
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
}

// Three repeated PreCompact calls for one compaction write one checkpoint, even with the clock
// moving between them; a new compaction identity is a new checkpoint.
func TestAutoOncePerEvent(t *testing.T) {
	root := t.TempDir()
	in := autoInput()
	firstSaved, written, err := catalogOf(disk(root), root).Auto(in)
	if err != nil || !written {
		t.Fatal(err)
	}
	first := firstSaved.Path
	before, _ := os.ReadFile(first)
	for i := 1; i <= 2; i++ {
		in.Now = t0.Add(time.Duration(i) * time.Second)
		p, written, err := catalogOf(disk(root), root).Auto(in)
		if err != nil || written || p.Path != first {
			t.Fatalf("repeat %d: %s %v %v", i, p.Path, written, err)
		}
	}
	if after, _ := os.ReadFile(first); !bytes.Equal(before, after) {
		t.Fatal("checkpoint rewritten")
	}
	if names, _ := checkpoint.Names(root); len(names) != 1 {
		t.Fatalf("%d checkpoints", len(names))
	}

	// The index lost: the event is found in the newest checkpoint's frontmatter.
	os.Remove(filepath.Join(root, IndexFile))
	if p, written, err := catalogOf(disk(root), root).Auto(in); err != nil || written || p.Path != first {
		t.Fatalf("after index loss: %s %v %v", p.Path, written, err)
	}

	in.Event = "sess-1/manual/99999"
	in.Now = t0.Add(time.Minute)
	p, written, err := catalogOf(disk(root), root).Auto(in)
	if err != nil || !written || p.Path == first {
		t.Fatalf("new compaction: %s %v %v", p.Path, written, err)
	}
	if names, _ := checkpoint.Names(root); len(names) != 2 {
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
			_, w, err := catalogOf(disk(root), root).Auto(in)
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
	names, _ := checkpoint.Names(root)
	if writes != 1 || len(names) != 1 {
		t.Fatalf("%d writes, %d files", writes, len(names))
	}
}

func TestAutoSameInputsSameBytes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pa, _, _ := catalogOf(disk(a), a).Auto(autoInput())
	pb, _, _ := catalogOf(disk(b), b).Auto(autoInput())
	da, _ := os.ReadFile(pa.Path)
	db, _ := os.ReadFile(pb.Path)
	if !bytes.Equal(da, db) {
		t.Fatal("same inputs gave different checkpoints")
	}
}

func TestAutoMinimal(t *testing.T) {
	root := t.TempDir()
	saved, written, err := catalogOf(disk(root), root).Auto(AutoInput{Now: t0, Event: "nosession/unknown/-1"})
	if err != nil || !written {
		t.Fatal(err)
	}
	p := saved.Path
	data, _ := os.ReadFile(p)
	fm, body := checkpoint.SplitLoose(data)
	c := checkpoint.ReadFrontmatter(fm)
	_, s := checkpoint.ParseBody(body)
	if title, _, _ := checkpoint.SplitName(filepath.Base(p)); title != "before-unknown-compaction" || c.Kind != checkpoint.KindAuto || c.Event != "nosession/unknown/-1" || c.HasDuration || s.Remaining != "No open tasks recorded." {
		t.Fatalf("%s %+v %+v", p, c, s)
	}
	if ev, ok := eventOf(root, p); !ok || ev != "nosession/unknown/-1" {
		t.Fatalf("eventOf: %q %v", ev, ok)
	}
}

func TestAutoDryRunWritesNothing(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	saved, written, err := catalogOf(safefile.DryRun{Out: &out, Roots: []string{root}}, root).Auto(autoInput())
	if err != nil || !written || saved.Path == "" {
		t.Fatal(saved, written, err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("dry run wrote %v", ents)
	}
	if !strings.Contains(out.String(), "create "+saved.Path) {
		t.Fatalf("%s", out.String())
	}
}

// The automatic checkpoint's title and first sentence name the compaction's trigger, with the
// article English wants: "before an auto compaction", "before a manual compaction".
func TestAutoTitleAndGrammar(t *testing.T) {
	for trigger, want := range map[string]string{"auto": "before an auto compaction", "manual": "before a manual compaction"} {
		root := t.TempDir()
		in := autoInput()
		in.Trigger, in.Event = trigger, "s/"+trigger+"/1"
		saved, _, err := catalogOf(disk(root), root).Auto(in)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(saved.Path)
		if title, _, _ := checkpoint.SplitName(filepath.Base(saved.Path)); title != "before-"+trigger+"-compaction" || !strings.Contains(string(data), want) {
			t.Errorf("%s: %s\n%s", trigger, saved.Path, data)
		}
	}
}

// A catalog that lost an event (a PreCompact killed between its checkpoint and the catalog):
// the repeat finds the checkpoint by its event however many automatic checkpoints were taken in
// the same second, whose names sort by a random suffix; the crash suite once met two for one
// compaction when the one to find sorted past the eighth.
func TestAutoFindsLostEventInABusySecond(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 12, 2, 1, 45, 0, 0, time.UTC)
	var events []string
	for i := range 20 {
		ev := fmt.Sprintf("s/auto/%d", 1000+i)
		events = append(events, ev)
		if _, written, err := catalogOf(disk(root), root).Auto(AutoInput{SessionID: "s", Trigger: "auto", Event: ev, Branch: "main", Now: t0}); err != nil || !written {
			t.Fatalf("checkpoint %d: %v %v", i, written, err)
		}
	}
	names, _ := checkpoint.Names(root)
	if len(names) != 20 {
		t.Fatalf("%d checkpoints", len(names))
	}
	// The event of the name the newest-first scan reaches last.
	lastEvent, _ := eventOf(root, filepath.Join(checkpoint.Dir(root), names[len(names)-1]))
	if err := os.Remove(filepath.Join(root, filepath.FromSlash(IndexFile))); err != nil {
		t.Fatal(err)
	}
	if _, written, err := catalogOf(disk(root), root).Auto(AutoInput{SessionID: "s", Trigger: "auto", Event: lastEvent, Branch: "main", Now: t0.Add(time.Second)}); err != nil || written {
		t.Fatalf("the repeat of %s: written %v, %v (a second checkpoint for one compaction)", lastEvent, written, err)
	}
	if n, _ := checkpoint.Names(root); len(n) != 20 {
		t.Errorf("%d checkpoints after the repeat, want 20", len(n))
	}
}
