package handoff

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

type world struct {
	t          *testing.T
	root, conf string
	tr         string
	now        time.Time
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, root: t.TempDir(), conf: t.TempDir(), now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	w.tr = filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(w.tr, nil, 0o600)
	return w
}

func (w *world) env() *project.Project {
	return &project.Project{
		Files: safefile.Disk{Roots: []string{w.root}}, Root: w.root, Config: w.conf,
		Now:  func() time.Time { return w.now },
		Warn: func(f string, a ...any) { w.t.Errorf("warning: "+f, a...) },
	}
}

func (w *world) end() (checkpoint.Saved, bool) {
	w.t.Helper()
	w.now = w.now.Add(time.Minute)
	s, written, err := Write(w.env(), stores.Open(w.env()), Input{SessionID: "s1", Transcript: transcript.Open(w.tr), Reason: "other"})
	if err != nil {
		w.t.Fatal(err)
	}
	return s, written
}

func (w *world) say(lines ...string) {
	f, _ := os.OpenFile(w.tr, os.O_APPEND|os.O_WRONLY, 0o600)
	defer f.Close()
	for _, l := range lines {
		fmt.Fprintln(f, l)
	}
}

func edit(path string) string {
	return `{"type":"assistant","message":{"id":"m-` + path + `","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"` + path + `","old_string":"a","new_string":"b"}}]}}`
}

func prompt(text string) string {
	return `{"type":"user","message":{"role":"user","content":"` + text + `"}}`
}

func (w *world) task(id, subject, status string) {
	dir := filepath.Join(w.conf, "tasks", "s1")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, id+".json"), []byte(`{"id":"`+id+`","subject":"`+subject+`","status":"`+status+`"}`), 0o600)
}

func handoffs(t *testing.T, root string) []string {
	names, _ := checkpoint.Names(root)
	var out []string
	for _, n := range names {
		if strings.Contains(n, "handoff") {
			out = append(out, n)
		}
	}
	return out
}

// A session that only talked leaves nothing; one that edits leaves one hand-off, replaced when
// it does more, and left alone when it does nothing more.
func TestWriteOnlyAfterWork(t *testing.T) {
	w := newWorld(t)
	w.say(prompt("what does this code do?"))
	if _, written := w.end(); written {
		t.Fatal("a session that did no work left a hand-off")
	}
	w.say(prompt("fix it"), edit(filepath.Join(w.root, "a.go")))
	first, written := w.end()
	if !written {
		t.Fatal("an edit left no hand-off")
	}
	data, _ := os.ReadFile(first.Path)
	if !strings.Contains(string(data), "  - a.go\n") || !strings.Contains(string(data), "It was working on: fix it") {
		t.Fatalf("%s", data)
	}
	if _, written := w.end(); written {
		t.Fatal("ending again with nothing new left another hand-off")
	}
	w.say(prompt("and b"), edit(filepath.Join(w.root, "b.go")))
	second, written := w.end()
	if !written {
		t.Fatal("new work left no new hand-off")
	}
	if got := handoffs(t, w.root); len(got) != 1 || got[0] != filepath.Base(second.Path) {
		t.Fatalf("hand-offs: %v", got)
	}
	data, _ = os.ReadFile(second.Path)
	if !strings.Contains(string(data), "  - b.go\n") {
		t.Fatalf("%s", data)
	}
}

// Task changes count as work: a task list appearing, a status changing; the same list again
// does not.
func TestWriteOnTaskChange(t *testing.T) {
	w := newWorld(t)
	w.task("1", "write tests", "pending")
	if _, written := w.end(); !written {
		t.Fatal("a new task list left no hand-off")
	}
	if _, written := w.end(); written {
		t.Fatal("the same task list left another hand-off")
	}
	w.task("1", "write tests", "in_progress")
	s, written := w.end()
	if !written {
		t.Fatal("a status change left no hand-off")
	}
	data, _ := os.ReadFile(s.Path)
	if !strings.Contains(string(data), "1. [in progress] write tests (task 1)") || !strings.Contains(string(data), "It was working on: write tests") {
		t.Fatalf("%s", data)
	}
}

