package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tombstone"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// testHistory is a Claude Code config directory holding transcripts of a test project's sessions.
type testHistory struct {
	t      testing.TB
	p      *testProject
	config string
	dir    string // <config>/projects/<the root's slug>
}

func newTestHistory(t *testing.T) *testHistory { return newTestProject(t).withHistory(t) }

// withHistory gives the project a Claude Code config directory with a directory for its
// transcripts.
func (p *testProject) withHistory(t *testing.T) *testHistory {
	config := filepath.Join(t.TempDir(), ".claude")
	dir := filepath.Join(config, "projects", project.Slug(p.root))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &testHistory{t: t, p: p, config: config, dir: dir}
}

// session starts writing a session of the project, started in the root.
func (h *testHistory) session(sid string, days int) *transcripttest.Session {
	return &transcripttest.Session{ID: sid, Cwd: h.p.root, Branch: "main", Time: at(days)}
}

func (h *testHistory) path(sid string) string { return filepath.Join(h.dir, sid+".jsonl") }

// write replaces the transcript of sid.
func (h *testHistory) write(sid string, data []byte) {
	h.t.Helper()
	if err := os.WriteFile(h.path(sid), data, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// add appends to the transcript of sid.
func (h *testHistory) add(sid string, data []byte) {
	h.t.Helper()
	f, err := os.OpenFile(h.path(sid), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		h.t.Fatal(err)
	}
}

// index opens the project's index with its history, in cache.
func (h *testHistory) index(cache string) *Index {
	now := time.Now().Add(time.Hour)
	return Open(Config{Root: h.p.root, CacheDir: cache, ConfigDir: h.config, Roots: []string{h.p.root}, Now: func() time.Time { return now }})
}

// syncAll brings the history up to date, without a budget.
func syncAll(t testing.TB, ix *Index) HistoryStats {
	t.Helper()
	st, err := ix.SyncHistory(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// find returns the ids of a search's results, in order.
func find(t *testing.T, ix *Index, q string) []string {
	t.Helper()
	return ids(t, ix, q, Options{Wait: true})
}

const (
	sidA = "0f3c2a9e-1111-4222-8333-444455556666"
	sidB = "7a1b2c3d-1111-4222-8333-444455556666"
)

// A session's transcript is searched: a planted fact finds its session, once however many of its
// stretches hold it, with its date, branch, title, directory and a snippet of the message that
// holds the words; tool output and what a secret was are not in the index.
func TestHistorySessions(t *testing.T) {
	h := newTestHistory(t)
	a := h.session(sidA, -40)
	a.Prompt("Please look at the ledger7 parser: it drops the sign of negative amounts.").
		Say("I'll start with internal/ledger7/parse.go.").
		Read(h.p.root+"/internal/ledger7/parse.go", 4000).
		Bash("go test ./internal/ledger7/", 1, "--- FAIL: TestLedger7 (0.01s)\n    parse_test.go:41: ledger7 total = 1300, want 1301\nFAIL").
		Edit(h.p.root + "/internal/ledger7/parse.go").
		Prompt("We decided to keep ledger7 amounts as integer cents. The token is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx123456.").
		Say("Understood: integer cents for ledger7.")
	h.write(sidA, a.Bytes())
	b := h.session(sidB, -3)
	b.Branch = "fix/quota"
	b.Prompt("The quota9 limiter lets bursts through.").Say("The quota9 bucket refills too early; fixing.").Compact("The user asked to fix the quota9 limiter; Claude changed the refill.")
	h.write(sidB, b.Bytes())

	ix := h.index(t.TempDir())
	defer ix.Close()
	rs, err := ix.Search(context.Background(), "ledger7", Options{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Items) != 1 || rs.Total != 1 {
		t.Fatalf("one session, once: %+v", rs)
	}
	r := rs.Items[0]
	if r.ID != "session:"+sidA || r.Kind != Session || r.Branch != "main" || r.Cwd != h.p.root ||
		!strings.HasPrefix(r.Title, "Please look at the ledger7 parser") || r.Time.IsZero() || !strings.Contains(r.Snippet, "«ledger7»") {
		t.Errorf("result: %+v", r)
	}
	if rs.History.Sessions != 2 || rs.History.Pending != 0 {
		t.Errorf("history: %+v", rs.History)
	}
	for q, want := range map[string]string{
		"integer cents":      "claude: Understood: «integer» «cents» for ledger7.",
		"keep amounts":       "you: We decided to «keep» ledger7 «amounts» as integer cents. The token is [REDACTED].",
		"1301":               "exit 1: --- FAIL: TestLedger7 (0.01s) — parse_test.go:41: ledger7 total = 1300, want «1301»",
		"refill":             "Claude Code's summary: The user asked to fix the quota9 limiter; Claude changed the «refill».",
		"parse.go":           "claude: I'll start with internal/ledger7/«parse.go».",
		"go test ledger7":    "$ «go» «test» ./internal/«ledger7»/",
		"bucket refills":     "claude: The quota9 «bucket» «refills» too early; fixing.",
		"parse_test.go 1300": "exit 1: --- FAIL: «Test»Ledger7 (0.01s) — «parse_test.go»:41: ledger7 total = «1300», want 1301",
	} {
		rs, err := ix.Search(context.Background(), q, Options{})
		if err != nil || len(rs.Items) == 0 {
			t.Errorf("%q: %v %+v", q, err, rs)
			continue
		}
		if rs.Items[0].Snippet != want {
			t.Errorf("%q: snippet %q, want %q", q, rs.Items[0].Snippet, want)
		}
	}
	// A tool's output is not indexed; a secret is redacted before it is: neither is found, and
	// the secret is in no index file.
	for _, q := range []string{"lorem", "AbCdEfGhIjKlMnOpQrStUvWx123456", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx123456"} {
		if got := find(t, ix, q); len(got) != 0 {
			t.Errorf("%q found %v", q, got)
		}
	}
	filepath.Walk(filepath.Dir(ix.dir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte("AbCdEfGhIjKlMnOp")) || bytes.Contains(bytes.ToLower(data), []byte("abcdefghijklmnop")) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
	rs, _ = ix.Search(context.Background(), "keep amounts", Options{})
	if strings.Contains(rs.Items[0].Snippet, "AbCdEf") {
		t.Errorf("snippet shows the secret: %q", rs.Items[0].Snippet)
	}
	// Filters apply to sessions: kind, branch, since.
	if got := find(t, ix, "quota9"); len(got) != 1 || got[0] != "session:"+sidB {
		t.Errorf("quota9: %v", got)
	}
	for _, o := range []Options{{Kinds: 1 << Saved}, {Branch: "main"}, {Since: at(-1)}} {
		if rs, _ := ix.Search(context.Background(), "quota9", o); len(rs.Items) != 0 {
			t.Errorf("quota9 %+v: %+v", o, rs.Items)
		}
	}
	if rs, _ := ix.Search(context.Background(), "quota9", Options{Kinds: 1 << Session, Branch: "fix/quota", Since: at(-4)}); len(rs.Items) != 1 {
		t.Errorf("quota9 with every filter that fits: %+v", rs.Items)
	}
}

// readBytes is what a sync read.
func readBytes(t *testing.T, ix *Index) int64 { t.Helper(); return syncAll(t, ix).Bytes }

// A transcript that grows is read from where its reading stopped: its new words are found, its
// old ones too, and nothing is read twice; one rewritten, cut short, replaced or gone is read
// again whole, and its old words are gone.
func TestHistoryIncremental(t *testing.T) {
	h := newTestHistory(t)
	a := h.session(sidA, -2)
	a.Prompt("first about the walrus9 importer")
	h.write(sidA, a.Bytes())
	ix := h.index(t.TempDir())
	defer ix.Close()
	first := int64(len(a.Bytes()))
	if n := readBytes(t, ix); n != first {
		t.Fatalf("first sync read %d bytes, want %d", n, first)
	}
	if n := readBytes(t, ix); n != 0 {
		t.Fatalf("an unchanged history read %d bytes", n)
	}
	// Appended.
	a.Reset()
	a.Prompt("then about the narwhal4 exporter")
	h.add(sidA, a.Bytes())
	if n := readBytes(t, ix); n != int64(len(a.Bytes())) {
		t.Fatalf("after an append: read %d bytes, want the %d appended", n, len(a.Bytes()))
	}
	for _, q := range []string{"walrus9", "narwhal4"} {
		if got := find(t, ix, q); len(got) != 1 {
			t.Errorf("%s: %v", q, got)
		}
	}
	// A line still being written is not read; whole, it is.
	a.Reset()
	a.Prompt("and the dugong7 loader")
	line := a.Bytes()
	h.add(sidA, line[:len(line)/2])
	syncAll(t, ix)
	if got := find(t, ix, "dugong7"); len(got) != 0 {
		t.Fatalf("a torn line was indexed: %v", got)
	}
	h.add(sidA, line[len(line)/2:])
	if n := readBytes(t, ix); n != int64(len(line)) {
		t.Fatalf("the completed line: read %d bytes, want %d", n, len(line))
	}
	if got := find(t, ix, "dugong7"); len(got) != 1 {
		t.Fatalf("the completed line: %v", got)
	}
	// Rewritten in place with the same length: read whole, the old words gone.
	data, _ := os.ReadFile(h.path(sidA))
	data = bytes.ReplaceAll(data, []byte("walrus9"), []byte("manatee"))
	f, _ := os.OpenFile(h.path(sidA), os.O_WRONLY, 0)
	f.WriteAt(data, 0)
	f.Close()
	if n := readBytes(t, ix); n != int64(len(data)) {
		t.Fatalf("rewritten: read %d bytes, want %d", n, len(data))
	}
	if got := find(t, ix, "walrus9"); len(got) != 0 {
		t.Errorf("rewritten: the old word is still found: %v", got)
	}
	if got := find(t, ix, "manatee"); len(got) != 1 {
		t.Errorf("rewritten: the new word: %v", got)
	}
	// Rewritten in place, the same length, far from the end: read whole.
	a.Reset()
	for range 40 {
		a.Read(h.p.root+"/x.txt", 1000).Say("filler about nothing")
	}
	h.add(sidA, a.Bytes())
	syncAll(t, ix)
	data, _ = os.ReadFile(h.path(sidA))
	data = bytes.ReplaceAll(data, []byte("manatee"), []byte("dolphin"))
	f, _ = os.OpenFile(h.path(sidA), os.O_WRONLY, 0)
	f.WriteAt(data, 0)
	f.Close()
	if n := readBytes(t, ix); n != int64(len(data)) {
		t.Fatalf("rewritten far from the end: read %d bytes, want %d", n, len(data))
	}
	if got := find(t, ix, "dolphin"); len(got) != 1 {
		t.Errorf("rewritten far from the end: %v", got)
	}
	// Cut short.
	os.Truncate(h.path(sidA), first)
	if n := readBytes(t, ix); n != first {
		t.Fatalf("cut short: read %d bytes, want %d", n, first)
	}
	if got := find(t, ix, "narwhal4"); len(got) != 0 {
		t.Errorf("cut short: the cut words are still found: %v", got)
	}
	// Replaced by another file that starts the same (a new inode): read whole.
	whole, _ := os.ReadFile(h.path(sidA))
	a.Reset()
	a.Prompt("and the seal2 writer")
	os.WriteFile(h.path(sidA)+".new", append(whole, a.Bytes()...), 0o600)
	os.Rename(h.path(sidA)+".new", h.path(sidA))
	if n := readBytes(t, ix); n != int64(len(whole)+len(a.Bytes())) {
		t.Fatalf("replaced: read %d bytes, want the whole %d", n, len(whole)+len(a.Bytes()))
	}
	if got := find(t, ix, "seal2"); len(got) != 1 {
		t.Errorf("replaced: %v", got)
	}
	// Gone.
	os.Remove(h.path(sidA))
	syncAll(t, ix)
	if got := find(t, ix, "seal2"); len(got) != 0 {
		t.Errorf("gone: still found: %v", got)
	}
	// What was read lives on in another process: a second index sees the same, and reads nothing.
	b := h.session(sidB, -1)
	b.Prompt("the otter3 cache")
	h.write(sidB, b.Bytes())
	syncAll(t, ix)
	other := h.index(filepath.Dir(filepath.Dir(filepath.Dir(ix.dir))))
	defer other.Close()
	if n := readBytes(t, other); n != 0 {
		t.Errorf("another process read %d bytes of an index up to date", n)
	}
	if got := find(t, other, "otter3"); len(got) != 1 {
		t.Errorf("another process: %v", got)
	}
}

// Small segments are merged as they accumulate, and what they hold stays found.
func TestHistoryMerge(t *testing.T) {
	h := newTestHistory(t)
	a := h.session(sidA, -2)
	ix := h.index(t.TempDir())
	defer ix.Close()
	words := []string{"alpha1", "bravo2", "charlie3", "delta4", "echo5", "foxtrot6", "golf7", "hotel8", "india9", "juliet10"}
	for i, w := range words {
		a.Reset()
		a.Prompt("about " + w)
		h.add(sidA, a.Bytes())
		if i == 3 { // a rewrite among the appends: its old segments' documents die
			data, _ := os.ReadFile(h.path(sidA))
			os.WriteFile(h.path(sidA)+".new", data, 0o600)
			os.Rename(h.path(sidA)+".new", h.path(sidA))
		}
		syncAll(t, ix)
		if n := len(ix.hist.segs); n > maxSmall+1 {
			t.Fatalf("after %d syncs: %d segments", i+1, n)
		}
	}
	for _, w := range words {
		if got := find(t, ix, w); len(got) != 1 {
			t.Errorf("%s: %v", w, got)
		}
	}
	names, _ := os.ReadDir(ix.dir)
	n := 0
	for _, e := range names {
		if isHistName(e.Name()) {
			n++
		}
	}
	if n != len(ix.hist.segs) {
		t.Errorf("%d segment files for %d segments: merged ones were not removed", n, len(ix.hist.segs))
	}
}

// A sync stops at its deadline, at a line's end, and says what it left; the next goes on from
// there, and together they read each byte once.
func TestHistoryBudget(t *testing.T) {
	h := newTestHistory(t)
	for i, sid := range []string{sidA, sidB} {
		s := h.session(sid, -i)
		s.Prompt("the beluga5 question")
		for range 30 {
			s.Read(h.p.root+"/big.txt", 100<<10).Say("more about beluga5")
		}
		h.write(sid, s.Bytes())
	}
	total := fileSize(h.path(sidA)) + fileSize(h.path(sidB))
	ix := h.index(t.TempDir())
	defer ix.Close()
	// A deadline already past: nothing is read, and both are pending.
	st, err := ix.SyncHistory(context.Background(), time.Nanosecond)
	if err != nil || st.Pending != 2 || st.Bytes != 0 {
		t.Fatalf("past deadline: %+v %v", st, err)
	}
	// A clock that passes the deadline at the first tick: one MiB or so of one transcript.
	calls := 0
	histClock = func() time.Time {
		calls++
		if calls > 2 { // the sync's start, the first transcript's, then the first tick
			return time.Now().Add(time.Hour)
		}
		return time.Now()
	}
	defer func() { histClock = time.Now }()
	st, err = ix.SyncHistory(context.Background(), time.Minute)
	if err != nil || st.Pending != 2 || st.Bytes < 1<<20 || st.Bytes > 1<<20+200<<10 {
		t.Fatalf("stopped at a tick: %+v %v", st, err)
	}
	part := st.Bytes
	histClock = time.Now
	st = syncAll(t, ix)
	if st.Pending != 0 || part+st.Bytes != total {
		t.Fatalf("the rest: %+v, %d + %d bytes of %d", st, part, st.Bytes, total)
	}
	rs, err := ix.Search(context.Background(), "beluga5", Options{})
	if err != nil || rs.Total != 2 || rs.History.Pending != 0 {
		t.Fatalf("%+v %v", rs, err)
	}
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// Only this project's sessions: a directory whose name starts like the project's slug holds
// another project's sessions (their cwd says so), and a link or a directory named like a
// transcript is no transcript.
func TestHistoryForeign(t *testing.T) {
	h := newTestHistory(t)
	sub := filepath.Join(h.config, "projects", project.Slug(h.p.root)+"-sub")
	other := filepath.Join(h.config, "projects", project.Slug(h.p.root)+"-old")
	os.MkdirAll(sub, 0o700)
	os.MkdirAll(other, 0o700)
	s := h.session(sidA, -1)
	s.Cwd = h.p.root + "/sub"
	s.Prompt("the puffin6 script")
	os.WriteFile(filepath.Join(sub, sidA+".jsonl"), s.Bytes(), 0o600)
	o := h.session(sidB, -1)
	o.Cwd = h.p.root + "-old"
	o.Prompt("the puffin6 script of another project")
	os.WriteFile(filepath.Join(other, sidB+".jsonl"), o.Bytes(), 0o600)
	os.Symlink(filepath.Join(other, sidB+".jsonl"), filepath.Join(h.dir, "11111111-2222-4333-8444-555566667777.jsonl"))
	os.Mkdir(filepath.Join(h.dir, "22222222-2222-4333-8444-555566667777.jsonl"), 0o700)
	ix := h.index(t.TempDir())
	defer ix.Close()
	rs, err := ix.Search(context.Background(), "puffin6", Options{Wait: true})
	if err != nil || len(rs.Items) != 1 || rs.Items[0].ID != "session:"+sidA || rs.Items[0].Cwd != h.p.root+"/sub" {
		t.Fatalf("%+v %v", rs, err)
	}
	if _, err := Show(Config{Root: h.p.root, ConfigDir: h.config, Roots: []string{h.p.root}}, "session:"+sidB); err == nil {
		t.Errorf("another project's session shows")
	}
}

// A forgotten session is never read again: its tombstone takes it out of the index, and a rebuild
// does not bring it back; show does not find it either.
func TestHistoryForgotten(t *testing.T) {
	h := newTestHistory(t)
	s := h.session(sidA, -1)
	s.Prompt("the gannet8 secret plan")
	h.write(sidA, s.Bytes())
	cache := t.TempDir()
	ix := h.index(cache)
	if got := find(t, ix, "gannet8"); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	cfg := Config{Root: h.p.root, ConfigDir: h.config, Roots: []string{h.p.root}}
	if _, err := Show(cfg, "session:"+sidA); err != nil {
		t.Fatalf("show before: %v", err)
	}
	err := tombstone.Append(safefile.Disk{Roots: []string{h.p.root}}, h.config, []tombstone.Stone{{Time: at(0), ID: "session:" + sidA, Kind: "session"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := find(t, ix, "gannet8"); len(got) != 0 {
		t.Errorf("forgotten, still found: %v", got)
	}
	ix.Close()
	os.RemoveAll(cache)
	ix = h.index(cache)
	defer ix.Close()
	if got := find(t, ix, "gannet8"); len(got) != 0 {
		t.Errorf("forgotten, found after a rebuild: %v", got)
	}
	if _, err := Show(cfg, "session:"+sidA); err == nil {
		t.Errorf("show finds a forgotten session")
	}
}

// Lines no reader expects: a line over the line cap, a file of bytes that are not JSON, a file of
// one huge line without a newline. Nothing breaks, and what can be read is.
func TestHistoryHostile(t *testing.T) {
	h := newTestHistory(t)
	s := h.session(sidA, -1)
	s.Prompt("pasted: " + strings.Repeat("kraken ", 400000)).Prompt("after the paste, the ibis1 fix")
	h.write(sidA, s.Bytes())
	h.write(sidB, bytes.Repeat([]byte("\x00\xff{\"type\":\"user\"\x01\n"), 100000))
	h.write("33333333-2222-4333-8444-555566667777", bytes.Repeat([]byte("x"), 3<<20))
	ix := h.index(t.TempDir())
	defer ix.Close()
	st := syncAll(t, ix)
	if st.Pending != 0 || st.Sessions != 3 {
		t.Fatalf("%+v", st)
	}
	for _, q := range []string{"ibis1", "kraken"} {
		if got := find(t, ix, q); len(got) != 1 || got[0] != "session:"+sidA {
			t.Errorf("%s: %v", q, got)
		}
	}
	if n := readBytes(t, ix); n != 0 {
		t.Errorf("nothing changed, read %d bytes", n)
	}
}

// A session's digest: its requests, edits, commands with how they ended, summaries, decisions and
// how to resume it, redacted.
func TestShowSession(t *testing.T) {
	h := newTestHistory(t)
	s := h.session(sidA, -1)
	s.Prompt("Fix the heron3 parser; the key is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx123456").
		Edit(h.p.root+"/internal/heron3/parse.go").
		Bash("go test ./internal/heron3/", 1, "--- FAIL: TestHeron3\n    parse_test.go:9: want 2\nFAIL").
		Compact("The user asked to fix the heron3 parser.").
		Prompt("We decided to drop the heron3 v1 endpoint.")
	h.write(sidA, s.Bytes())
	it, err := Show(Config{Root: h.p.root, ConfigDir: h.config, Roots: []string{h.p.root}}, "session:"+sidA)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Session " + sidA + ", in " + h.p.root + "\n",
		"Requests (2 typed):\n  1. Fix the heron3 parser; the key is [REDACTED]\n  2. We decided to drop the heron3 v1 endpoint.\n",
		"Files edited, most recent first (1):\n  - internal/heron3/parse.go\n",
		"  $ go test ./internal/heron3/  → exit 1: --- FAIL: TestHeron3 — parse_test.go:9: want 2\n",
		"Claude Code's summary, at its last compaction:\n  The user asked to fix the heron3 parser.\n",
		"Decisions stated:\n  - We decided to drop the heron3 v1 endpoint.\n",
		"Resume it in Claude Code: cd " + h.p.root + " && claude --resume " + sidA + "\n",
	} {
		if !strings.Contains(it.Text, want) {
			t.Errorf("digest lacks %q:\n%s", want, it.Text)
		}
	}
	if strings.Contains(it.Text, "AbCdEf") || it.Kind != Session || it.Branch != "main" || !strings.HasPrefix(it.Title, "Fix the heron3 parser") {
		t.Errorf("item: %+v", it)
	}
	for _, bad := range []string{"session:", "session:../x", "session:" + sidB} {
		if _, err := Show(Config{Root: h.p.root, ConfigDir: h.config, Roots: []string{h.p.root}}, bad); err == nil {
			t.Errorf("%s shows", bad)
		}
	}
}

// A session's branch is written to the index and printed, as a checkpoint's is: redacted first. A
// key pasted into a branch's name is in no index file, no result and no digest.
func TestHistoryBranchRedacted(t *testing.T) {
	h := newTestHistory(t)
	s := h.session(sidA, -1)
	s.Branch = "fix/sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx123456"
	s.Prompt("Tune the osprey4 retry loop.")
	h.write(sidA, s.Bytes())
	ix := h.index(t.TempDir())
	defer ix.Close()
	rs, err := ix.Search(context.Background(), "osprey4", Options{Wait: true})
	if err != nil || len(rs.Items) != 1 {
		t.Fatalf("osprey4: %v %+v", err, rs)
	}
	if strings.Contains(rs.Items[0].Branch, "AbCdEf") {
		t.Errorf("the result's branch: %q", rs.Items[0].Branch)
	}
	filepath.Walk(filepath.Dir(ix.dir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte("AbCdEfGhIjKlMnOp")) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
	it, err := Show(Config{Root: h.p.root, ConfigDir: h.config, Roots: []string{h.p.root}}, "session:"+sidA)
	if err != nil || strings.Contains(it.Branch, "AbCdEf") || strings.Contains(it.Text, "AbCdEf") {
		t.Errorf("show: %v, branch %q\n%s", err, it.Branch, it.Text)
	}
}

// A search stats the directories and the recently written transcripts, not every transcript: an
// append to a recent one, a session started, a tombstone are seen at once; an append to a
// transcript last written days ago waits for the full listing, at most fullEvery later.
func TestHistoryQuickLook(t *testing.T) {
	h := newTestHistory(t)
	old, recent := time.Now().Add(-72*time.Hour), time.Now().Add(-time.Hour)
	a := h.session(sidA, -3)
	a.Prompt("the albatross1 schedule")
	h.write(sidA, a.Bytes())
	os.Chtimes(h.path(sidA), old, old)
	b := h.session(sidB, 0)
	b.Prompt("the cormorant2 feed")
	h.write(sidB, b.Bytes())
	settle := func() { // no directory or file within the racy window: the quick look can trust them
		os.Chtimes(h.path(sidB), recent, recent)
		os.Chtimes(h.dir, recent, recent)
		os.Chtimes(filepath.Dir(h.dir), recent, recent)
	}
	settle()
	ix := h.index(t.TempDir())
	defer ix.Close()
	syncAll(t, ix)
	n := ix.hist.listings
	if got := find(t, ix, "albatross1"); len(got) != 1 || ix.hist.listings != n {
		t.Fatalf("up to date: %v, %d listings", got, ix.hist.listings-n)
	}
	// The recent transcript grows: seen.
	b.Reset()
	b.Prompt("and the cormorant2 nest")
	h.add(sidB, b.Bytes())
	settle()
	if got := find(t, ix, "nest"); len(got) != 1 {
		t.Fatalf("an append to a recent transcript: %v", got)
	}
	// The old one grows, its time left old: the quick look does not see it until the full
	// listing is due.
	a.Reset()
	a.Prompt("and the albatross1 migration")
	h.add(sidA, a.Bytes())
	os.Chtimes(h.path(sidA), old.Add(time.Second), old.Add(time.Second))
	n = ix.hist.listings
	if got := find(t, ix, "migration"); len(got) != 0 || ix.hist.listings != n {
		t.Fatalf("before the full listing is due: %v, %d listings", got, ix.hist.listings-n)
	}
	later := time.Now().Add(fullEvery + time.Minute)
	histClock = func() time.Time { return later }
	defer func() { histClock = time.Now }()
	if got := find(t, ix, "migration"); len(got) != 1 {
		t.Fatalf("after the full listing: %v", got)
	}
	histClock = time.Now
	syncAll(t, ix) // the listing's time back to now
	// A new session: its directory changed.
	c := h.session("3c4d5e6f-1111-4222-8333-444455556666", 0)
	c.Prompt("the puffin9 map")
	h.write("3c4d5e6f-1111-4222-8333-444455556666", c.Bytes())
	if got := find(t, ix, "puffin9"); len(got) != 1 {
		t.Fatalf("a new session: %v", got)
	}
	settle()
	syncAll(t, ix)
	// A tombstone.
	tombstone.Append(safefile.Disk{Roots: []string{h.p.root}}, h.config, []tombstone.Stone{{Time: at(0), ID: "session:" + sidB, Kind: "session"}})
	if got := find(t, ix, "cormorant2"); len(got) != 0 {
		t.Fatalf("a forgotten session: %v", got)
	}
}

// Without any transcript (no session ran yet: no projects directory), a search lists nothing
// again and writes nothing, until the first session's directory appears.
func TestHistoryNone(t *testing.T) {
	h := newTestHistory(t)
	os.RemoveAll(filepath.Join(h.config, "projects"))
	ix := h.index(t.TempDir())
	defer ix.Close()
	if got := find(t, ix, "anything"); len(got) != 0 {
		t.Fatal(got)
	}
	manifest := filepath.Join(ix.dir, histManifest)
	fi, err := os.Stat(manifest)
	if err != nil {
		t.Fatal(err)
	}
	n := ix.hist.listings
	find(t, ix, "anything")
	if fi2, _ := os.Stat(manifest); ix.hist.listings != n || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("a search with no history listed again (%d) or wrote the manifest", ix.hist.listings-n)
	}
	os.MkdirAll(h.dir, 0o700)
	s := h.session(sidA, 0)
	s.Prompt("the first kestrel5 session")
	h.write(sidA, s.Bytes())
	if got := find(t, ix, "kestrel5"); len(got) != 1 {
		t.Errorf("the first session: %v", got)
	}
}

// What a large sync wrote is not merged again with every few small ones after it.
func TestHistoryMergeSpares(t *testing.T) {
	h := newTestHistory(t)
	a := h.session(sidA, -2)
	for i := range 400 {
		a.Prompt(fmt.Sprintf("prompt %d about the auk%d colony and its %d nests", i, i, i*7))
	}
	h.write(sidA, a.Bytes())
	ix := h.index(t.TempDir())
	defer ix.Close()
	syncAll(t, ix)
	big := ix.hist.man.segs[0]
	for i := range 12 {
		a.Reset()
		a.Prompt(fmt.Sprintf("a small append %d", i))
		h.add(sidA, a.Bytes())
		syncAll(t, ix)
		if ix.hist.man.segs[0] != big {
			t.Fatalf("after %d small syncs the large segment was merged again", i+1)
		}
	}
	if n := len(ix.hist.segs); n > maxSmall+2 {
		t.Errorf("%d segments", n)
	}
	if got := find(t, ix, "auk17"); len(got) != 1 {
		t.Errorf("auk17: %v", got)
	}
}

// The manifest reads back what it wrote, and anything else reads as nothing, never a panic: the
// index lives in the project when there is no cache directory, where a repository can commit one.
func FuzzManifest(f *testing.F) {
	m := manifest{print: 7, complete: true, next: 3, segs: []segEntry{{1, 2, 3}, {4, 5, 6}}, full: 9, sessions: 2,
		stones: [2]int64{1, 2}, looks: []look{{"", 4096, 1}, {"-w-proj", 4096, 2}, {"-w-proj/s.jsonl", absent, 0}}}
	f.Add(m.marshal())
	f.Add(manifest{}.marshal())
	f.Add([]byte(manifestMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := unmarshalManifest(data)
		if !ok {
			return
		}
		if again := got.marshal(); !bytes.Equal(again, data) {
			t.Fatalf("%x read as %+v, written as %x", data, got, again)
		}
	})
}

// A result is read back only from one of the history's directories: a segment that names a
// transcript elsewhere under <config>/projects (as an index a repository committed could) yields
// nothing.
func TestHistoryReadsOnlyItsDirectories(t *testing.T) {
	h := newTestHistory(t)
	elsewhere := "/elsewhere/proj"
	dir := filepath.Join(h.config, "projects", project.Slug(elsewhere))
	os.MkdirAll(dir, 0o700)
	s := &transcripttest.Session{ID: sidA, Cwd: elsewhere, Branch: "main", Time: at(-1)}
	s.Prompt("the grebe7 survey of another project")
	os.WriteFile(filepath.Join(dir, sidA+".jsonl"), s.Bytes(), 0o600)
	cache := t.TempDir()
	// Indexed by an index whose history has both roots…
	both := Open(Config{Root: h.p.root, CacheDir: cache, ConfigDir: h.config, Roots: []string{h.p.root, elsewhere}})
	if got := find(t, both, "grebe7"); len(got) != 1 {
		t.Fatal(got)
	}
	both.Close()
	// …read by one whose history is the project's alone, before it syncs.
	ix := h.index(cache)
	defer ix.Close()
	rs, err := ix.run(parseQuery("grebe7"), Options{Limit: 10})
	if err != nil || len(rs.Items) != 0 {
		t.Fatalf("%+v %v", rs, err)
	}
}
