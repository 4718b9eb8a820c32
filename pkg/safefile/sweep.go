package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// errNotDir is what resolving a path below a regular file reports.
var errNotDir = syscall.ENOTDIR

// tempAge is how old a temp file must be before SweepTemps removes it: far older than any write
// takes, so a write in progress is never touched.
const tempAge = time.Hour

// maxSweep bounds the entries SweepTemps looks at in one directory.
const maxSweep = 4096

// SweepTemps removes the temp files that writers killed mid-write (kill -9, a crash) left in dir,
// inside the tree at root: ".<name>.tmp<digits>" regular files older than an hour. They never
// break a reader, but they clutter directories people commit. A dir that leads out of the tree
// is not looked into. It returns how many it removed.
func SweepTemps(root, dir string, now time.Time) int {
	names, _, err := ReadDir(root, dir, maxSweep)
	if err != nil {
		return 0
	}
	n := 0
	for _, name := range names {
		i := strings.LastIndex(name, ".tmp")
		if len(name) < 2 || name[0] != '.' || i < 1 || !allDigits(name[i+len(".tmp"):]) {
			continue
		}
		p := filepath.Join(dir, name)
		r, rel, err := at(root, p)
		if err != nil {
			continue
		}
		if fi, err := r.Lstat(rel); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > tempAge {
			if r.Remove(rel) == nil {
				n++
			}
		}
	}
	return n
}

// sweptStamp is the file whose modification time says when SweepDue last said yes, in the
// project's lock directory (cairn's own, never committed state).
const sweptStamp = ".swept"

// SweepDue reports whether the temp files of the project at root are due for a sweep, and if
// so marks the sweep as done now: at most once every tempAge, since a temp file younger than
// that is left anyway. A sweep reads every directory cairn writes (about sixty system calls);
// the check is one stat. A stamp that cannot be written means a sweep every time, as before.
func SweepDue(root string, now time.Time) bool {
	p := filepath.Join(root, filepath.FromSlash(LockDir), sweptStamp)
	fi, err := Lstat(root, p)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return true // a link or a FIFO a repository put there: swept every time, never opened
	case err == nil && now.Sub(fi.ModTime()) < tempAge && !fi.ModTime().After(now):
		return false
	}
	r, rel, err := at(root, p)
	if err != nil {
		return true
	}
	if err := r.MkdirAll(filepath.Dir(rel), 0o700); err != nil && filepath.Dir(rel) != "." {
		return true
	}
	if f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|syscall.O_NONBLOCK, 0o600); err == nil {
		f.Close()
		r.Chtimes(rel, now, now)
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
