package compaction

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/project/projecttest"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// fakeTranscript answers the policy's questions from fixed boundary offsets.
type fakeTranscript struct {
	boundaries []int64
	endsWith   bool
	answered   bool
	err        error
}

func (f fakeTranscript) CompactionsAfter(offset int64) (int, error) {
	n := 0
	for _, b := range f.boundaries {
		if b >= offset {
			n++
		}
	}
	return n, f.err
}
func (f fakeTranscript) EndsWithCompaction() (bool, error) { return f.endsWith, f.err }
func (f fakeTranscript) LastBoundary() (int64, bool, error) {
	if len(f.boundaries) == 0 {
		return 0, false, f.err
	}
	return slices.Max(f.boundaries), true, f.err
}
func (f fakeTranscript) AnsweredSinceCompaction() (bool, error) { return f.answered, f.err }

func TestMissed(t *testing.T) {
	for _, c := range []struct {
		name, sid, last string
		tr              Boundaries
		want            bool
	}{
		{"no session", "", "s/auto/100", fakeTranscript{}, false},
		{"no transcript", "s", "s/auto/100", nil, false},
		{"nothing recorded", "s", "", fakeTranscript{}, true},
		{"another session recorded", "s", "other/auto/100", fakeTranscript{}, true},
		{"recorded, no transcript then", "s", "s/auto/-1", fakeTranscript{boundaries: []int64{5}}, false},
		{"recorded, boundary not yet written", "s", "s/auto/100", fakeTranscript{boundaries: []int64{50}}, false},
		{"recorded, boundary written first, last line", "s", "s/auto/100", fakeTranscript{boundaries: []int64{100}, endsWith: true}, false},
		{"a boundary after the record, then conversation", "s", "s/auto/100", fakeTranscript{boundaries: []int64{150}}, true},
		{"two boundaries after the record", "s", "s/auto/100", fakeTranscript{boundaries: []int64{150, 300}, endsWith: true}, true},
	} {
		got, err := Missed(c.sid, c.last, c.tr)
		if err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
	if _, err := Missed("s", "s/auto/1", fakeTranscript{err: errors.New("boom")}); err == nil {
		t.Error("error lost")
	}
}

func TestCompactedSince(t *testing.T) {
	for _, c := range []struct {
		name, sid, last string
		tr              Boundaries
		want            bool
	}{
		{"no transcript", "s", "s/auto/100", nil, false},
		{"no record, never compacted", "s", "", fakeTranscript{}, false},
		{"no record, compacted once", "s", "", fakeTranscript{boundaries: []int64{10}}, true},
		{"another session's record", "s", "x/auto/100", fakeTranscript{boundaries: []int64{10}}, true},
		{"nothing since the record", "s", "s/auto/100", fakeTranscript{boundaries: []int64{10}}, false},
		{"a compaction since the record", "s", "s/auto/100", fakeTranscript{boundaries: []int64{10, 200}}, true},
	} {
		if got, err := CompactedSince(c.sid, c.last, c.tr); err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
}

// A resume without a run is handed back only a compaction of its own that cairn recorded, that
// came after the record, and that Claude has not answered since; without a record the
// transcript is not asked anything.
func TestPendingHandBack(t *testing.T) {
	for _, c := range []struct {
		name, sid, last string
		tr              Boundaries
		want            bool
	}{
		{"no transcript", "s", "s/auto/100", nil, false},
		{"no record", "s", "", panicTranscript{}, false},
		{"another session's record", "s", "x/auto/100", panicTranscript{}, false},
		{"nothing since the record", "s", "s/auto/100", fakeTranscript{boundaries: []int64{10}}, false},
		{"a compaction since, not answered", "s", "s/auto/100", fakeTranscript{boundaries: []int64{10, 200}}, true},
		{"a compaction since, answered", "s", "s/auto/100", fakeTranscript{boundaries: []int64{200}, answered: true}, false},
	} {
		if got, err := PendingHandBack(c.sid, c.last, c.tr); err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
}

// panicTranscript fails a test that reads the transcript when it should not.
type panicTranscript struct{}

func (panicTranscript) CompactionsAfter(int64) (int, error) { panic("CompactionsAfter") }
func (panicTranscript) EndsWithCompaction() (bool, error)   { panic("EndsWithCompaction") }
func (panicTranscript) LastBoundary() (int64, bool, error) {
	panic("LastBoundary: a whole-transcript scan")
}
func (panicTranscript) AnsweredSinceCompaction() (bool, error) { panic("AnsweredSinceCompaction") }

// Record writes the three records and one timeline line; a repeat for the same identity changes
// no byte and writes no second checkpoint or line, even with the clock moving.
func TestRecordOnceAndIdempotent(t *testing.T) {
	root := t.TempDir()
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(tr, []byte(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"`+root+`/a.go","content":"x"}}]}}`+"\n"), 0o644)
	os.MkdirAll(filepath.Join(root, ".agents", "runs", "r1"), 0o755)
	os.WriteFile(filepath.Join(root, ".agents", "runs", "active"), []byte("r1\n"), 0o644)
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	w := projecttest.New(t, root, "", t0)
	in := Input{SessionID: "s", Transcript: transcript.Open(tr), Trigger: "auto"}
	if err := Record(w.Project, stores.Open(w.Project), in); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]string {
		out := map[string]string{}
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() && !strings.Contains(p, safefile.LockDir) {
				b, _ := os.ReadFile(p)
				out[p] = string(b)
			}
			return nil
		})
		return out
	}
	first := snapshot()
	mem := first[filepath.Join(root, ".agents", "runs", "r1", "MEMORY.md")]
	if !strings.Contains(mem, "event=s/auto/") || !strings.Contains(mem, "  - a.go") {
		t.Fatalf("whiteboard:\n%s", mem)
	}
	if !strings.Contains(first[sessionfile.Path(root)], "- Session: s · compaction:") {
		t.Fatalf("session file:\n%s", first[sessionfile.Path(root)])
	}
	w.Now = func() time.Time { return t0.Add(time.Minute) }
	if err := Record(w.Project, stores.Open(w.Project), in); err != nil {
		t.Fatal(err)
	}
	second := snapshot()
	if len(first) != len(second) {
		t.Fatalf("files %d → %d", len(first), len(second))
	}
	for p, b := range first {
		if second[p] != b {
			t.Errorf("%s changed", p)
		}
	}
	tl := first[filepath.Join(root, timeline.File)]
	if strings.Count(tl, "\n") != 1 || !strings.Contains(tl, `"event":"compaction"`) {
		t.Fatalf("timeline %q", tl)
	}
	// A late record for a new identity (the transcript grew) says so on the whiteboard.
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{}\n")
	f.Close()
	in.Late, in.Transcript = true, transcript.Open(tr) // a new process: a new handle on the grown transcript
	if err := Record(w.Project, stores.Open(w.Project), in); err != nil {
		t.Fatal(err)
	}
	mem2, _ := os.ReadFile(filepath.Join(root, ".agents", "runs", "r1", "MEMORY.md"))
	if !bytes.Contains(mem2, []byte("recorded late by SessionStart")) {
		t.Fatalf("%s", mem2)
	}
}

// optsWriter records the options of every Update.
type optsWriter struct {
	safefile.Writer
	opts map[string][]safefile.Option
}

func (w *optsWriter) Update(path string, perm os.FileMode, edit safefile.Edit, opts ...safefile.Option) (bool, error) {
	w.opts[filepath.Base(path)] = opts
	return w.Writer.Update(path, perm, edit, opts...)
}

// The two snapshots a compaction owns skip their fsync where renames are ordered; the checkpoint,
// which is created rather than replaced, is not among them.
func TestRecordSnapshotsAskForOrderedNoSync(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agents", "runs", "r1"), 0o755)
	os.WriteFile(filepath.Join(root, ".agents", "runs", "active"), []byte("r1\n"), 0o644)
	w := projecttest.New(t, root, "", time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	ow := &optsWriter{Writer: w.Files, opts: map[string][]safefile.Option{}}
	w.Files = ow
	if err := Record(w.Project, stores.Open(w.Project), Input{SessionID: "s", Trigger: "auto"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"MEMORY.md", "session-context.md"} {
		opts, ok := ow.opts[name]
		if !ok || !slices.Contains(opts, safefile.NoSyncWhereOrdered) {
			t.Errorf("%s: Update options %v, want NoSyncWhereOrdered", name, opts)
		}
	}
}

// The automatic checkpoint's catalog entry records where the lines of the prompts it keeps start
// in the transcript (catalog.Entry.PromptsAt), so that the session's hand-off reads them there.
func TestRecordKeepsWhereThePromptsAre(t *testing.T) {
	root := t.TempDir()
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"first"}}`,
		`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
		`{"type":"user","message":{"role":"user","content":"second"}}`,
	}
	os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	w := projecttest.New(t, root, "", time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	if err := Record(w.Project, stores.Open(w.Project), Input{SessionID: "s", Transcript: transcript.Open(tr), Trigger: "auto"}); err != nil {
		t.Fatal(err)
	}
	cat := stores.Open(w.Project).Catalog.Entries()
	want := []int64{int64(len(lines[0]) + len(lines[1]) + 2), 0}
	if len(cat) != 1 || !slices.Equal(cat[0].PromptsAt, want) {
		t.Fatalf("catalog %+v, want prompts at %v", cat, want)
	}
}

// A session whose claims name the files it edited (PreToolUse's record) has its compaction read
// no further back than editScan for them: what the bounded read cannot see, the claims add —
// less what the compaction before recorded, or, when the previous record was taken inside the
// window (PreCompact firing again for this compaction), that record's files. The files come out
// as a read of the whole stretch gives them.
func TestRecordBoundedByClaims(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	line := func(s string) string { return s + "\n" }
	edit := func(path string) string {
		return line(`{"type":"assistant","message":{"id":"m` + path + `","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"` + root + "/" + path + `"}}]}}`)
	}
	var b strings.Builder
	b.WriteString(edit("old.go")) // before the last compaction: not since it
	b.WriteString(line(`{"type":"system","subtype":"compact_boundary"}`))
	b.WriteString(edit("early.go"))
	b.WriteString(edit("unclaimed.go")) // edited with no claim: a session before cairn's PreToolUse
	filler := line(`{"type":"assistant","message":{"id":"f","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 64<<10) + `"}]}}`)
	for b.Len() < editScan+(1<<20) {
		b.WriteString(filler)
	}
	b.WriteString(edit("late.go"))
	os.WriteFile(tr, []byte(b.String()), 0o644)
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	w := projecttest.New(t, root, config, t0)
	reg := registry.Open(w.Project)
	if err := reg.Register("s", "main", t0); err != nil {
		t.Fatal(err)
	}
	st := stores.Open(w.Project)
	// The compaction before recorded old.go (its record precedes the boundary).
	if _, _, err := st.Catalog.Auto(catalog.AutoInput{SessionID: "s", Trigger: "auto", Event: "s/auto/10", Now: t0.Add(-time.Hour), FilesEdited: []string{"old.go"}}); err != nil {
		t.Fatal(err)
	}
	files := func() string {
		data, _ := os.ReadFile(sessionfile.Path(root))
		return string(data)
	}
	for _, p := range []string{"old.go", "early.go", "late.go"} {
		if _, err := claims.Open(w.Project, registry.Open(w.Project)).Record("s", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := Record(w.Project, stores.Open(w.Project), Input{SessionID: "s", Transcript: transcript.Open(tr), Trigger: "auto"}); err != nil {
		t.Fatal(err)
	}
	got := files()
	if !strings.Contains(got, "late.go") || !strings.Contains(got, "early.go") || strings.Contains(got, "old.go") {
		t.Fatalf("with claims, the files since the last compaction:\n%s", got)
	}
	// The read stopped at the bound: an edit further back that no claim names is not seen — the
	// claims are trusted for that stretch — where a session without claims reads the whole of it.
	if strings.Contains(got, "unclaimed.go") {
		t.Fatalf("the compaction read past the bound:\n%s", got)
	}
	other := projecttest.New(t, t.TempDir(), t.TempDir(), t0)
	if err := Record(other.Project, stores.Open(other.Project), Input{SessionID: "s", Transcript: transcript.Open(tr), Trigger: "auto"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(sessionfile.Path(other.Root)); !strings.Contains(string(data), "unclaimed.go") {
		t.Fatalf("without claims, the whole stretch:\n%s", data)
	}
	// PreCompact fires again for the same compaction, the transcript a line longer: the record just
	// taken lies inside the window, and its files are this stretch's.
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line(`{"type":"user","message":{"role":"user","content":"more"}}`))
	f.Close()
	if err := Record(w.Project, stores.Open(w.Project), Input{SessionID: "s", Transcript: transcript.Open(tr), Trigger: "manual"}); err != nil {
		t.Fatal(err)
	}
	if got := files(); !strings.Contains(got, "late.go") || !strings.Contains(got, "early.go") || strings.Contains(got, "old.go") {
		t.Fatalf("a repeat inside the window:\n%s", got)
	}
}

// A command further back than the compaction reads from the end reaches its record when the
// session noted it as it ran (PreToolUse): with its status, and the last error it printed; one
// before the compaction before (its record's transcript length) does not, nor one no note names.
func TestRecordFindsNotedCommands(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	bash := func(id, cmd, out string, failed bool) {
		line(`{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"` + cmd + `"}}]}}`)
		line(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` + out + `","is_error":` + map[bool]string{true: "true", false: "false"}[failed] + `,"tool_use_id":"` + id + `"}]}}`)
	}
	filler := `{"type":"assistant","message":{"id":"f","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 64<<10) + `"}]}}`
	oldAt := int64(b.Len())
	bash("t0", "make before-the-last-compaction", "Exit code 2\\nold", true)
	line(filler)
	lastCompaction := int64(b.Len())
	line(`{"type":"user","message":{"role":"user","content":"go on"}}`)
	testAt := int64(b.Len())
	bash("t1", "go test ./pkg/ledger/", "Exit code 1\\n--- FAIL: TestTotal (0.01s)\\n    total_test.go:9: want 1300, got 1299", true)
	for range 8 { // past what is read around the note
		line(filler)
	}
	bash("t2", "make unnoted", "", false)
	for b.Len() < int(lastCompaction)+transcript.ActivityWindow+(1<<20) {
		line(filler)
	}
	os.WriteFile(tr, []byte(b.String()), 0o644)
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	w := projecttest.New(t, root, config, t0)
	st := stores.Open(w.Project)
	// The compaction before recorded the transcript's length then.
	if _, _, err := st.Catalog.Auto(catalog.AutoInput{SessionID: "s", Trigger: "auto", Event: "s/auto/" + strconv.FormatInt(lastCompaction, 10), Now: t0.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []claims.Spot{{At: oldAt, ID: "t0"}, {At: testAt}} {
		if err := st.Claims.NoteCommand("s", n.At, n.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := Record(w.Project, stores.Open(w.Project), Input{SessionID: "s", Transcript: transcript.Open(tr), Trigger: "auto"}); err != nil {
		t.Fatal(err)
	}
	var auto catalog.Entry
	for _, e := range stores.Open(w.Project).Catalog.Entries() {
		if e.Event != "s/auto/"+strconv.FormatInt(lastCompaction, 10) {
			auto = e
		}
	}
	data, err := os.ReadFile(filepath.Join(root, auto.File))
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, want := range []string{"- command: exit 1: go test ./pkg/ledger/", "- error: --- FAIL: TestTotal (0.01s) — total_test.go:9: want 1300, got 1299"} {
		if !strings.Contains(got, want) {
			t.Errorf("the record lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "before-the-last-compaction") || strings.Contains(got, "make unnoted") {
		t.Errorf("the record lists a command before the last compaction, or one no note names:\n%s", got)
	}
}

// The notes bound themselves: with the read from the end cut short by the session's claims and no
// automatic checkpoint of the compaction before left in the catalog (retention prunes them across
// parallel sessions), the compaction that compaction's PreCompact noted among the commands keeps a
// command from before it out; and a record notes where it stood for the next one, once the
// session has notes at all.
func TestRecordNotedCompactionBoundsTheNotes(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	bash := func(id, cmd string) {
		line(`{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"` + cmd + `"}}]}}`)
		line(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok","is_error":false,"tool_use_id":"` + id + `"}]}}`)
	}
	filler := `{"type":"assistant","message":{"id":"f","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 64<<10) + `"}]}}`
	fill := func(n int) {
		for end := b.Len() + n; b.Len() < end; {
			line(filler)
		}
	}
	oldAt := int64(b.Len())
	bash("toolu_old", "make before-the-last-compaction")
	fill(300 << 10)
	compactedAt := int64(b.Len())
	line(`{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isSidechain":false}`)
	line(`{"type":"user","message":{"role":"user","content":"go on"}}`)
	fill(100 << 10)
	newAt := int64(b.Len())
	bash("toolu_new", "make after-it")
	fill(300<<10 + transcript.ActivityWindow)
	os.WriteFile(tr, []byte(b.String()), 0o644)
	w := projecttest.New(t, root, config, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	st := stores.Open(w.Project)
	if _, err := st.Claims.Record("s", "a.go"); err != nil {
		t.Fatal(err)
	}
	st.Claims.NoteCommand("s", oldAt, "toolu_old")
	st.Claims.NoteCompaction("s", compactedAt) // the compaction before's PreCompact
	st.Claims.NoteCommand("s", newAt, "toolu_new")
	if err := Record(w.Project, stores.Open(w.Project), Input{SessionID: "s", Transcript: transcript.Open(tr), Trigger: "auto"}); err != nil {
		t.Fatal(err)
	}
	e := stores.Open(w.Project).Catalog.Entries()
	data, _ := os.ReadFile(filepath.Join(root, e[len(e)-1].File))
	if got := string(data); !strings.Contains(got, "make after-it") || strings.Contains(got, "before-the-last-compaction") {
		t.Errorf("the record's commands:\n%s", got)
	}
	if spots := stores.Open(w.Project).Claims.CommandSpots("s", 1); len(spots) != 1 || !spots[0].Compaction || spots[0].At != int64(b.Len()) {
		t.Errorf("the record did not note where it stood: %+v", spots)
	}
}
