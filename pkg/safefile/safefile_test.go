package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// A torn last record (a full disk cut it short) does not swallow the next one.
func TestAppendAfterTornLine(t *testing.T) {
	root := t.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, "log.jsonl")
	os.WriteFile(p, []byte("{\"a\":1}\n{\"b\":"), 0o644)
	if err := d.Append(p, []byte("{\"c\":3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "{\"a\":1}\n{\"b\":\n{\"c\":3}\n" {
		t.Fatalf("%q", data)
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
	if n := SweepTemps(dir, time.Now()); n != 2 {
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

// What each write survives: Update, Append and Create sync what they write before it becomes
// visible; UpdateNoSync and Log do not; all of them land the same bytes.
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
		{"UpdateNoSync", func(p string) error { _, err := d.UpdateNoSync(p, 0o644, set); return err }, 0},
		{"Append", func(p string) error { return d.Append(p, []byte("x\n"), 0o644) }, 1},
		{"Log", func(p string) error { return d.Log(p, []byte("x\n"), 0o644) }, 0},
		{"Create", func(p string) error { _, err := d.Create(p, []byte("x\n"), 0o644); return err }, 1},
		{"WriteAtomic", func(p string) error { return WriteAtomic(p, []byte("x\n"), 0o644) }, 1},
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
	// UpdateNoSync is as locked and atomic as Update: concurrent increments add up.
	p := filepath.Join(root, "counter")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				d.UpdateNoSync(p, 0o644, func(old []byte, _ bool) ([]byte, error) { return append(old, 'x'), nil })
			}
		})
	}
	wg.Wait()
	if got, _ := os.ReadFile(p); len(got) != 80 {
		t.Fatalf("%d increments of 80 landed", len(got))
	}
}
