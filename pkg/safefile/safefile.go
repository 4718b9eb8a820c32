// Package safefile is the only way cairn writes files: atomic replacement (temp file in the same
// directory, fsync, rename), read-modify-write under a sidecar lock, and locked appends to
// append-only logs. Every write is confined to a set of allowed roots and refuses symlinks that
// lead out of them. A dry-run writer prints the planned change instead of making it.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	// UpdateNoSync is Update without the fsync, for state that describes live sessions and is
	// rebuilt or harmlessly stale after a machine crash (the session registry and its cursors).
	// It is as atomic as Update against a killed process or a concurrent writer: the file is
	// replaced by rename under the same lock, so readers see the old or the new content, never a
	// mix. Only a power cut can lose it, or leave an empty file that the reader must survive.
	UpdateNoSync(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (changed bool, err error)
	// Append appends data to path under its lock, creating it (and its directory) when missing,
	// and syncs it to disk: for records that must survive a machine crash (the audit log, the
	// broadcasts).
	Append(path string, data []byte, perm fs.FileMode) error
	// Log is Append without the sync, for records that only tell a story (the timeline, the
	// hooks' own log): they survive a killed process like any write, and cost no fsync.
	Log(path string, data []byte, perm fs.FileMode) error
	// Create writes data to path only if nothing is there yet, atomically and without a lock
	// (a hard link of a complete temp file: the name appears whole or not at all, and an existing
	// file is never replaced). created is false when the name was taken.
	Create(path string, data []byte, perm fs.FileMode) (created bool, err error)
	// Remove deletes path. A missing file is not an error.
	Remove(path string) error
}

// ErrNoChange may be returned by an Update callback to leave the file as it is.
var ErrNoChange = errors.New("no change")

// Disk writes for real, confined to Roots (the first is the project root; others, such as the
// Claude config directory, may be added by callers that must touch them).
//
// Lock files live together under the first root's .claude/state/locks/, not beside the files
// they guard: MEMORY.md, state.json, checkpoints and logs sit in directories people commit.
type Disk struct {
	Roots []string
}

// LockDir is where Disk keeps its lock files, relative to the project root.
const LockDir = ".claude/state/locks"

// lockPath names the lock of path: its path relative to the project root, flattened to one
// readable file name, plus a short hash so that different paths never share a name.
func (d Disk) lockPath(path string) string {
	root := path
	if len(d.Roots) > 0 {
		root = d.Roots[0]
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || !project.Within(root, path) {
		rel = path
	}
	h := fnv.New32a()
	h.Write([]byte(filepath.ToSlash(rel)))
	name := strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return r
		}
		return '-'
	}, strings.TrimLeft(filepath.ToSlash(rel), "./"))
	if len(name) > 100 {
		name = name[len(name)-100:]
	}
	return filepath.Join(root, LockDir, fmt.Sprintf("%s-%08x.lock", name, h.Sum32()))
}

