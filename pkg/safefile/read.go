package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"
)

// ReadFile reads the regular file at path, refusing one larger than limit bytes, and returns its
// content with its FileInfo. It is os.ReadFile made cheap for the many small files a hook reads:
// on Linux, os.Open offers every file to the network poller (four fcntl calls and an epoll_ctl
// that fails for a regular file), and os.ReadFile reads once more to see EOF. Opening with
// syscall.Open and wrapping the descriptor with os.NewFile costs one fcntl; reading the size
// fstat gave costs one read. `cairn session resume` reads a hundred legacy files this way.
//
// A file that grows while it is read is returned as it was when fstat saw it.
func ReadFile(path string, limit int64) ([]byte, fs.FileInfo, error) {
	return read(path, limit, false)
}

// ReadHead reads at most the first n bytes of the regular file at path, the way ReadFile reads:
// for files of which only the start matters (a checkpoint's frontmatter, a whiteboard that the
// injection budget cuts anyway).
func ReadHead(path string, n int64) ([]byte, error) {
	data, _, err := read(path, n, true)
	return data, err
}

func read(path string, limit int64, head bool) ([]byte, fs.FileInfo, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s: not a regular file", path)
	}
	size := fi.Size()
	if size > limit {
		if !head {
			return nil, fi, fmt.Errorf("%s: larger than %d bytes", path, limit)
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
			return nil, fi, err
		}
	}
	return data[:n], fi, nil
}

// Read is ReadFile without a limit, for os.ReadFile's callers on the hooks' paths.
func Read(path string) ([]byte, error) {
	data, _, err := ReadFile(path, math.MaxInt64)
	return data, err
}
