//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// What a cloned repository can put at a state path — a FIFO, a link to /dev/zero or out of the
// project, a directory — is refused at once: no read blocks, none leaves the tree, none is
// unbounded.
func TestReadRefusesHostileFiles(t *testing.T) {
	t.Run("fast path", testReadRefusesHostileFiles)
	t.Run("os.Root", func(t *testing.T) {
		withoutFastOpen(t)
		testReadRefusesHostileFiles(t)
	})
}

func testReadRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("outside"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.Symlink("/dev/zero", filepath.Join(root, "zero"))
	os.Symlink(filepath.Join(dir, "secret"), filepath.Join(root, "abs-out"))
	os.Symlink("../secret", filepath.Join(root, "rel-out"))
	os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "abs-in"))
	os.Symlink("fifo", filepath.Join(root, "to-fifo"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"fifo", "to-fifo", "sub"} {
			if _, _, err := ReadFile(root, name, 1<<20); !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: %v, want ErrNotRegular", name, err)
			}
		}
		for _, name := range []string{"zero", "abs-out", "rel-out", "abs-in/x", "../secret", filepath.Join(dir, "secret")} {
			if data, _, err := ReadFile(root, name, 1<<20); err == nil {
				t.Errorf("%s: read %q", name, data)
			}
		}
		if _, _, err := ReadLoose(filepath.Join(root, "fifo"), 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadLoose(fifo): %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a read blocked")
	}
}

// A FIFO where a directory belongs — a tree's own directory, a directory on the way to a file,
// the lock directory — fails every operation at once. os.Root opens the last component of a
// name without O_DIRECTORY or O_NONBLOCK, so opening such a FIFO as a directory used to block
// until a writer came: every hook of a project with a FIFO at .claude or memory hung.
func TestNoBlockOnFIFODirectory(t *testing.T) {
	t.Run("fast path", testNoBlockOnFIFODirectory)
	t.Run("os.Root", func(t *testing.T) {
		withoutFastOpen(t)
		testNoBlockOnFIFODirectory(t)
	})
}

func testNoBlockOnFIFODirectory(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"fifo", "locks-root/.claude/state/locks"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
		if err := syscall.Mkfifo(filepath.Join(root, name), 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	fifo := filepath.Join(root, "fifo")
	d := Disk{Roots: []string{root}}
	edit := func([]byte, bool) ([]byte, error) { return []byte("x\n"), nil }
	ops := map[string]func() error{
		"ReadDir":           func() error { _, _, err := ReadDir(root, "fifo", 10); return err },
		"ReadDir of a tree": func() error { _, _, err := ReadDir(fifo, fifo, 10); return err },
		"ReadFile below":    func() error { _, _, err := ReadFile(root, "fifo/x", 10); return err },
		"Stat below":        func() error { _, err := Stat(root, "fifo/x"); return err },
		"Update below":      func() error { _, err := d.Update(filepath.Join(fifo, "x"), 0o644, edit); return err },
		"Append below":      func() error { return d.Append(filepath.Join(fifo, "x"), []byte("x\n"), 0o644) },
		"Create below":      func() error { _, err := d.Create(filepath.Join(fifo, "x"), []byte("x"), 0o644); return err },
		"Remove below":      func() error { return d.Remove(filepath.Join(fifo, "x")) },
		"SweepTemps": func() error {
			if SweepTemps(root, "fifo", time.Now()) != 0 {
				return errors.New("swept something")
			}
			return errors.New("nothing swept")
		},
		"OpenDirLoose": func() error { _, err := OpenDirLoose(fifo); return err },
		// A FIFO where the lock directory belongs is moved aside (TestLockDirHeals): the write
		// succeeds without blocking, and the lock directory is one again.
		"lock directory": func() error {
			lr := filepath.Join(root, "locks-root")
			if _, err := (Disk{Roots: []string{lr}}).Update(filepath.Join(lr, "f"), 0o644, edit); err != nil {
				return nil // reported below as "no error": the write should have succeeded
			}
			if fi, err := os.Lstat(filepath.Join(lr, filepath.FromSlash(LockDir))); err != nil || !fi.IsDir() {
				return nil
			}
			return errors.New("healed")
		},
	}
	for name, op := range ops {
		done := make(chan error, 1)
		go func() { done <- op() }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s through a FIFO: no error", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: blocked on a FIFO where a directory belongs", name)
		}
	}
}

// LstatNames stats each name of one directory without following a link at it, and refuses a
// name that is not one component.
func TestLstatNames(t *testing.T) {
	t.Run("fast path", testLstatNames)
	t.Run("os.Root", func(t *testing.T) {
		withoutFastOpen(t)
		testLstatNames(t)
	})
}

func testLstatNames(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "b"))
	infos, errs := LstatNames(dir, []string{"a", "b", "missing", "../a", "sub/a", ".."})
	if errs[0] != nil || !infos[0].Mode().IsRegular() || infos[0].Size() != 1 {
		t.Errorf("a: %v %v", infos[0], errs[0])
	}
	if errs[1] != nil || infos[1].Mode()&fs.ModeSymlink == 0 {
		t.Errorf("b, a link, was followed: %v %v", infos[1], errs[1])
	}
	if !errors.Is(errs[2], fs.ErrNotExist) {
		t.Errorf("missing: %v", errs[2])
	}
	for i := 3; i < 6; i++ {
		if !errors.Is(errs[i], ErrOutside) {
			t.Errorf("name %d: %v, want ErrOutside", i, errs[i])
		}
	}
}