// A compaction counts as work, and its summary and files go into the hand-off.
func TestWriteAfterCompaction(t *testing.T) {
	w := newWorld(t)
	w.say(prompt("x"))
	fi, _ := os.Stat(w.tr)
	saved, _, err := stores.Open(w.env()).Catalog.Auto(catalog.AutoInput{
		SessionID: "s1", Trigger: "auto", Event: fmt.Sprintf("s1/auto/%d", fi.Size()), Now: w.now,
		FilesEdited: []string{"before.go"},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := stores.Open(w.env()).Catalog.Latest(checkpoint.KindAuto, "s1", "")
	if _, err := catalog.AttachSummary(w.env().Files, w.root, c, "THE-SUMMARY"); err != nil {
		t.Fatal(err)
	}
	s, written := w.end()
	if !written {
		t.Fatal("a compaction left no hand-off")
	}
	data, _ := os.ReadFile(s.Path)
	for _, want := range []string{"  - before.go\n", "Claude Code's own summary at the session's last compaction (" + saved.Rel + "; secrets redacted):\n\nTHE-SUMMARY\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("missing %q in\n%s", want, data)
		}
	}
	if _, written := w.end(); written {
		t.Fatal("the same compaction left a second hand-off")
	}
}

// A compaction in the same second as the session's last hand-off is still after it: the
// catalog's times are whole seconds, and on a fast machine a turn, its hand-off and a /compact
// fit in one. The order of the catalog decides, not the clock.
func TestWriteAfterCompactionInTheSameSecond(t *testing.T) {
	w := newWorld(t)
	w.say(prompt("fix it"), edit(filepath.Join(w.root, "a.go")))
	if _, written := w.end(); !written {
		t.Fatal("an edit left no hand-off")
	}
	w.say(prompt("does it compile?"))
	fi, _ := os.Stat(w.tr)
	if _, _, err := stores.Open(w.env()).Catalog.Auto(catalog.AutoInput{
		SessionID: "s1", Trigger: "manual", Event: fmt.Sprintf("s1/manual/%d", fi.Size()), Now: w.now,
	}); err != nil {
		t.Fatal(err)
	}
	s, written := w.end()
	if !written {
		t.Fatal("a compaction in the hand-off's second left no new hand-off")
	}
	data, _ := os.ReadFile(s.Path)
	if !strings.Contains(string(data), "- does it compile?") {
		t.Errorf("the new hand-off lacks the last request:\n%s", data)
	}
	if _, written := w.end(); written {
		t.Fatal("the same compaction left a second hand-off")
	}
}

// Edits before the last checkpoint's transcript length are not new work.
func TestWriteSinceLastCheckpoint(t *testing.T) {
	w := newWorld(t)
	w.say(edit(filepath.Join(w.root, "old.go")))
	fi, _ := os.Stat(w.tr)
	if _, _, err := stores.Open(w.env()).Catalog.Auto(catalog.AutoInput{
		SessionID: "s1", Trigger: "auto", Event: fmt.Sprintf("s1/auto/%d", fi.Size()), Now: w.now,
	}); err != nil {
		t.Fatal(err)
	}
	if _, written := w.end(); !written {
		t.Fatal("the compaction is work")
	}
	w.say(prompt("only a question"))
	if _, written := w.end(); written {
		t.Fatal("nothing new since the hand-off")
	}
}

// With a run active, the hand-off names it and its phase, and sends the reader to the run's
// whiteboard for the decisions.
func TestWriteNamesTheRun(t *testing.T) {
	w := newWorld(t)
	dir := filepath.Join(w.root, ".agents", "runs", "fix-42")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "state.json"), []byte("{\n  \"run_id\": \"fix-42\",\n  \"phase\": \"review\"\n}\n"), 0o644)
	os.WriteFile(filepath.Join(w.root, ".agents", "runs", "active"), []byte("fix-42\n"), 0o644)
	w.say(prompt("fix the lexer"), edit(filepath.Join(w.root, "lexer.go")))
	s, written := w.end()
	if !written {
		t.Fatal("no hand-off")
	}
	data, _ := os.ReadFile(s.Path)
	for _, want := range []string{"Run fix-42: phase review.", "See the run's MEMORY.md, ## Decisions.", "  - lexer.go\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the hand-off lacks %q:\n%s", want, data)
		}
	}
}

