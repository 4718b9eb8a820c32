package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/parking"
)

// clock is a test's clock, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openAt(p *testProject, cache string, clk *clock) *Index {
	return Open(Config{Root: p.root, CacheDir: cache, Now: clk.now})
}

func mustSync(t *testing.T, ix *Index) SyncStats {
	t.Helper()
	st, err := ix.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Unstored != nil {
		t.Fatalf("not stored: %v", st.Unstored)
	}
	return st
}

// ids returns the ids a search finds, best first.
func ids(t *testing.T, ix *Index, q string, o Options) []string {
	t.Helper()
	o.Limit = 100
	rs, err := ix.Search(context.Background(), q, o)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	var out []string
	for _, r := range rs.Items {
		out = append(out, r.ID)
	}
	return out
}

func has(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func saved(p *testProject, days int, title, summary string) string {
	return p.checkpoint(checkpoint.Entry{Title: title, Branch: "main", Time: at(days), Sections: checkpoint.Sections{Summary: summary}}, "")
}

func TestLocation(t *testing.T) {
	tree, dir := Location("/home/me/my proj", "/home/me/.cache")
	if tree != "/home/me/.cache/cairn/search" || !strings.HasPrefix(dir, tree+"/") || len(filepath.Base(dir)) != 16+1+len("my-proj") || !strings.HasSuffix(dir, "-my-proj") {
		t.Errorf("cache: %s %s", tree, dir)
	}
	if _, other := Location("/home/me/other/my proj", "/home/me/.cache"); other == dir {
		t.Error("two projects share an index")
	}
	if tree, dir := Location("/p", ""); tree != "/p" || dir != "/p/.claude/cairn/search" {
		t.Errorf("fallback: %s %s", tree, dir)
	}
	// The fallback inside the project keeps itself out of git.
	p := newTestProject(t)
	saved(p, 0, "one", "alpha")
	ix := Open(Config{Root: p.root})
	defer ix.Close()
	mustSync(t, ix)
	gi, err := os.ReadFile(filepath.Join(p.root, ".claude", "cairn", "search", ".gitignore"))
	if err != nil || !strings.HasSuffix(string(gi), "\n*\n") {
		t.Fatalf(".gitignore: %q %v", gi, err)
	}
	if got := ids(t, ix, "alpha", Options{}); len(got) != 1 {
		t.Fatal(got)
	}
	// The constants name the files the owning packages name.
	for _, c := range [][2]string{
		{filepath.Join(p.root, auditRel), parking.AuditPath(p.root)},
		{filepath.Join(p.root, legacyAuditRel), parking.LegacyAuditPath(p.root)},
	} {
		if c[0] != c[1] {
			t.Errorf("%s != %s", c[0], c[1])
		}
	}
}

// After the first build, a sync indexes only what changed: a new checkpoint, the lines
// appended to a log, a checkpoint removed; the base stays as it was.
func TestIncrementalUpdate(t *testing.T) {
	p := newTestProject(t)
	clk := &clock{t: time.Now().Add(time.Hour)}
	cache := t.TempDir()
	first := saved(p, -3, "first", "alpha beta")
	p.audit(at(-2), "old-item", parking.ActionArchived, "- **old-item** — gamma")
	p.event(at(-2), map[string]string{"event": "session_start", "session": "s1", "branch": "main", "source": "startup"})
	ix := openAt(p, cache, clk)
	defer ix.Close()
	if st := mustSync(t, ix); !st.Rebuilt || st.Docs != 3 {
		t.Fatalf("first build: %+v", st)
	}
	if st := mustSync(t, ix); st != (SyncStats{}) {
		t.Fatalf("nothing changed: %+v", st)
	}
	base, _ := os.Stat(filepath.Join(ix.dir, baseName))

	second := saved(p, -1, "second", "alpha delta")
	if st := mustSync(t, ix); st.Rebuilt || st.Changed != 1 || st.Docs != 1 {
		t.Fatalf("a new checkpoint: %+v", st)
	}
	if got := ids(t, ix, "alpha", Options{}); len(got) != 2 || got[0] != second || got[1] != first {
		t.Fatalf("alpha: %v", got)
	}

	// Appended lines: only they are indexed; a line without its newline waits.
	id1 := p.audit(at(-1), "new-item", parking.ActionExpired, "- **new-item** — epsilon")
	p.appendFile(auditRel, `{"ts":"2026-11-19T12:00:00Z","item":"half","action":"archived","text":"zeta`)
	if st := mustSync(t, ix); st.Rebuilt || st.Docs != 2 { // the new checkpoint again, and one line
		t.Fatalf("appended: %+v", st)
	}
	if got := ids(t, ix, "epsilon", Options{}); len(got) != 1 || got[0] != id1 {
		t.Fatalf("epsilon: %v", got)
	}
	if got := ids(t, ix, "zeta", Options{}); len(got) != 0 {
		t.Fatalf("half a line indexed: %v", got)
	}
	p.appendFile(auditRel, "\"}\n")
	if got := ids(t, ix, "zeta", Options{}); len(got) != 1 || !strings.HasPrefix(got[0], "archived:") {
		t.Fatalf("the finished line: %v", got)
	}
	if got := ids(t, ix, "gamma", Options{}); len(got) != 1 {
		t.Fatalf("the old line: %v", got)
	}
	p.event(at(0), map[string]string{"event": "session_end", "session": "s1", "reason": "other"})
	if got := ids(t, ix, "session_end", Options{Kinds: 1 << Timeline}); len(got) != 1 {
		t.Fatalf("timeline: %v", got)
	}

	// A removed checkpoint is gone from the results.
	os.Remove(filepath.Join(checkpoint.Dir(p.root), first+".md"))
	if got := ids(t, ix, "alpha", Options{}); len(got) != 1 || got[0] != second {
		t.Fatalf("after removal: %v", got)
	}
	after, _ := os.Stat(filepath.Join(ix.dir, baseName))
	if !after.ModTime().Equal(base.ModTime()) || after.Size() != base.Size() {
		t.Fatal("the base was rewritten")
	}
	if _, err := os.Stat(filepath.Join(ix.dir, deltaName)); err != nil {
		t.Fatal("no delta:", err)
	}
	// Another process opening the same index sees the same.
	ix2 := openAt(p, cache, clk)
	defer ix2.Close()
	if st := mustSync(t, ix2); st != (SyncStats{}) {
		t.Fatalf("second process: %+v", st)
	}
	if got := ids(t, ix2, "alpha", Options{}); len(got) != 1 || got[0] != second {
		t.Fatalf("second process: %v", got)
	}

	// Once the changes outgrow an eighth of the base, the base is rebuilt and the delta dropped.
	for i := range 300 {
		saved(p, -1, fmt.Sprintf("bulk %d", i), strings.Repeat("bulk words here ", 100))
	}
	if st := mustSync(t, ix); !st.Rebuilt {
		t.Fatalf("bulk: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(ix.dir, deltaName)); !os.IsNotExist(err) {
		t.Fatal("delta kept after a rebuild")
	}
	if got := ids(t, ix, "alpha", Options{}); len(got) != 1 {
		t.Fatalf("after the rebuild: %v", got)
	}
}

// A checkpoint edited in place (its directory's mtime unchanged) is seen at the next full
// sweep; a log rewritten rather than appended to is indexed again whole.
func TestEditsInPlace(t *testing.T) {
	p := newTestProject(t)
	clk := &clock{t: time.Now().Add(time.Hour)}
	name := saved(p, -3, "edited", "original words")
	p.audit(at(-2), "item-a", parking.ActionArchived, "first text")
	ix := openAt(p, cache(t), clk)
	defer ix.Close()
	mustSync(t, ix)
	path := filepath.Join(checkpoint.Dir(p.root), name+".md")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte("original"), []byte("replaced"), 1), 0o644)
	if got := ids(t, ix, "replaced", Options{}); len(got) != 0 {
		t.Fatalf("seen before the sweep (fine, but unexpected): %v", got)
	}
	clk.add(fullEvery + time.Second)
	if got := ids(t, ix, "replaced", Options{}); len(got) != 1 {
		t.Fatalf("after the sweep: %v", got)
	}
	if got := ids(t, ix, "original", Options{}); len(got) != 0 {
		t.Fatalf("the old text: %v", got)
	}

	// The log is rewritten with other lines and grows: its start no longer matches.
	logPath := filepath.Join(p.root, auditRel)
	os.WriteFile(logPath, nil, 0o644)
	p.audit(at(-1), "item-b", parking.ActionArchived, "second text that is longer than the first one was")
	if got := ids(t, ix, "text", Options{}); len(got) != 1 || !strings.Contains(got[0], "item-b") {
		t.Fatalf("rewritten log: %v", got)
	}
}

