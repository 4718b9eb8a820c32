package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tasks"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

var t0 = time.Date(2026, 4, 18, 14, 30, 0, 0, time.FixedZone("PDT", -7*3600))

func disk(root string) safefile.Writer { return safefile.Disk{Roots: []string{root}} }

// catalogOf is a fresh handle on root's catalog: each call reads the file anew.
func catalogOf(files safefile.Writer, root string) *Catalog {
	return &Catalog{root: root, files: files, log: timeline.OpenAt(root, files)}
}

// A catalog written by an earlier cairn ({"event","file"} only) reads as automatic checkpoints
// whose session comes from the event and time from the file name.
func TestCatalogReadsEarlierIndex(t *testing.T) {
	old := `[
  {
    "event": "s1/auto/100",
    "file": "memory/projects/p/checkpoints/20260418-143000-before-auto-compaction.md"
  }
]
`
	cat := readCatalog([]byte(old))
	if len(cat) != 1 {
		t.Fatal(cat)
	}
	c := cat[0]
	if c.Kind != checkpoint.KindAuto || c.Session != "s1" || c.Event != "s1/auto/100" || c.Size != -1 {
		t.Fatalf("%+v", c)
	}
	if got := c.Time.Format("20060102-150405"); got != "20260418-143000" {
		t.Fatal(got)
	}
	again := readCatalog(writeCatalog(cat))
	if fmt.Sprint(again) != fmt.Sprint(cat) {
		t.Fatalf("round trip:\n%v\n%v", again, cat)
	}
	if readCatalog([]byte("[{")) != nil || readCatalog([]byte(`[{"event":"x"}]`)) != nil {
		t.Fatal("a damaged catalog or an entry without a file must read as nothing")
	}
}

func TestCatalogRoundTrip(t *testing.T) {
	in := []Entry{
		{Event: "s1/manual/5", File: "memory/projects/p/checkpoints/20260418-143000-a.md", Kind: checkpoint.KindAuto, Session: "s1", Branch: "main", Time: t0.UTC(), Size: -1, Tasks: "x1", PromptsAt: []int64{900, 40, 0}},
		{File: "memory/projects/my proj/checkpoints/20260418-153000-b-\"quoted\".md", Kind: checkpoint.KindHandoff, Session: "s2", Branch: "feat/ü", Time: t0.Add(time.Hour).UTC(), Size: 1234, Line: "fix the\tlexer", PromptsAt: []int64{1200}},
	}
	out := readCatalog(writeCatalog(in))
	if fmt.Sprint(out) != fmt.Sprint(in) {
		t.Fatalf("\n%v\n%v", out, in)
	}
}

// prompts_at is read only as what cairn writes: at most three whole, non-negative numbers. The
// catalog is a file a clone can commit; an offset that holds no prompt costs a reading from the
// end (transcript.LastWords), and anything else is not read at all.
func TestCatalogPromptsAt(t *testing.T) {
	const file = `"file":"memory/projects/p/checkpoints/20260418-143000-a.md","kind":"handoff"`
	for raw, want := range map[string]string{
		`[3,2,1]`:                "[3 2 1]",
		`[0]`:                    "[0]",
		`[]`:                     "[]",
		`[4,3,2,1]`:              "[]",
		`[-1]`:                   "[]",
		`[1.5]`:                  "[]",
		`[1e3]`:                  "[]",
		`["7"]`:                  "[]",
		`7`:                      "[]",
		`[99999999999999999999]`: "[]",
	} {
		cat := readCatalog([]byte(`[{` + file + `,"prompts_at":` + raw + `}]`))
		if len(cat) != 1 || fmt.Sprint(cat[0].PromptsAt) != want {
			t.Errorf("prompts_at %s read as %v, want %s", raw, cat, want)
		}
	}
	long := Entry{File: "memory/projects/p/checkpoints/20260418-143000-a.md", Kind: checkpoint.KindHandoff, PromptsAt: []int64{5, 4, 3, 2, 1}}
	if got := readCatalog(writeCatalog([]Entry{long})); len(got) != 1 || fmt.Sprint(got[0].PromptsAt) != "[5 4 3]" {
		t.Errorf("five offsets written and read back as %v", got)
	}
}

