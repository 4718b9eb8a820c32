package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestUpdateAtomicAndKeepsMode(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "a", "b.txt")
	changed, err := d.Update(p, 0o600, func(old []byte, exists bool) ([]byte, error) {
		if exists || old != nil {
			t.Fatal("file should not exist")
		}
		return []byte("one\n"), nil
	})
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	os.Chmod(p, 0o640)
	d.Update(p, 0o600, func(old []byte, _ bool) ([]byte, error) { return append(old, "two\n"...), nil })
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(p)
	if string(data) != "one\ntwo\n" {
		t.Errorf("content %q", data)
	}
	// No temp files are left behind.
	ents, _ := os.ReadDir(filepath.Dir(p))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

func TestUpdateFailureLeavesFileAlone(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "f")
	os.WriteFile(p, []byte("keep"), 0o644)
	before, _ := os.Stat(p)
	if _, err := d.Update(p, 0o644, func([]byte, bool) ([]byte, error) { return nil, errors.New("boom") }); err == nil {
		t.Fatal("want error")
	}
	if changed, err := d.Update(p, 0o644, func(old []byte, _ bool) ([]byte, error) { return old, nil }); changed || err != nil {
		t.Fatal("same bytes must not write", changed, err)
	}
	after, _ := os.Stat(p)
	data, _ := os.ReadFile(p)
	if string(data) != "keep" || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("file touched")
	}
}

func writeX(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }

// A fill that fails leaves the file as it was and no temp file behind.
func TestWriteAtomicFuncFailureLeavesFileAlone(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "f")
	os.WriteFile(p, []byte("keep"), 0o644)
	err := WriteAtomicFunc(root, p, 0o600, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("y"), 200<<10)) // more than the buffer: some reached the temp file
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("want error")
	}
	if data, _ := os.ReadFile(p); string(data) != "keep" {
		t.Fatalf("file changed: %.20q", data)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

// Lock excludes: read-modify-writes of a file under it from many goroutines all land.
func TestLockExcludes(t *testing.T) {
	root := t.TempDir()
	lock := filepath.Join(root, "dir", "lock")
	counter := filepath.Join(root, "counter")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				unlock, err := Lock(root, lock)
				if err != nil {
					t.Error(err)
					return
				}
				old, _ := os.ReadFile(counter)
				os.WriteFile(counter, append(old, 'x'), 0o644)
				unlock()
			}
		})
	}
	wg.Wait()
	if got, _ := os.ReadFile(counter); len(got) != 200 {
		t.Fatalf("%d of 200 increments", len(got))
	}
	if _, err := Lock(root, filepath.Join(root, "..", "out")); err == nil {
		t.Fatal("a lock outside the tree")
	}
}

