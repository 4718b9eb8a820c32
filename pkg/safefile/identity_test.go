package safefile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A file keeps its identity when appended to, and a file put in its place under the same name has
// another.
func TestIdentity(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no inode through fs.FileInfo here: Identity is 0")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	os.WriteFile(p, []byte("a\n"), 0o600)
	id := func() uint32 {
		infos, errs := LstatNames(dir, []string{"t.jsonl"})
		if errs[0] != nil {
			t.Fatal(errs[0])
		}
		fi, _ := os.Lstat(p)
		if Identity(infos[0]) != Identity(fi) {
			t.Fatalf("LstatNames and os.Lstat disagree: %x, %x", Identity(infos[0]), Identity(fi))
		}
		return Identity(fi)
	}
	first := id()
	if first == 0 {
		t.Fatal("no identity")
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("b\n")
	f.Close()
	if id() != first {
		t.Error("appended: a new identity")
	}
	os.WriteFile(p+".new", []byte("a\nb\n"), 0o600)
	os.Rename(p+".new", p)
	if id() == first {
		t.Error("replaced: the same identity")
	}
}

// TryLock says busy, without waiting, while another holder has the lock, and takes it once free.
func TestTryLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("TryLock waits off Unix")
	}
	root := t.TempDir()
	lock := filepath.Join(root, "lock")
	unlock, err := Lock(root, lock)
	if err != nil {
		t.Fatal(err)
	}
	if u, busy, err := TryLock(root, lock); err != nil || !busy || u != nil {
		t.Fatalf("held: busy %v, %v", busy, err)
	}
	unlock()
	u, busy, err := TryLock(root, lock)
	if err != nil || busy {
		t.Fatalf("free: busy %v, %v", busy, err)
	}
	u()
}