func (d Disk) lock(path string) (func(), error) {
	lp := d.lockPath(path)
	if len(d.Roots) > 0 {
		if _, err := project.Confine(d.Roots[0], lp); err != nil {
			return nil, err
		}
	}
	if err := mkdirAll(filepath.Dir(lp)); err != nil {
		return nil, err
	}
	return lockedfile.MutexAt(lp).Lock()
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

// Update implements Writer.
func (d Disk) Update(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (bool, error) {
	return d.update(path, perm, fn, true)
}

// UpdateNoSync implements Writer.
func (d Disk) UpdateNoSync(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (bool, error) {
	return d.update(path, perm, fn, false)
}

func (d Disk) update(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error), sync bool) (bool, error) {
	path, err := d.confine(path)
	if err != nil {
		return false, err
	}
	if err := mkdirAll(filepath.Dir(path)); err != nil {
		return false, err
	}
	unlock, err := d.lock(path)
	if err != nil {
		return false, err
	}
	defer unlock()
	if err := checkTarget(path); err != nil {
		return false, err
	}
	old, err := Read(path)
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
	return true, writeAtomic(path, next, perm, sync)
}

// Append implements Writer. Appends of one record are a single write(2) on an O_APPEND file under
// the lock, so concurrent appenders never interleave; a record after a torn last line starts on a
// new line.
func (d Disk) Append(path string, data []byte, perm fs.FileMode) error {
	return d.append(path, data, perm, true)
}

// Log implements Writer.
func (d Disk) Log(path string, data []byte, perm fs.FileMode) error {
	return d.append(path, data, perm, false)
}

func (d Disk) append(path string, data []byte, perm fs.FileMode, sync bool) error {
	path, err := d.confine(path)
	if err != nil {
		return err
	}
	if err := mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	unlock, err := d.lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	if err := checkTarget(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	// A record cut short (a full disk, a killed writer) must not swallow this one: start on a
	// line of its own, so readers skip only the torn fragment.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if sync {
		if err := syncFile(f); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// Remove implements Writer. Removing a name is atomic, so it takes no lock (and leaves no lock
// file in directories that are not cairn's, such as Claude's own memory directory).
func (d Disk) Remove(path string) error {
	path, err := d.confine(path)
	if err != nil {
		return err
	}
	if err := checkTarget(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Create implements Writer.
func (d Disk) Create(path string, data []byte, perm fs.FileMode) (bool, error) {
	path, err := d.confine(path)
	if err != nil {
		return false, err
	}
	if err := mkdirAll(filepath.Dir(path)); err != nil {
		return false, err
	}
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// WriteAtomic replaces path with data: a temp file in the same directory is written, synced,
// closed and renamed over path; on any failure the temp file is removed and path is untouched.
// Callers are expected to hold the path's lock and to have confined it.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// syncFile is (*os.File).Sync; tests count the calls through it.
var syncFile = (*os.File).Sync

func writeAtomic(path string, data []byte, perm fs.FileMode, sync bool) (err error) {
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
	if sync {
		if err = syncFile(f); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	// The directory is not synced after the rename, as renameio does not: the file's content is
	// durable before its name points at it, which is what keeps readers from a torn file; a
	// directory fsync per write would double every hook's cost (docs/BENCHMARKS.md).
	return os.Rename(f.Name(), path)
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

// UpdateNoSync implements Writer: a dry run prints the same plan as Update's.
func (d DryRun) UpdateNoSync(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (bool, error) {
	return d.Update(path, perm, fn)
}

// Append implements Writer.
func (d DryRun) Append(path string, data []byte, perm fs.FileMode) error {
	if _, err := (Disk{Roots: d.Roots}).confine(path); err != nil {
		return err
	}
	fmt.Fprintf(d.Out, "append %s\n%s", path, data)
	return nil
}

// Log implements Writer.
func (d DryRun) Log(path string, data []byte, perm fs.FileMode) error {
	return d.Append(path, data, perm)
}

// Create implements Writer.
func (d DryRun) Create(path string, data []byte, perm fs.FileMode) (bool, error) {
	if _, err := (Disk{Roots: d.Roots}).confine(path); err != nil {
		return false, err
	}
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	}
	fmt.Fprintf(d.Out, "create %s\n%s", path, data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		fmt.Fprintln(d.Out)
	}
	return true, nil
}

// Remove implements Writer.
func (d DryRun) Remove(path string) error {
	if _, err := (Disk{Roots: d.Roots}).confine(path); err != nil {
		return err
	}
	fmt.Fprintf(d.Out, "remove %s\n", path)
	return nil
}

// tempAge is how old a temp file must be before SweepTemps removes it: far older than any write
// takes, so a write in progress is never touched.
const tempAge = time.Hour

// SweepTemps removes the temp files that writers killed mid-write (kill -9, a crash) left in dir:
// ".<name>.tmp<digits>" files older than an hour. They never break a reader, but they clutter
// directories people commit. It returns how many it removed.
func SweepTemps(dir string, now time.Time) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		i := strings.LastIndex(name, ".tmp")
		if !e.Type().IsRegular() || len(name) < 2 || name[0] != '.' || i < 1 || !allDigits(name[i+len(".tmp"):]) {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > tempAge {
			if os.Remove(filepath.Join(dir, name)) == nil {
				n++
			}
		}
	}
	return n
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
