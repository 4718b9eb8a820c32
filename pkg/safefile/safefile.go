// Package safefile is the only way cairn writes files: atomic replacement (temp file in the same
// directory, fsync, rename), read-modify-write under a sidecar lock, and locked appends to
// append-only logs. Every write is confined to a set of allowed roots and refuses symlinks that
// lead out of them. A dry-run writer prints the planned change instead of making it.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/rogpeppe/go-internal/diff"
	"github.com/rogpeppe/go-internal/lockedfile"
)

// Writer is what every cairn writer uses. Disk writes; DryRun prints what Disk would do.
type Writer interface {
	// Update reads path under its lock, calls fn with the current content (nil and exists=false when
	// the file is missing) and atomically replaces the file with what fn returns. Returning the same
	// bytes leaves the file untouched (no write, no mtime change); returning ErrNoChange does too.
	Update(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (changed bool, err error)
	// Append appends data to path under its lock, creating it (and its directory) when missing.
	Append(path string, data []byte, perm fs.FileMode) error
	// Remove deletes path under its lock. A missing file is not an error.
	Remove(path string) error
}

// ErrNoChange may be returned by an Update callback to leave the file as it is.
var ErrNoChange = errors.New("no change")

// Disk writes for real, confined to Roots (the first is the project root; others, such as the
// Claude config directory, may be added by callers that must touch them).
type Disk struct {
	Roots []string
}

func (d Disk) confine(path string) (string, error) {
	var firstErr error
	for _, r := range d.Roots {
		p, err := project.Confine(r, path)
		if err == nil {
			return p, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%s: no root to write under", path)
	}
	return "", firstErr
}

// checkTarget refuses a symlink at the target itself: WriteFile would replace the link (harmless)
// but a reader of the link would be surprised; refuse instead so nothing is silently redirected.
func checkTarget(path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s: refusing to write through a symlink", path)
	}
	if err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	return nil
}

func lockPath(path string) string { return path + ".lock" }

// Update implements Writer.
func (d Disk) Update(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (bool, error) {
	path, err := d.confine(path)
	if err != nil {
		return false, err
	}
	if err := mkdirAll(filepath.Dir(path)); err != nil {
		return false, err
	}
	unlock, err := lockedfile.MutexAt(lockPath(path)).Lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	if err := checkTarget(path); err != nil {
		return false, err
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	next, err := fn(old, exists)
	if errors.Is(err, ErrNoChange) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if exists && bytes.Equal(old, next) {
		return false, nil
	}
	if exists {
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm() // keep the mode a person gave the file
		}
	}
	return true, WriteAtomic(path, next, perm)
}

// Append implements Writer. Appends of one record are a single write(2) on an O_APPEND file under
// the lock, so concurrent appenders never interleave.
func (d Disk) Append(path string, data []byte, perm fs.FileMode) error {
	path, err := d.confine(path)
	if err != nil {
		return err
	}
	if err := mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	unlock, err := lockedfile.MutexAt(lockPath(path)).Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := checkTarget(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Remove implements Writer.
func (d Disk) Remove(path string) error {
	path, err := d.confine(path)
	if err != nil {
		return err
	}
	unlock, err := lockedfile.MutexAt(lockPath(path)).Lock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer unlock()
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// The lock file goes too, while still held, so removing a file leaves nothing behind (legacy
	// files live in Claude's own memory directory). A writer that was waiting on it then holds a
	// lock on an unlinked file; Remove is the only operation on files that get removed, and it
	// does nothing to a file that is already gone.
	os.Remove(lockPath(path))
	return nil
}

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// WriteAtomic replaces path with data: a temp file in the same directory is written, synced,
// closed and renamed over path; on any failure the temp file is removed and path is untouched.
// Callers are expected to hold the path's lock and to have confined it.
func WriteAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	// Sync the directory so the rename itself survives a crash. Best effort: some file systems
	// refuse to sync a directory.
	if d, derr := os.Open(filepath.Clean(dir)); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// DryRun prints what Disk would write, writing nothing: for a new file its whole content, for a
// changed file a unified diff, for an unchanged file nothing.
type DryRun struct {
	Out   io.Writer
	Roots []string
}

// Update implements Writer.
func (d DryRun) Update(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (bool, error) {
	if _, err := (Disk{Roots: d.Roots}).confine(path); err != nil {
		return false, err
	}
	if err := checkTarget(path); err != nil {
		return false, err
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	next, err := fn(old, exists)
	if errors.Is(err, ErrNoChange) || (err == nil && exists && bytes.Equal(old, next)) {
		fmt.Fprintf(d.Out, "unchanged %s\n", path)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !exists {
		fmt.Fprintf(d.Out, "create %s\n%s", path, next)
		if len(next) > 0 && next[len(next)-1] != '\n' {
			fmt.Fprintln(d.Out)
		}
		return true, nil
	}
	fmt.Fprintf(d.Out, "update %s\n%s", path, diff.Diff(path+" (now)", old, path+" (planned)", next))
	return true, nil
}

// Append implements Writer.
func (d DryRun) Append(path string, data []byte, perm fs.FileMode) error {
	if _, err := (Disk{Roots: d.Roots}).confine(path); err != nil {
		return err
	}
	fmt.Fprintf(d.Out, "append %s\n%s", path, data)
	return nil
}

// Remove implements Writer.
func (d DryRun) Remove(path string) error {
	if _, err := (Disk{Roots: d.Roots}).confine(path); err != nil {
		return err
	}
	fmt.Fprintf(d.Out, "remove %s\n", path)
	return nil
}
