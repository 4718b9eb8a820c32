//go:build linux

package safefile

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// exchange swaps the names tmp and rel — both in one directory of the tree at r — in one
// renameat2(RENAME_EXCHANGE), then removes tmp, which now holds the old content. Readers see the
// old file or the new one, never neither. ok is false when the kernel or the file system cannot
// exchange (the caller renames instead); a failure after the swap is not an error, since the
// new content is in place and the old one is left under a temp name the sweep removes.
func exchange(r *os.Root, tmp, rel string) (ok bool, err error) {
	d, err := r.OpenFile(filepath.Dir(rel), os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return false, nil
	}
	defer d.Close()
	fd := int(d.Fd())
	if unix.Renameat2(fd, filepath.Base(tmp), fd, filepath.Base(rel), unix.RENAME_EXCHANGE) != nil {
		return false, nil
	}
	_ = r.Remove(tmp)
	return true, nil
}
