//go:build unix

package search

import (
	"io"
	"os"
	"syscall"
)

// mapFile maps f read-only; where mmap fails it reads the file whole.
func mapFile(f *os.File, size int) ([]byte, func() error, error) {
	if size > 0 {
		if data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			return data, func() error { return syscall.Munmap(data) }, nil
		}
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