// The catalog is a file in the project, which a cloned repository may supply: an entry that
// names anything but a checkpoint in a checkpoint directory is not read, so that neither the
// hand-back points to it nor retention prunes it.
func TestCatalogNamesOnlyCheckpoints(t *testing.T) {
	for _, f := range []string{
		"README.md", "../outside.md", "/etc/passwd",
		"memory/projects/p/checkpoints/notes.md",
		"memory/projects/../checkpoints/20260418-143000-x.md",
		"memory/projects/p/checkpoints/../20260418-143000-x.md",
		"memory/projects/p/checkpoints/sub/20260418-143000-x.md",
		"src/memory/projects/p/checkpoints/20260418-143000-x.md",
	} {
		cat := readCatalog([]byte(`[{"file":` + strconv.Quote(f) + `,"kind":"handoff","branch":"main","line":"run ./setup.sh"}]`))
		if len(cat) != 0 {
			t.Errorf("%q was read: %+v", f, cat)
		}
	}
}

// makeAuto writes an automatic checkpoint for session sid on branch at time at.
func makeAuto(t *testing.T, root, sid, branch string, at time.Time, size int) checkpoint.Saved {
	t.Helper()
	in := AutoInput{SessionID: sid, Trigger: "auto", Event: fmt.Sprintf("%s/auto/%d", sid, size), Branch: branch, Now: at}
	s, written, err := catalogOf(disk(root), root).Auto(in)
	if err != nil || !written {
		t.Fatal(written, err)
	}
	return s
}

func countKind(t *testing.T, root, kind string) int {
	t.Helper()
	n := 0
	names, _ := checkpoint.Names(root)
	for _, name := range names {
		data, _ := os.ReadFile(filepath.Join(checkpoint.Dir(root), name))
		fm, _ := checkpoint.SplitLoose(data)
		if checkpoint.ReadFrontmatter(fm).Kind == kind {
			n++
		}
	}
	return n
}

// Retention keeps the newest 30 automatic checkpoints per branch, none older than 30 days, logs
// each removal in the timeline, and never touches a saved checkpoint.
func TestRetention(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	if _, err := checkpoint.Save(disk(root), root, checkpoint.Entry{Title: "mine", Time: start.Add(-90 * 24 * time.Hour), Sections: checkpoint.Sections{Summary: "x"}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 35; i++ {
		makeAuto(t, root, "s1", "main", start.Add(time.Duration(i)*time.Minute), i)
	}
	for i := 0; i < 3; i++ {
		makeAuto(t, root, "s2", "feat", start.Add(time.Duration(i)*time.Minute), 100+i)
	}
	if n := countKind(t, root, checkpoint.KindAuto); n != 33 {
		t.Fatalf("%d automatic checkpoints kept, want 30 on main + 3 on feat", n)
	}
	if n := countKind(t, root, checkpoint.KindSaved); n != 1 {
		t.Fatalf("the saved checkpoint is gone: %d", n)
	}
	cat := catalogOf(disk(root), root).Entries()
	if len(cat) != 33 {
		t.Fatalf("catalog holds %d", len(cat))
	}
	for _, c := range cat {
		if c.Branch == "main" {
			if !c.Time.Equal(start.Add(5 * time.Minute)) {
				t.Fatalf("oldest kept on main: %+v", c)
			}
			break
		}
	}
	tl, _ := os.ReadFile(filepath.Join(root, "memory/timeline.jsonl"))
	if n := strings.Count(string(tl), `"event":"checkpoint_pruned"`); n != 5 {
		t.Fatalf("%d prunings logged, want 5:\n%s", n, tl)
	}
	if !strings.Contains(string(tl), `"note":"retention: the newest 30 per branch and kind, none older than 30 days"`) {
		t.Fatalf("no reason logged:\n%s", tl)
	}

	// 31 days later one new checkpoint on feat prunes everything older than 30 days.
	makeAuto(t, root, "s3", "feat", start.Add(31*24*time.Hour), 999)
	if n := countKind(t, root, checkpoint.KindAuto); n != 1 {
		t.Fatalf("%d automatic checkpoints after 31 days, want 1", n)
	}
	if n := countKind(t, root, checkpoint.KindSaved); n != 1 {
		t.Fatal("the saved checkpoint was pruned")
	}
}

// A checkpoint whose kind a person changed is kept, and the keeping logged.
func TestRetentionChecksKind(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	first := makeAuto(t, root, "s1", "main", start, 1)
	data, _ := os.ReadFile(first.Path)
	os.WriteFile(first.Path, []byte(strings.Replace(string(data), "kind: auto", "kind: saved", 1)), 0o644)
	makeAuto(t, root, "s1", "main", start.Add(31*24*time.Hour), 2)
	if _, err := os.Stat(first.Path); err != nil {
		t.Fatal("a checkpoint turned into a save was pruned")
	}
	tl, _ := os.ReadFile(filepath.Join(root, "memory/timeline.jsonl"))
	if !strings.Contains(string(tl), `not removed: its kind is now saved, so it is no longer cairn's to prune`) {
		t.Fatalf("%s", tl)
	}
	if len(catalogOf(disk(root), root).Entries()) != 1 {
		t.Fatal("the catalog must forget it")
	}
}

// A project that compacts ten times a day for a year keeps a bounded number of checkpoints.
func TestRetentionBoundsGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 400 checkpoints")
	}
	root := t.TempDir()
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.Local)
	for day := 0; day < 40; day++ {
		for i := 0; i < 10; i++ {
			makeAuto(t, root, fmt.Sprintf("d%d", day), "main", start.Add(time.Duration(day)*24*time.Hour+time.Duration(i)*time.Hour), i)
		}
	}
	names, _ := checkpoint.Names(root)
	if len(names) != RetainPerBranch {
		t.Fatalf("%d checkpoints after 400 compactions, want %d", len(names), RetainPerBranch)
	}
}

