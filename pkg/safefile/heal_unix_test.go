//go:build unix

package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A lock directory that is not one — a file, a FIFO or a link a clone committed — is moved aside
// at the first locked write, which then succeeds, and the repair is reported once; what a link
// pointed to is untouched.
func TestLockDirHeals(t *testing.T) {
	outside := t.TempDir()
	for name, plant := range map[string]func(p string) error{
		"file":    func(p string) error { return os.WriteFile(p, []byte("committed"), 0o644) },
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"symlink": func(p string) error { return os.Symlink(outside, p) },
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			locks := filepath.Join(root, filepath.FromSlash(LockDir))
			os.MkdirAll(filepath.Dir(locks), 0o755)
			if err := plant(locks); err != nil {
				t.Skip(err)
			}
			var repairs []string
			d := Disk{Roots: []string{root}, Repaired: func(w string) { repairs = append(repairs, w) }}
			p := filepath.Join(root, "state.json")
			for range 2 {
				if _, err := d.Update(p, 0o644, func([]byte, bool) ([]byte, error) { return []byte("{}\n"), nil }); err != nil {
					t.Fatal(err)
				}
			}
			if fi, err := os.Lstat(locks); err != nil || !fi.IsDir() {
				t.Fatalf("the lock directory is not one again: %v %v", fi, err)
			}
			if len(repairs) != 1 || !strings.Contains(repairs[0], "moved aside") {
				t.Fatalf("repairs reported: %q", repairs)
			}
			aside, _ := filepath.Glob(filepath.Join(filepath.Dir(locks), ".locks.broken-*"))
			if len(aside) != 1 {
				t.Fatalf("moved aside: %v", aside)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("a lock went through the link: %v", entries)
			}
		})
	}
}

// Writers of one process that meet the broken lock directory at once (SessionEnd ends the session
// in the registry while the parked items expire beside it) repair it once between them, and
// every write succeeds: none fails on the directory another just made again, and none moves
// aside the directory another just made, with that one's lock in it.
func TestLockDirHealsOnceForConcurrentWriters(t *testing.T) {
	for range 40 {
		root := t.TempDir()
		locks := filepath.Join(root, filepath.FromSlash(LockDir))
		os.MkdirAll(filepath.Dir(locks), 0o755)
		if err := os.WriteFile(locks, []byte("committed"), 0o644); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var repairs []string
		d := Disk{Roots: []string{root}, Repaired: func(w string) { mu.Lock(); repairs = append(repairs, w); mu.Unlock() }}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				p := filepath.Join(root, fmt.Sprintf("state%d.json", i))
				_, errs[i] = d.Update(p, 0o644, func([]byte, bool) ([]byte, error) { return []byte("{}\n"), nil })
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("a write failed: %v", err)
			}
		}
		if aside, _ := filepath.Glob(filepath.Join(filepath.Dir(locks), ".locks.broken-*")); len(repairs) != 1 || len(aside) != 1 {
			t.Fatalf("repairs reported %q, moved aside %v", repairs, aside)
		}
	}
}

// A repair's report is itself a locked write (a hook logs it), and a clone may have broken the
// lock directory again by then: the report's write repairs it in turn, and neither deadlocks on
// the repair's mutex nor reports without end. (Writes that lose the race to the swap may fail;
// a hook fails open on them.)
func TestLockDirRepairReportWrites(t *testing.T) {
	root := t.TempDir()
	locks := filepath.Join(root, filepath.FromSlash(LockDir))
	os.MkdirAll(filepath.Dir(locks), 0o755)
	breakIt := func() {
		os.RemoveAll(locks)
		if err := os.WriteFile(locks, []byte("committed"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	breakIt()
	var d Disk
	reports := 0
	d = Disk{Roots: []string{root}, Repaired: func(w string) {
		reports++
		breakIt()                                                             // swapped back before the report is written
		_ = d.Append(filepath.Join(root, "cairn.log"), []byte(w+"\n"), 0o644) // may repair again; reports nothing
	}}
	d.Update(filepath.Join(root, "state.json"), 0o644, func([]byte, bool) ([]byte, error) { return []byte("{}\n"), nil })
	if reports != 1 {
		t.Fatalf("%d reports, want the outermost one", reports)
	}
}
