//go:build linux && (amd64 || arm64)

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// renameat2's number and its RENAME_EXCHANGE flag (linux/fs.h). The syscall package names the
// number on arm64 only; on amd64 it is 316.
const renameExchange = 1 << 1

// exchange swaps the names tmp and rel — both in one directory of the tree at r — in one
// renameat2(RENAME_EXCHANGE), then removes tmp, which now holds the old content. Readers see the
// old file or the new one, never neither. ok is false when the kernel or the file system cannot
// exchange (the caller renames instead); a failure after the swap is not an error, since the
// new content is in place and the old one is left under a temp name the sweep removes.
func exchange(r *os.Root, tmp, rel string) (ok bool, err error) {
	dir := filepath.Dir(rel)
	d, err := r.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return false, nil
	}
	defer d.Close()
	from, err := syscall.BytePtrFromString(filepath.Base(tmp))
	if err != nil {
		return false, nil
	}
	to, err := syscall.BytePtrFromString(filepath.Base(rel))
	if err != nil {
		return false, nil
	}
	fd := d.Fd()
	_, _, errno := syscall.Syscall6(sysRenameat2, fd, uintptr(unsafe.Pointer(from)), fd, uintptr(unsafe.Pointer(to)), renameExchange, 0)
	if errno != 0 {
		return false, nil
	}
	_ = r.Remove(tmp)
	return true, nil
}