func TestAttachSummary(t *testing.T) {
	root := t.TempDir()
	in := autoInput()
	s, _, err := catalogOf(disk(root), root).Auto(in)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path)
	c, ok := catalogOf(disk(root), root).Latest(checkpoint.KindAuto, "sess-1", "")
	if !ok || c.File != s.Rel {
		t.Fatal(c, ok)
	}
	text := CompactSummary("<analysis>\nthinking\n</analysis>\n\n<summary>\n1. Primary request: fix the lexer.\n## Notes\nkey sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123\n</summary>")
	if strings.Contains(text, "thinking") || strings.Contains(text, "<summary>") || strings.Contains(text, "sk-ant-api03-abcdef") {
		t.Fatalf("CompactSummary: %q", text)
	}
	changed, err := AttachSummary(disk(root), root, c, text)
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	after, _ := os.ReadFile(s.Path)
	fmEnd := strings.Index(string(before), "\n---\n") + 5
	if string(after[:fmEnd]) != string(before[:fmEnd]) {
		t.Fatalf("frontmatter changed:\n%s\n%s", before[:fmEnd], after[:fmEnd])
	}
	body := string(after[fmEnd:])
	for _, want := range []string{
		"### Summary\n\nAutomatic checkpoint taken by cairn before a manual compaction of session sess-1.",
		"Completed tasks:\n- parser\n\n" + summaryLabel + "\n\n1. Primary request: fix the lexer.\n\\## Notes\nkey [REDACTED]\n\n### Decisions Made",
		decisionsInSummary + " See also the run's MEMORY.md, ## Decisions.",
		"### Notes\n\nCompaction instructions:",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in\n%s", want, body)
		}
	}
	// A repeat changes nothing; a second summary replaces the first, not adds to it.
	if changed, err := AttachSummary(disk(root), root, c, text); err != nil || changed {
		t.Fatal("repeat:", changed, err)
	}
	if _, err := AttachSummary(disk(root), root, c, "second"); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(s.Path)
	if strings.Count(string(again), summaryLabel) != 1 || !strings.Contains(string(again), summaryLabel+"\n\nsecond\n\n### Decisions") {
		t.Fatalf("%s", again)
	}
	if got := summaryOf(t, s.Path); got != "second" {
		t.Fatalf("ClaudeSummary = %q", got)
	}
	// A checkpoint that is not automatic is never rewritten.
	mine, _ := checkpoint.Save(disk(root), root, checkpoint.Entry{Title: "mine", Time: t0, Sections: checkpoint.Sections{Summary: "x"}})
	if _, err := AttachSummary(disk(root), root, Entry{File: mine.Rel}, "s"); err == nil {
		t.Fatal("a saved checkpoint took a summary")
	}
}

func summaryOf(t *testing.T, path string) string {
	data, _ := os.ReadFile(path)
	_, body := checkpoint.SplitLoose(data)
	_, sec := checkpoint.ParseBody(body)
	return ClaudeSummary(sec.Summary)
}

func TestCompactSummaryBounded(t *testing.T) {
	raw := "<summary>" + strings.Repeat("é", maxSummaryBytes) + "</summary>"
	s := CompactSummary(raw)
	if len(s) > maxSummaryBytes+200 || !strings.Contains(s, "cut by cairn") {
		t.Fatalf("%d bytes", len(s))
	}
	if got := CompactSummary("plain text\x1b[31m"); got != "plain text [31m" {
		t.Fatalf("%q", got)
	}
}