// The hand-off carries the whole session since the boundary: a second hand-off lists the files
// of the first too, the commands with their exit status and the last error, Claude's open
// question, and the TodoWrite list when there are no task files.
func TestWriteCarriesTheSession(t *testing.T) {
	w := newWorld(t)
	w.say(prompt("fix it"), edit(filepath.Join(w.root, "a.go")))
	if _, written := w.end(); !written {
		t.Fatal("an edit left no hand-off")
	}
	w.say(prompt("and b"), edit(filepath.Join(w.root, "b.go")),
		`{"type":"assistant","message":{"id":"m-bash","role":"assistant","content":[{"type":"tool_use","id":"tb","name":"Bash","input":{"command":"go test ./..."}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tb","is_error":true,"content":"Exit code 1\n--- FAIL: TestB (0.00s)\n    b_test.go:9: want 2"}]}}`,
		`{"type":"assistant","message":{"id":"m-todo","role":"assistant","content":[{"type":"tool_use","id":"tt","name":"TodoWrite","input":{"todos":[{"content":"Fix TestB","status":"in_progress","activeForm":"Fixing"}]}}]}}`,
		`{"type":"assistant","message":{"id":"m-end","role":"assistant","content":[{"type":"text","text":"TestB still fails. Should I change the expected value?"}]}}`,
	)
	s, written := w.end()
	if !written {
		t.Fatal("new work left no hand-off")
	}
	data, _ := os.ReadFile(s.Path)
	for _, want := range []string{"  - b.go\n  - a.go\n", "- command: exit 1: go test ./...", "- error: --- FAIL: TestB (0.00s) — b_test.go:9: want 2",
		"- asked: Should I change the expected value?", "1. [in progress] Fix TestB"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the hand-off lacks %q:\n%s", want, data)
		}
	}
}

// A hand-off records where the lines of the prompts it quotes start (catalog.Entry.PromptsAt),
// and the next one reads the prompts from before that hand-off there, not by reading back over
// all that came after them: it quotes the prompts a reading from the end gives, and it does read
// them where the catalog says (pointed at another prompt line, it quotes that one).
func TestWriteReadsEarlierPromptsWhereRecorded(t *testing.T) {
	w := newWorld(t)
	filler := `{"type":"assistant","message":{"id":"m-f","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("working ", 4000) + `"}]}}`
	w.say(prompt("first request"), edit(filepath.Join(w.root, "a.go")))
	for range 20 {
		w.say(filler)
	}
	w.say(prompt("second request"), prompt("third request"), edit(filepath.Join(w.root, "b.go")))
	if _, written := w.end(); !written {
		t.Fatal("no first hand-off")
	}
	data, _ := os.ReadFile(w.tr)
	at := func(text string) int64 { return int64(bytes.Index(data, []byte(prompt(text)))) }
	entry := func() catalog.Entry {
		t.Helper()
		e, ok := stores.Open(w.env()).Catalog.Latest(checkpoint.KindHandoff, "s1", "")
		if !ok {
			t.Fatal("no hand-off in the catalog")
		}
		return e
	}
	if got, want := entry().PromptsAt, []int64{at("third request"), at("second request"), at("first request")}; !slices.Equal(got, want) {
		t.Fatalf("the hand-off recorded its prompts at %v, want %v", got, want)
	}
	w.say(prompt("fourth request"), edit(filepath.Join(w.root, "c.go")))
	s, written := w.end()
	if !written {
		t.Fatal("no second hand-off")
	}
	body, _ := os.ReadFile(s.Path)
	if !strings.Contains(string(body), "- fourth request\n- third request\n- second request\n") {
		t.Fatalf("the second hand-off quotes:\n%s", body)
	}
	data, _ = os.ReadFile(w.tr)
	if got, want := entry().PromptsAt, []int64{at("fourth request"), at("third request"), at("second request")}; !slices.Equal(got, want) {
		t.Fatalf("the second hand-off recorded %v, want %v", got, want)
	}

	// Point the catalog's record at the first request in place of the second: the next hand-off
	// reads there.
	idx := filepath.Join(w.root, catalog.IndexFile)
	cat, _ := os.ReadFile(idx)
	planted := strings.Replace(string(cat), fmt.Sprint(at("second request"))+"]", fmt.Sprint(at("first request"))+"]", 1)
	if planted == string(cat) {
		t.Fatalf("no offset to replace in %s", cat)
	}
	os.WriteFile(idx, []byte(planted), 0o600)
	w.say(edit(filepath.Join(w.root, "d.go")))
	s, _ = w.end()
	body, _ = os.ReadFile(s.Path)
	if !strings.Contains(string(body), "- fourth request\n- third request\n- first request\n") {
		t.Fatalf("the hand-off did not read the prompts where the catalog said:\n%s", body)
	}
}
