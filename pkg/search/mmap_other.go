//go:build !unix

package search

import (
	"io"
	"os"
)

// mapFile reads f whole (Windows could map it through golang.org/x/sys/windows; a read from the
// page cache is cheap next to a process's start, and a file read cannot block its replacement).
func mapFile(f *os.File, size int) ([]byte, func() error, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