// A session's second hand-off replaces its first; another session's stays.
func TestHandoffReplaces(t *testing.T) {
	root := t.TempDir()
	in := HandoffInput{SessionID: "s1", Reason: "other", Branch: "main", Now: t0, Doing: "fix the lexer", Size: 10,
		Open: []tasks.Task{{ID: "7", Subject: "wire it", Status: tasks.StatusPending}}, Parked: 2}
	first, err := catalogOf(disk(root), root).Handoff(in)
	if err != nil {
		t.Fatal(err)
	}
	other := in
	other.SessionID, other.Now = "s2", t0.Add(time.Minute)
	if _, err := catalogOf(disk(root), root).Handoff(other); err != nil {
		t.Fatal(err)
	}
	in.Now, in.Doing = t0.Add(2*time.Minute), "add the cache"
	second, err := catalogOf(disk(root), root).Handoff(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first.Path); !os.IsNotExist(err) {
		t.Fatal("the session's first hand-off is still there")
	}
	if n := countKind(t, root, checkpoint.KindHandoff); n != 2 {
		t.Fatalf("%d hand-offs, want 2", n)
	}
	c, ok := catalogOf(disk(root), root).Latest(checkpoint.KindHandoff, "", "main")
	if !ok || c.File != second.Rel || c.Line != "add the cache" || c.Size != 10 {
		t.Fatalf("%+v", c)
	}
	data, _ := os.ReadFile(second.Path)
	for _, want := range []string{"status: handoff\nkind: handoff\n", "## Working on: handoff add the cache\n", "1. wire it (task 7)", "2 parked items open: `/session resume` lists them."} {
		if !strings.Contains(string(data), want) {
			t.Errorf("missing %q in\n%s", want, data)
		}
	}
	tl, _ := os.ReadFile(filepath.Join(root, "memory/timeline.jsonl"))
	if !strings.Contains(string(tl), `"note":"replaced by this session's newer hand-off"`) {
		t.Fatalf("%s", tl)
	}
}

func TestTaskPrint(t *testing.T) {
	a := []tasks.Task{{ID: "1", Subject: "x", Status: "pending"}, {ID: "2", Subject: "y", Status: "in_progress"}}
	b := []tasks.Task{{ID: "2", Subject: "y", Status: "in_progress"}, {ID: "1", Subject: "x", Status: "pending"}}
	if TaskPrint(a, nil) != TaskPrint(b, nil) || TaskPrint(a, nil) == "" {
		t.Fatal("order must not matter")
	}
	b[0].Status = "completed"
	if TaskPrint(a, nil) == TaskPrint(b, nil) {
		t.Fatal("a status change must show")
	}
	if TaskPrint(nil, nil) != "" {
		t.Fatal("no tasks")
	}
}

func TestTaskLines(t *testing.T) {
	got := TaskLines("1. [in progress] a (task 3)\n2. b\n- … 4 more\n- Open plan items: 2\nNo open tasks recorded.")
	want := []string{"1. [in progress] a (task 3)", "2. b", "- … 4 more"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%q", got)
	}
}

// More compactions in one second than retention keeps: the pruned checkpoint's name is free
// again, and the next automatic checkpoint of that second takes it (the concurrency suite met
// this). Each pruning line therefore names the compaction whose checkpoint it removed, and that
// compaction has no checkpoint left, whatever file now has the name.
func TestPrunedLineNamesItsCompaction(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < RetainPerBranch+3; i++ {
		makeAuto(t, root, "s1", "main", t0, 100+i)
	}
	events := map[string]string{} // file name -> compaction of the checkpoint there now
	names, _ := checkpoint.Names(root)
	for _, n := range names {
		ev, ok := eventOf(root, filepath.Join(checkpoint.Dir(root), n))
		if !ok {
			t.Fatalf("%s has no event line", n)
		}
		events[n] = ev
	}
	if len(events) != RetainPerBranch {
		t.Fatalf("%d automatic checkpoints kept, want %d", len(events), RetainPerBranch)
	}
	tl, _ := os.ReadFile(filepath.Join(root, "memory/timeline.jsonl"))
	pruned, reused := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(tl)), "\n") {
		if !strings.Contains(line, `"event":"checkpoint_pruned"`) {
			continue
		}
		pruned++
		var ev struct{ Checkpoint, Compaction string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Compaction == "" {
			t.Fatalf("a pruning line without its compaction: %s", line)
		}
		for n, e := range events {
			if e == ev.Compaction {
				t.Errorf("compaction %s logged as pruned, and its checkpoint %s is still there", e, n)
			}
		}
		if _, ok := events[filepath.Base(ev.Checkpoint)]; ok {
			reused++
		}
	}
	if pruned != 3 || reused == 0 {
		t.Fatalf("%d prunings logged (want 3), %d of their names taken again (want some: the case this test is for)\n%s", pruned, reused, tl)
	}
}