func TestConfinement(t *testing.T) {
	dir := t.TempDir()
	root, out := filepath.Join(dir, "root"), filepath.Join(dir, "out")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(out, 0o755)
	os.Symlink(out, filepath.Join(root, "link"))
	os.Symlink(filepath.Join(out, "target"), filepath.Join(root, "file-link"))
	d := Disk{Roots: []string{root}}
	write := func([]byte, bool) ([]byte, error) { return []byte("x"), nil }
	for _, p := range []string{filepath.Join(out, "f"), filepath.Join(root, "..", "out", "f"), filepath.Join(root, "link", "f"), filepath.Join(root, "file-link")} {
		if _, err := d.Update(p, 0o644, write); err == nil {
			t.Errorf("Update(%s) allowed", p)
		}
		if err := d.Append(p, []byte("x"), 0o644); err == nil {
			t.Errorf("Append(%s) allowed", p)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("wrote outside: %v", ents)
	}
}

// Parallel read-modify-writes under the lock lose nothing (run with -race).
func TestConcurrentUpdatesAndAppends(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "counter")
	log := filepath.Join(root, "log.jsonl")
	var wg sync.WaitGroup
	const n = 40
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := d.Update(p, 0o644, func(old []byte, _ bool) ([]byte, error) {
				return append(old, fmt.Sprintf("%d\n", i)...), nil
			}); err != nil {
				t.Error(err)
			}
			if err := d.Append(log, []byte(fmt.Sprintf("{\"i\":%d}\n", i)), 0o644); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	data, _ := os.ReadFile(p)
	if got := bytes.Count(data, []byte("\n")); got != n {
		t.Fatalf("%d of %d updates kept", got, n)
	}
	logData, _ := os.ReadFile(log)
	if got := bytes.Count(logData, []byte("\n")); got != n {
		t.Fatalf("%d of %d appends kept", got, n)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	d := DryRun{Out: &out, Roots: []string{root}}
	p := filepath.Join(root, "x", "new.md")
	d.Update(p, 0o644, func([]byte, bool) ([]byte, error) { return []byte("hello\n"), nil })
	d.Append(filepath.Join(root, "log"), []byte("line\n"), 0o644)
	existing := filepath.Join(root, "old.md")
	os.WriteFile(existing, []byte("a\nb\n"), 0o644)
	d.Update(existing, 0o644, func([]byte, bool) ([]byte, error) { return []byte("a\nc\n"), nil })
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Error("dry run created a directory")
	}
	if data, _ := os.ReadFile(existing); string(data) != "a\nb\n" {
		t.Error("dry run changed a file")
	}
	got := out.String()
	for _, want := range []string{"create " + p + "\nhello\n", "append " + filepath.Join(root, "log") + "\nline\n", "update " + existing, "-b\n+c\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

func TestRemoveLeavesNothing(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "session-open-x.md")
	os.WriteFile(p, []byte("x"), 0o644)
	if err := d.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(p); err != nil {
		t.Fatal("second remove:", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}

func TestCreateNeverOverwrites(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "ck", "x.md")
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ok, err := d.Create(p, []byte(fmt.Sprintf("writer %d\n", i)), 0o644)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				winners++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	data, _ := os.ReadFile(p)
	if winners != 1 || !strings.HasPrefix(string(data), "writer ") {
		t.Fatalf("%d winners, content %q", winners, data)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

// Lock files go to .claude/state/locks, never beside the files people commit.
func TestLocksAreCentral(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	for _, p := range []string{".agents/runs/r1/MEMORY.md", ".agents/runs/r1/state.json", "memory/timeline.jsonl"} {
		if _, err := d.Update(filepath.Join(root, p), 0o644, func([]byte, bool) ([]byte, error) { return []byte("x"), nil }); err != nil {
			t.Fatal(err)
		}
	}
	d.Append(filepath.Join(root, "memory/timeline.jsonl"), []byte("y\n"), 0o644)
	for _, dir := range []string{".agents/runs/r1", "memory"} {
		ents, _ := os.ReadDir(filepath.Join(root, dir))
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".lock") {
				t.Errorf("lock beside the file: %s/%s", dir, e.Name())
			}
		}
	}
	locks, _ := os.ReadDir(filepath.Join(root, LockDir))
	if len(locks) != 3 {
		t.Errorf("want 3 distinct locks, got %v", locks)
	}
}

// A writer with two roots — a linked worktree's, and its main checkout's where the shared records
// live — locks each file in the lock directory of the root it lies in, so that the writer of the
// main checkout, which has that root alone, takes the same lock; a writer let out Under another
// tree keeps its locks in the first root.
func TestLocksLiveWithTheirRoot(t *testing.T) {
	wt, main, conf := t.TempDir(), t.TempDir(), t.TempDir()
	both := Disk{Roots: []string{wt, main}}
	alone := Disk{Roots: []string{main}}
	edit := func([]byte, bool) ([]byte, error) { return []byte("x"), nil }
	for _, d := range []Disk{both, alone} {
		if _, err := d.Update(filepath.Join(main, "memory", "shared.md"), 0o644, edit); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := both.Update(filepath.Join(wt, ".claude", "state", "own.md"), 0o644, edit); err != nil {
		t.Fatal(err)
	}
	if err := both.Under(conf).Append(filepath.Join(conf, "note"), []byte("n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	names := func(root string) (out []string) {
		ents, _ := os.ReadDir(filepath.Join(root, LockDir))
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if m := names(main); len(m) != 1 || !strings.HasPrefix(m[0], "memory-shared.md-") {
		t.Errorf("main checkout's locks: %v, want the shared file's one lock for both writers", m)
	}
	if w := names(wt); len(w) != 2 {
		t.Errorf("worktree's locks: %v, want its own file's and the config note's", w)
	}
}

// A record cut at any byte by a killed writer is removed by the next append, so the log reads as
// the records that were finished, in order: the cut is injected at every byte of the record, not
// hoped for from a kill.
func TestAppendRepairsTornRecordAtEveryByte(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "log.jsonl")
	first, torn, next := "{\"a\":1}\n", "{\"b\":\"two words\",\"n\":[1,2]}\n", "{\"c\":3}\n"
	for cut := 0; cut <= len(torn); cut++ {
		os.WriteFile(p, []byte(first+torn[:cut]), 0o644)
		if err := d.Append(p, []byte(next), 0o644); err != nil {
			t.Fatal(err)
		}
		want := first + next
		if cut >= len(torn)-1 {
			want = first + torn + next // complete but for its newline: kept, and ended
		}
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Fatalf("cut at %d: %q, want %q", cut, got, want)
		}
	}
	// A last line that is not a cut record — a line a person typed — is kept and ended.
	os.WriteFile(p, []byte(first+"a note without a newline"), 0o644)
	d.Append(p, []byte(next), 0o644)
	if got, _ := os.ReadFile(p); string(got) != first+"a note without a newline\n"+next {
		t.Fatalf("%q", got)
	}
}

func TestTornTail(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"{\"a\":1}\n", 0},
		{"{\"a\":1}", 0},                           // complete: only its newline is missing
		{"{\"a\":1}\n{\"b\":", 5},                  // cut mid-record
		{"{\"a\":1}\n  {\"b", 5},                   // leading blanks belong to the torn line
		{"{\"a\":1}\nnote {", 0},                   // a line a person typed
		{"{\"a\":", 5},                             // the only line, cut
		{"x\n{\"a\":\"\xff", len("{\"a\":\"\xff")}, // bytes that are not UTF-8: still torn
	} {
		if got := TornTail([]byte(c.in)); got != c.want {
			t.Errorf("TornTail(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestAppendRotates(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "cairn.log")
	for i := 0; i < 10; i++ {
		d.Append(p, []byte("0123456789\n"), 0o600, NoSync, RotateAt(50))
	}
	cur, _ := os.ReadFile(p)
	old, _ := os.ReadFile(p + ".1")
	if len(cur) > 61 || len(old) == 0 || len(cur)+len(old) > 110 {
		t.Fatalf("current %d bytes, rotated %d", len(cur), len(old))
	}
}

// A directory symlinked out of the project is never written, swept or rotated through.
func TestNothingOutsideThroughSymlinkedDirs(t *testing.T) {
	dir := t.TempDir()
	root, out := filepath.Join(dir, "root"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	os.MkdirAll(out, 0o755)
	os.Symlink(out, filepath.Join(root, ".claude", "state"))
	old := time.Now().Add(-2 * time.Hour)
	for _, n := range []string{".x.tmp1", "cairn.log"} {
		os.WriteFile(filepath.Join(out, n), []byte(strings.Repeat("x", 100)), 0o644)
		os.Chtimes(filepath.Join(out, n), old, old)
	}
	d := Disk{Roots: []string{root}}
	state := filepath.Join(root, ".claude", "state")
	if n := SweepTemps(root, state, time.Now()); n != 0 {
		t.Errorf("swept %d outside", n)
	}
	if err := d.Append(filepath.Join(state, "cairn.log"), []byte("x\n"), 0o600, RotateAt(10)); err == nil {
		t.Error("appended outside")
	}
	if _, err := d.Update(filepath.Join(state, "f"), 0o644, func([]byte, bool) ([]byte, error) { return []byte("x"), nil }); err == nil {
		t.Error("updated outside")
	}
	if _, err := d.Create(filepath.Join(state, "g"), []byte("x"), 0o644); err == nil {
		t.Error("created outside")
	}
	if err := d.Remove(filepath.Join(state, "cairn.log")); err == nil {
		t.Error("removed outside")
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 2 {
		t.Errorf("outside changed: %v", ents)
	}
}

func TestSweepTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{".MEMORY.md.tmp123", ".x.tmp9", "keep.tmp1", ".fresh.md.tmp77", ".notemp.md", ".a.tmpx"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("x"), 0o644)
		if name != ".fresh.md.tmp77" {
			os.Chtimes(p, old, old)
		}
	}
	if n := SweepTemps(dir, dir, time.Now()); n != 2 {
		t.Fatalf("removed %d", n)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if strings.Join(left, " ") != ".a.tmpx .fresh.md.tmp77 .notemp.md keep.tmp1" {
		t.Fatalf("left %v", left)
	}
}

// NoSyncWhereOrdered skips the fsync only when a file is replaced on a file system that orders
// the rename after the data; a new file, or another file system, is synced as always.
func TestNoSyncWhereOrdered(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	syncs := 0
	origSync, origOrdered := syncFile, orderedReplace
	syncFile = func(f *os.File) error { syncs++; return origSync(f) }
	t.Cleanup(func() { syncFile, orderedReplace = origSync, origOrdered })
	for _, c := range []struct {
		name            string
		exists, ordered bool
		want            int
	}{
		{"replaced, ordered", true, true, 0},
		{"replaced, not ordered", true, false, 1},
		{"created, ordered", false, true, 1},
	} {
		p := filepath.Join(root, strings.ReplaceAll(c.name, " ", ""))
		if c.exists {
			os.WriteFile(p, []byte("old\n"), 0o644)
		}
		orderedReplace = func(*os.File) bool { return c.ordered }
		syncs = 0
		if _, err := d.Update(p, 0o644, func([]byte, bool) ([]byte, error) { return []byte("x\n"), nil }, NoSyncWhereOrdered); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != "x\n" || syncs != c.want {
			t.Errorf("%s: wrote %q with %d syncs, want %d", c.name, got, syncs, c.want)
		}
	}
	// The real answer for the test's own directory does not fail (ext4 or btrfs says yes).
	f, err := os.Create(filepath.Join(root, "probe"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s orders a replacing rename: %v", root, origOrdered(f))
	f.Close()
}

// What each write survives: Update, Append and Create sync what they write before it becomes
// visible; with NoSync, Update and Append do not; all of them land the same bytes.
func TestWhatSyncs(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	syncs := 0
	orig := syncFile
	syncFile = func(f *os.File) error { syncs++; return orig(f) }
	t.Cleanup(func() { syncFile = orig })
	set := func([]byte, bool) ([]byte, error) { return []byte("x\n"), nil }
	for _, c := range []struct {
		name  string
		write func(p string) error
		want  int
	}{
		{"Update", func(p string) error { _, err := d.Update(p, 0o644, set); return err }, 1},
		{"Update NoSync", func(p string) error { _, err := d.Update(p, 0o644, set, NoSync); return err }, 0},
		{"Append", func(p string) error { return d.Append(p, []byte("x\n"), 0o644) }, 1},
		{"Append NoSync", func(p string) error { return d.Append(p, []byte("x\n"), 0o644, NoSync) }, 0},
		{"Create", func(p string) error { _, err := d.Create(p, []byte("x\n"), 0o644); return err }, 1},
		{"WriteAtomic", func(p string) error { return WriteAtomic(root, p, []byte("x\n"), 0o644) }, 1},
		{"WriteAtomicFunc", func(p string) error { return WriteAtomicFunc(root, p, 0o644, writeX) }, 1},
		{"WriteAtomicFunc NoSync", func(p string) error { return WriteAtomicFunc(root, p, 0o644, writeX, NoSync) }, 0},
	} {
		syncs = 0
		p := filepath.Join(root, c.name)
		if err := c.write(p); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got, _ := os.ReadFile(p); string(got) != "x\n" || syncs != c.want {
			t.Errorf("%s: wrote %q with %d syncs, want %q with %d", c.name, got, syncs, "x\n", c.want)
		}
	}
	// Update with NoSync is as locked and atomic as Update: concurrent increments add up.
	incrementsAddUp(t, d, filepath.Join(root, "counter"), NoSync)
}

// incrementsAddUp runs 80 increments of the file at p, from 8 goroutines, through d's Update with
// opts, and fails t unless all 80 landed.
func incrementsAddUp(t *testing.T, d Disk, p string, opts ...Option) {
	t.Helper()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				d.Update(p, 0o644, func(old []byte, _ bool) ([]byte, error) { return append(old, 'x'), nil }, opts...)
			}
		})
	}
	wg.Wait()
	if got, _ := os.ReadFile(p); len(got) != 80 {
		t.Fatalf("%d increments of 80 landed", len(got))
	}
}

// TestUpdateRecheck: with Recheck, a write by a program that takes no cairn lock, landing while
// Update edits, is not overwritten: Update starts over from it. Without Recheck the last rename
// wins and that write is lost; a file that keeps changing makes Update give up with ErrChanged,
// leaving the other program's version and no temp file.
func TestUpdateRecheck(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "MEMORY.md")
	foreign := func(s string) {
		tmp := p + ".theirs"
		if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
	dropB := func(calls *int, writeOnCall int, theirs string) Edit {
		return func(old []byte, _ bool) ([]byte, error) {
			*calls++
			if *calls == writeOnCall {
				foreign(theirs) // the other program writes after Update has read
			}
			return bytes.ReplaceAll(old, []byte("b\n"), nil), nil
		}
	}

	os.WriteFile(p, []byte("a\nb\n"), 0o644)
	calls := 0
	changed, err := d.Update(p, 0o644, dropB(&calls, 1, "a\nb\nc\n"), Recheck)
	if err != nil || !changed || calls != 2 {
		t.Fatalf("changed %v, err %v, edit called %d times; want true, nil, 2", changed, err, calls)
	}
	if got, _ := os.ReadFile(p); string(got) != "a\nc\n" {
		t.Errorf("with Recheck: %q, want the other program's line kept and b removed", got)
	}

	os.WriteFile(p, []byte("a\nb\n"), 0o644)
	calls = 0
	if _, err := d.Update(p, 0o644, dropB(&calls, 1, "a\nb\nc\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "a\n" {
		t.Errorf("without Recheck: %q, want the last rename (cairn's) to win", got)
	}

	os.WriteFile(p, []byte("a\nb\n"), 0o644)
	n := 0
	_, err = d.Update(p, 0o644, func(old []byte, _ bool) ([]byte, error) {
		n++
		foreign(fmt.Sprintf("a\nb\nc%d\n", n))
		return bytes.ReplaceAll(old, []byte("b\n"), nil), nil
	}, Recheck)
	if !errors.Is(err, ErrChanged) || n != maxRechecks+1 {
		t.Fatalf("err %v after %d edits; want ErrChanged after %d", err, n, maxRechecks+1)
	}
	if got, _ := os.ReadFile(p); string(got) != fmt.Sprintf("a\nb\nc%d\n", n) {
		t.Errorf("after giving up: %q, want the other program's last version", got)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

// A sweep is due once an hour per project: the first call says yes and stamps the time, the
// next within the hour no, one after it yes again; a stamp from the future does not hold it off.
func TestSweepDue(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if !SweepDue(root, now) {
		t.Fatal("the first sweep is not due")
	}
	if SweepDue(root, now.Add(30*time.Minute)) {
		t.Error("a sweep half an hour after the last is due")
	}
	if !SweepDue(root, now.Add(61*time.Minute)) {
		t.Error("a sweep an hour after the last is not due")
	}
	if !SweepDue(root, now.Add(-24*time.Hour)) {
		t.Error("a stamp in the future held the sweep off")
	}
}

// A file replaced with NoSync swaps names with its new version instead of being renamed over
// (where Linux can: on amd64 and arm64), which skips the writeback ext4 starts inside a
// replacing rename; readers see the old content or the new, the temp name is gone after, and a
// new file, or one written with an fsync, is renamed as before. Concurrent replacements by
// swapping still add up.
func TestNoSyncReplaceSwapsNames(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	var swaps, swapped atomic.Int32 // the increments below run in goroutines
	orig := swapNames
	swapNames = func(r *os.Root, tmp, rel string) (bool, error) {
		swaps.Add(1)
		ok, err := orig(r, tmp, rel)
		if ok {
			swapped.Add(1)
		}
		return ok, err
	}
	t.Cleanup(func() { swapNames = orig })
	set := func(s string) Edit { return func([]byte, bool) ([]byte, error) { return []byte(s), nil } }
	p := filepath.Join(root, "f")
	for _, c := range []struct {
		name  string
		write func() error
		swaps int
	}{
		{"a new file", func() error { _, err := d.Update(p, 0o600, set("one\n"), NoSync); return err }, 0},
		{"a replaced file", func() error { _, err := d.Update(p, 0o600, set("two\n"), NoSync); return err }, 1},
		{"synced", func() error { _, err := d.Update(p, 0o600, set("three\n")); return err }, 0},
		{"WriteAtomicFunc", func() error { return WriteAtomicFunc(root, p, 0o600, writeX, NoSync) }, 1},
	} {
		swaps.Store(0)
		if err := c.write(); err != nil || int(swaps.Load()) != c.swaps {
			t.Errorf("%s: %v, %d swaps, want %d", c.name, err, swaps.Load(), c.swaps)
		}
	}
	if got, _ := os.ReadFile(p); string(got) != "x\n" {
		t.Errorf("content %q", got)
	}
	if runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") && swapped.Load() == 0 {
		t.Error("no replacement swapped names on Linux")
	}
	if tmps, _ := filepath.Glob(filepath.Join(root, ".*.tmp*")); len(tmps) != 0 {
		t.Errorf("temp files left: %v", tmps)
	}
	incrementsAddUp(t, d, filepath.Join(root, "counter"), NoSync)
}
