package safefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotRegular reports something at a path that is not a regular file: a directory, a FIFO, a
// device, a socket. cairn reads and writes regular files only, so that a FIFO cannot block a
// hook and /dev/zero cannot fill its memory.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError reports a file over the bound its reader set.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s; refusing to read it", e.Path, sizeText(e.Limit))
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// openRegular opens path, which lies in the tree at root, for reading without blocking and
// checks that it is a regular file. A symlink at path itself is refused, as O_NOFOLLOW would: a
// state file is a file, and a link there is either a mistake or a repository pointing cairn at
// something else (links in the directories above are followed while they stay inside the tree).
// The fast path (fastOpen: openat2 on Linux) does it in one system call; the general one goes
// through os.Root.
func openRegular(root, path string) (*os.File, fs.FileInfo, error) {
	rel, err := local(root, path)
	if err != nil {
		return nil, nil, err
	}
	if fd, fi, err, ok := fastOpen(root, rel, path); ok {
		if err != nil {
			return nil, fi, err
		}
		return os.NewFile(uintptr(fd), path), fi, nil
	}
	r, name, err := at(root, path)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := r.Lstat(name); err != nil {
		return nil, nil, outside(path, err)
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fi, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, outside(path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, fi, nil
}

// Open opens the regular file at path inside the tree at root for reading, without blocking,
// for readers that seek (a log read from a cursor, a file read from its end). The caller bounds
// what it reads and closes the file.
func Open(root, path string) (*os.File, fs.FileInfo, error) {
	return openRegular(root, path)
}

// ReadFile reads the regular file at path inside the tree at root, refusing one larger than
// limit bytes (*TooLargeError), and returns its content with its FileInfo. A file that grows
// while it is read is returned as it was when fstat saw it.
func ReadFile(root, path string, limit int64) ([]byte, fs.FileInfo, error) {
	return read(root, path, limit, false)
}

// ReadHead reads at most the first n bytes of the regular file at path inside the tree at root:
// for files of which only the start matters (a checkpoint's frontmatter, a whiteboard that the
// injection budget cuts anyway).
func ReadHead(root, path string, n int64) ([]byte, error) {
	data, _, err := read(root, path, n, true)
	return data, err
}

// ReadHeadInfo is ReadHead with the file's FileInfo: for a reader that says how much it left
// out (the log of pruned checkpoints keeps a checkpoint's head and its whole size).
func ReadHeadInfo(root, path string, n int64) ([]byte, fs.FileInfo, error) {
	return read(root, path, n, true)
}

func read(root, path string, limit int64, head bool) ([]byte, fs.FileInfo, error) {
	rel, err := local(root, path)
	if err != nil {
		return nil, nil, err
	}
	if fd, fi, err, ok := fastOpen(root, rel, path); ok {
		if err != nil {
			return nil, fi, err
		}
		data, err := readFD(fd, fi, path, limit, head)
		return data, fi, err
	}
	f, fi, err := openRegular(root, path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	data, err := readBounded(f, fi, path, limit, head)
	return data, fi, err
}

func readBounded(f *os.File, fi fs.FileInfo, path string, limit int64, head bool) ([]byte, error) {
	size := fi.Size()
	if size > limit {
		if !head {
			return nil, &TooLargeError{path, limit}
		}
		size = limit
	}
	data := make([]byte, size)
	n := 0
	for n < len(data) {
		m, err := f.Read(data[n:])
		n += m
		if err == io.EOF || m == 0 {
			break // shrank since fstat
		}
		if err != nil {
			return nil, err
		}
	}
	return data[:n], nil
}

// Stat returns the FileInfo of path inside the tree at root, following symlinks that stay
// inside it.
func Stat(root, path string) (fs.FileInfo, error) { return stat(root, path, true) }

// IsFile reports whether path is a regular file inside the tree at root.
func IsFile(root, path string) bool {
	fi, err := Stat(root, path)
	return err == nil && fi.Mode().IsRegular()
}

// ReadDir returns at most max names in the directory at dir inside the tree at root, in
// directory order (callers sort what they need sorted), and whether there were more. It reads
// names only: a caller that needs an entry's type or time asks Lstat for the names it keeps, so
// that a directory of thousands of files costs no stat of each.
func ReadDir(root, dir string, max int) (names []string, more bool, err error) {
	r, rel, err := at(root, dir)
	if err != nil {
		return nil, false, err
	}
	d, err := r.Open(asDir(rel)) // a FIFO there must not block (see asDir)
	if err != nil {
		return nil, false, outside(dir, err)
	}
	defer d.Close()
	for len(names) < max {
		batch, err := d.Readdirnames(min(256, max-len(names)))
		names = append(names, batch...)
		if err == io.EOF || len(batch) == 0 {
			return names, false, nil
		}
		if err != nil {
			return names, false, err
		}
	}
	extra, _ := d.Readdirnames(1)
	return names, len(extra) > 0, nil
}

// Lstat returns the FileInfo of path inside the tree at root, without following a symlink at
// path itself.
func Lstat(root, path string) (fs.FileInfo, error) { return stat(root, path, false) }

// stat is Stat (follow) or Lstat: Linux's fast path, else through the tree's os.Root.
func stat(root, path string, follow bool) (fs.FileInfo, error) {
	if rel, err := local(root, path); err == nil {
		if fi, err, ok := fastStat(root, rel, path, follow); ok {
			return fi, err
		}
	}
	r, rel, err := at(root, path)
	if err != nil {
		return nil, err
	}
	var fi fs.FileInfo
	if follow {
		fi, err = r.Stat(rel)
	} else {
		fi, err = r.Lstat(rel)
	}
	return fi, outside(path, err)
}

// LstatNames returns the FileInfo of each name in the directory dir (the tree's root), without
// following a symlink at the name, as Lstat would: infos[i] or errs[i] for names[i]. A name must
// be one component; the directory is opened once, where Linux's fast path allows, for a hundred
// names whose modification times are wanted (parked items' legacy files).
func LstatNames(dir string, names []string) (infos []fs.FileInfo, errs []error) {
	if len(names) == 0 {
		return nil, nil // nothing to stat: the directory is not opened
	}
	if infos, errs, ok := lstatNames(dir, names); ok {
		return infos, errs
	}
	infos, errs = make([]fs.FileInfo, len(names)), make([]error, len(names))
	for i, n := range names {
		if !oneName(n) {
			errs[i] = fmt.Errorf("%s: %q is not a name in it: %w", dir, n, ErrOutside)
			continue
		}
		infos[i], errs[i] = Lstat(dir, filepath.Join(dir, n))
	}
	return infos, errs
}

// oneName reports whether n names an entry of a directory: one component, not . or ...
func oneName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, `/`+string(filepath.Separator))
}

// ReadLoose reads a file that lies in no tree cairn confines — Claude Code's own files, such as
// a transcript or a task file, named by Claude Code — with the same care: without blocking,
// regular files only, at most limit bytes.
func ReadLoose(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenLoose(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	data, err := readBounded(f, fi, path, limit, false)
	return data, fi, err
}

// OpenLoose opens a file outside any tree (see ReadLoose) without blocking, checking that it is
// a regular file.
func OpenLoose(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, fi, nil
}

// OpenDirLoose opens the directory at path, which lies in no tree cairn confines (Claude Code's
// task lists, say), for listing. Anything but a directory there — a FIFO above all, which would
// block the open until some process writes to it — fails at once (see asDir).
func OpenDirLoose(path string) (*os.File, error) {
	return os.Open(asDir(path))
}

// ReadTail reads at most the last limit bytes of the regular file at path inside the tree at
// root, from the first line that starts within them: for logs read from their end (the audit
// log, the timeline).
func ReadTail(root, path string, limit int64) ([]byte, error) {
	f, fi, err := Open(root, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	off := max(fi.Size()-limit, 0)
	data := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(data, off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	data = data[:n]
	if off > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		} else {
			data = nil
		}
	}
	return data, nil
}

// TornTail returns the length of the torn last record at the end of data, or 0. A writer
// killed during an append can leave its record cut anywhere — the kernel ends a write to a
// regular file at a page boundary when SIGKILL arrives — so a last line without its newline that
// starts as a JSON object and does not parse is a record that never finished. Any other last
// line (ended, a complete record without its newline, a line a person typed) is not torn.
//
// Appends cut a torn record before they write ([Writer.Append]); until the next append the file
// ends torn, so every reader of an append-only JSON-lines log drops the torn tail:
// data[:len(data)-TornTail(data)].
func TornTail(data []byte) int {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return 0
	}
	line := data[bytes.LastIndexByte(data, '\n')+1:]
	if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '{' && !json.Valid(line) {
		return len(line)
	}
	return 0
}