// The handle reads the catalog once, and its own write leaves it holding what was written: a
// flow that asks, adds and asks again (SessionStart's late record) reads the file once. The file
// is damaged behind the handle's back to show no reread happens.
func TestCatalogHandleReadsOnce(t *testing.T) {
	root := t.TempDir()
	makeAuto(t, root, "s1", "main", t0, 1)
	x := catalogOf(disk(root), root)
	if len(x.Entries()) != 1 {
		t.Fatalf("%+v", x.Entries())
	}
	index := filepath.Join(root, IndexFile)
	os.WriteFile(index, []byte("not json"), 0o600)
	if c, ok := x.Latest(checkpoint.KindAuto, "s1", ""); !ok || c.Session != "s1" {
		t.Fatalf("the handle reread the catalog: %+v %v", c, ok)
	}
	// Its own write reads the file under the lock (damaged since: rebuilt from the checkpoints)
	// and leaves the handle holding the result, without another read.
	in := autoInput()
	in.Event, in.Now = "s2/auto/5", t0.Add(time.Minute)
	if _, written, err := x.Auto(in); err != nil || !written {
		t.Fatal(written, err)
	}
	os.Remove(index)
	if !x.Recorded("s2/auto/5") || !x.Recorded("s1/auto/1") || len(x.Entries()) != 2 {
		t.Fatalf("after its write the handle holds %+v", x.Entries())
	}
	if fresh := catalogOf(disk(root), root); fresh.Recorded("s2/auto/5") {
		t.Fatal("a fresh handle reads the file: it was removed")
	}
}

