//go:build linux

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openResult turns an open(2) outcome into what fastOpen returns: a link at the name (ELOOP under
// O_NOFOLLOW) or anything but a regular file is ErrNotRegular.
func openResult(fd int, err error, name, shown string) (int, fs.FileInfo, error, bool) {
	switch {
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.EMLINK):
		return -1, nil, fmt.Errorf("%s: %w", shown, ErrNotRegular), true
	case err != nil:
		return -1, nil, &fs.PathError{Op: "open", Path: shown, Err: err}, true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, nil, &fs.PathError{Op: "fstat", Path: shown, Err: err}, true
	}
	fi := statInfo(name, &st)
	if !fi.Mode().IsRegular() {
		syscall.Close(fd)
		return -1, fi, fmt.Errorf("%s: %w", shown, ErrNotRegular), true
	}
	return fd, fi, nil, true
}

// readFD reads the regular file fd as readBounded does, and closes it.
func readFD(fd int, fi fs.FileInfo, path string, limit int64, head bool) ([]byte, error) {
	defer syscall.Close(fd)
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
		m, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m <= 0 {
			break // shrank since fstat
		}
		n += m
	}
	return data[:n], nil
}

// fileInfo is the FileInfo of a file opened by openAt.
type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
	sys  *unix.Stat_t
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return f.mode }
func (f fileInfo) ModTime() time.Time { return f.mod }
func (f fileInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fileInfo) Sys() any           { return f.sys }

func statInfo(name string, st *unix.Stat_t) fs.FileInfo {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	default:
		mode |= fs.ModeDevice
	}
	sec, nsec := st.Mtim.Unix()
	return fileInfo{name: name, size: st.Size, mode: mode, mod: time.Unix(sec, nsec), sys: st}
}