func cache(t *testing.T) string { return t.TempDir() }

// Whatever happens to the index files, a search gives the right answer (rebuilding as needed),
// and Show never needed them.
func TestDamageRebuilds(t *testing.T) {
	p := newTestProject(t)
	want := saved(p, -3, "kept", "needle in the haystack")
	for i := range 20 {
		saved(p, -4, fmt.Sprintf("other %d", i), "hay and more hay")
	}
	p.audit(at(-1), "item", parking.ActionArchived, "needle archived")
	dir := t.TempDir()
	clk := &clock{t: time.Now().Add(time.Hour)}
	build := func() *Index {
		ix := openAt(p, dir, clk)
		mustSync(t, ix)
		return ix
	}
	ix := build()
	basePath := filepath.Join(ix.dir, baseName)
	good, _ := os.ReadFile(basePath)
	ix.Close()
	seg, err := decodeSegment(good)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := seg.find("needle")
	post := seg.h.off[secPost] + uint64(seg.u32(seg.h.off[secTerms]+uint64(i)*termRec+4)) // needle's postings
	for _, c := range []struct {
		name   string
		damage func()
		sweep  bool // only the periodic full sweep's checksum can see it
	}{
		{"missing", func() { os.Remove(basePath) }, false},
		{"truncated", func() { os.WriteFile(basePath, good[:1000], 0o600) }, false},
		{"empty", func() { os.WriteFile(basePath, nil, 0o600) }, false},
		{"garbage", func() { os.WriteFile(basePath, bytes.Repeat([]byte("garbage!"), 2000), 0o600) }, false},
		{"old version", func() {
			b := bytes.Clone(good)
			b[8] = 99
			os.WriteFile(basePath, b, 0o600)
		}, false},
		{"postings overwritten", func() {
			b := bytes.Clone(good)
			copy(b[post:], bytes.Repeat([]byte{0xff}, 4))
			os.WriteFile(basePath, b, 0o600)
		}, false},
		{"a flipped bit", func() {
			b := bytes.Clone(good)
			b[seg.h.off[secStr]+3] ^= 0x20 // a title's letter: structure intact
			os.WriteFile(basePath, b, 0o600)
		}, true},
		{"directory", func() { os.Remove(basePath); os.Mkdir(basePath, 0o700) }, false},
		{"garbage delta", func() {
			os.WriteFile(filepath.Join(filepath.Dir(basePath), deltaName), []byte("CAIRNIDXgarbage"), 0o600)
		}, false},
		{"garbage stamp", func() {
			os.WriteFile(filepath.Join(filepath.Dir(basePath), stampName), bytes.Repeat([]byte{1}, stampLen), 0o600)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(basePath)
			os.WriteFile(basePath, good, 0o600)
			c.damage()
			if c.sweep {
				clk.add(fullEvery + time.Second)
			}
			ix := openAt(p, dir, clk)
			defer ix.Close()
			got := ids(t, ix, "needle", Options{})
			if len(got) != 2 || got[0] != want {
				t.Fatalf("needle: %v", got)
			}
			if ix.base == nil || !ix.base.verify() {
				t.Fatal("not rebuilt")
			}
			if c.name == "directory" {
				return // a directory where the base goes: the index lives in memory
			}
			if again, _ := os.ReadFile(basePath); !bytes.Equal(again, good) {
				t.Fatalf("rebuilt base differs from the original (%d vs %d bytes)", len(again), len(good))
			}
		})
	}
}