// The session record goes into the automatic checkpoint, and PostCompact's summary adds the loss
// record: what the record and files_modified hold that the summary lacks; a repeat leaves one.
func TestAttachSummaryLossRecord(t *testing.T) {
	root := t.TempDir()
	in := autoInput()
	in.Record = checkpoint.Record{LastError: "undefined: parseHeader", Commands: []checkpoint.Command{{Status: "exit 1", Line: "go test ./pkg/..."}}}
	s, _, err := catalogOf(disk(root), root).Auto(in)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := catalogOf(disk(root), root).Latest(checkpoint.KindAuto, "sess-1", "")
	for range 2 {
		if _, err := AttachSummary(disk(root), root, c, "The user asked to fix pkg/a.go."); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(s.Path)
	_, body := checkpoint.SplitLoose(data)
	_, sec := checkpoint.ParseBody(body)
	lost, _ := checkpoint.ReadLoss(sec.Notes)
	want := []string{"error: undefined: parseHeader", "command: exit 1: go test ./pkg/...", "file: pkg/b.go"}
	if !reflect.DeepEqual(lost, want) || strings.Count(string(data), "Not in Claude Code's summary") != 1 {
		t.Errorf("loss record %q, want %q:\n%s", lost, want, data)
	}
	if r := checkpoint.ReadRecord(sec.Notes); r.LastError != "undefined: parseHeader" {
		t.Errorf("the record did not survive the rewrite: %+v", r)
	}
}

// Claude Code's summary lists what is still to do under "Pending Tasks", between two numbered
// sections; pendingInSummary reads those items, whatever their bullets and numbering, and none of
// the ways a summary says there is nothing.
func TestPendingInSummary(t *testing.T) {
	summary := `1. Primary Request and Intent:
   Fix the parser.

6. All user messages:
   - "Pending Tasks: not a heading, a quote"

7. Pending Tasks:
   - Remove the v1 endpoint
   * Write the changelog entry
   1. Check the error paths
   - None

8. Current Work:
   - Not a task
`
	got := pendingInSummary(summary)
	want := []string{"Remove the v1 endpoint", "Write the changelog entry", "Check the error paths"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, nothing := range []string{"7. Pending Tasks:\n   - None explicitly requested.\n8. Current Work:\n - x", "**Pending Tasks:** None.\n", "no summary"} {
		if got := pendingInSummary(nothing); len(got) != 0 {
			t.Errorf("%q: %q", nothing, got)
		}
	}
	var many strings.Builder
	many.WriteString("## Pending Tasks\n")
	for i := range 20 {
		fmt.Fprintf(&many, "- task %d\n", i)
	}
	if got := pendingInSummary(many.String()); len(got) != maxSummaryTasks {
		t.Errorf("%d tasks, want at most %d", len(got), maxSummaryTasks)
	}
}

// A summary may set its headings in bold ("**7. Pending Tasks:**", or a bold label alone): each
// reader takes them for the headings they are, both where its section begins and where it ends.
func TestSummaryBoldHeadings(t *testing.T) {
	summary := `**5. Problem Solving:**
   - Decided to keep amounts in integer cents.

**7. Pending Tasks:**
   - Remove the v1 endpoint

**Current Work:**
   - Decided to rename the package, then did not.

**9. Optional Next Step**:
   Wire the cursor into the export path.
`
	if got := pendingInSummary(summary); fmt.Sprint(got) != fmt.Sprint([]string{"Remove the v1 endpoint"}) {
		t.Errorf("pending: %q", got)
	}
	if got := decidedInSummary(summary); fmt.Sprint(got) != fmt.Sprint([]string{"Decided to keep amounts in integer cents."}) {
		t.Errorf("decided: %q", got)
	}
	if got := nextInSummary(summary); got != "Wire the cursor into the export path." {
		t.Errorf("next: %q", got)
	}
	if got := pendingInSummary("**Pending Tasks:**\n- Remove the v1 endpoint\n**Current Work:**\n- Not a task\n"); fmt.Sprint(got) != fmt.Sprint([]string{"Remove the v1 endpoint"}) {
		t.Errorf("a bold label: %q", got)
	}
	// A bold label set in labels part of its section: no heading, and no task.
	if got := pendingInSummary("7. Pending Tasks:\n   **High priority:**\n   - Remove the v1 endpoint\n8. Current Work:\n"); fmt.Sprint(got) != fmt.Sprint([]string{"Remove the v1 endpoint"}) {
		t.Errorf("a bold label set in: %q", got)
	}
}

// Claude Code's summary restates what was decided under "Problem Solving" (or a heading that
// names decisions), in its own words: decidedInSummary reads the items of that section that state
// a decision, and none that only says one was made, none of another section, none that decides
// nothing.
func TestDecidedInSummary(t *testing.T) {
	summary := `1. Primary Request and Intent:
   We decided nothing here: a request.

5. Problem Solving:
   - Decided to keep amounts in integer cents.
   - Settled on an approach for the ledger data after some discussion.
   - Fixed the off-by-one in the totals.
   * We agreed to drop the v1 endpoint.

6. Pending Tasks:
   - Decided to look at this later? no: another section
`
	got := decidedInSummary(summary)
	want := []string{"Decided to keep amounts in integer cents.", "We agreed to drop the v1 endpoint."}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := decidedInSummary("## Key Decisions\n- We settled on SQLite for the cache.\n## Current Work\n- decided nothing"); fmt.Sprint(got) != fmt.Sprint([]string{"We settled on SQLite for the cache."}) {
		t.Errorf("a heading naming decisions: %q", got)
	}
	for _, nothing := range []string{"5. Problem Solving:\n   - Settled on a plan after some discussion.\n", "5. Problem Solving:\n   - Fixed the parser.\n", "no summary"} {
		if got := decidedInSummary(nothing); len(got) != 0 {
			t.Errorf("%q: %q", nothing, got)
		}
	}
}

// The summary's "Optional Next Step" is read when it names a step; one that only says to go on
// ("Continue with the user's latest request.") or that there is none names nothing.
func TestNextInSummary(t *testing.T) {
	summary := "7. Current Work:\n   The parser.\n\n8. Optional Next Step:\n   Claude said it would wire the cursor into the export path next.\n"
	if got := nextInSummary(summary); got != "Claude said it would wire the cursor into the export path next." {
		t.Errorf("got %q", got)
	}
	for _, nothing := range []string{
		"8. Optional Next Step:\n   Continue with the user's latest request.\n",
		"## Next Step\n- None: the work is complete.\n",
		"7. Current Work:\n   wire the cursor next\n",
		"no summary",
	} {
		if got := nextInSummary(nothing); got != "" {
			t.Errorf("%q: %q", nothing, got)
		}
	}
}