// An index that cannot be written is built in memory and still answers.
func TestUnstoredSearches(t *testing.T) {
	p := newTestProject(t)
	want := saved(p, -1, "mem", "memory only")
	clk := &clock{t: time.Now().Add(time.Hour)}
	dir := t.TempDir()
	_, idir := Location(p.root, dir)
	os.MkdirAll(filepath.Join(idir, baseName), 0o700) // a directory where the base goes
	ix := openAt(p, dir, clk)
	defer ix.Close()
	st, err := ix.Sync(context.Background())
	if err != nil || st.Unstored == nil {
		t.Fatalf("%+v %v", st, err)
	}
	if got := ids(t, ix, "memory", Options{}); len(got) != 1 || got[0] != want {
		t.Fatal(got)
	}
	second := saved(p, 0, "mem two", "memory again")
	if got := ids(t, ix, "memory", Options{}); len(got) != 2 || got[0] != second {
		t.Fatal(got)
	}
}

// Builders racing on one index directory (processes, here goroutines with an Index each) never
// leave it torn: every search is right, and so is a fresh one afterwards.
func TestConcurrentBuilders(t *testing.T) {
	p := newTestProject(t)
	for i := range 50 {
		saved(p, -10, fmt.Sprintf("seed %d", i), "common words")
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	var mu sync.Mutex
	written := 50
	for w := range 4 {
		wg.Go(func() {
			for i := range 10 {
				if w == 0 { // one writer adds checkpoints meanwhile
					saved(p, -5, fmt.Sprintf("added %d", i), "common words")
					mu.Lock()
					written++
					mu.Unlock()
				}
				ix := Open(Config{Root: p.root, CacheDir: dir, Now: time.Now})
				mu.Lock()
				atLeast := written
				mu.Unlock()
				rs, err := ix.Search(context.Background(), "common", Options{Limit: 1000})
				ix.Close()
				if err != nil {
					errs <- err
					return
				}
				if rs.Total < atLeast && w == 0 { // the writer sees what it saved
					errs <- fmt.Errorf("writer %d: %d results, want at least %d", w, rs.Total, atLeast)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ix := Open(Config{Root: p.root, CacheDir: dir, Now: func() time.Time { return time.Now().Add(time.Hour) }})
	defer ix.Close()
	rs, err := ix.Search(context.Background(), "common", Options{Limit: 1000})
	if err != nil || rs.Total != 60 {
		t.Fatalf("after the race: %d results, %v", rs.Total, err)
	}
	if !ix.base.verify() || ix.delta != nil && !ix.delta.verify() {
		t.Fatal("a torn segment")
	}
}

// A checkpoint read within the racy window of its mtime may change again without its mtime or
// size moving (written in place, in the same clock tick): it is read again once it is old
// enough, without waiting for the full sweep.
func TestRacyCheckpoint(t *testing.T) {
	p := newTestProject(t)
	saved(p, -2, "settled", "settled words")
	name := saved(p, -1, "fresh", "alpha words")
	path := filepath.Join(checkpoint.Dir(p.root), name+".md")
	fi, _ := os.Stat(path)
	clk := &clock{t: fi.ModTime().Add(10 * time.Millisecond)} // just after the write
	ix := openAt(p, t.TempDir(), clk)
	defer ix.Close()
	if got := ids(t, ix, "alpha", Options{}); len(got) != 1 {
		t.Fatalf("alpha: %v", got)
	}
	// Rewritten in place, same size, same mtime: nothing a stat can see.
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte("alpha"), []byte("gamma"), 1), 0o644)
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	clk.add(time.Second)
	if got := ids(t, ix, "gamma", Options{}); len(got) != 1 || got[0] != name {
		t.Fatalf("gamma: %v", got)
	}
	if got := ids(t, ix, "alpha", Options{}); len(got) != 0 {
		t.Fatalf("alpha still: %v", got)
	}
	// Once read again, it is settled: a search takes no listing.
	if st := mustSync(t, ix); st != (SyncStats{}) {
		t.Fatalf("settled: %+v", st)
	}
}
