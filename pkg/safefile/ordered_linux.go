//go:build linux

package safefile

import (
	"os"
	"syscall"
)

// Magic numbers of the file systems that write a replacing rename only after the renamed file's
// data (statfs(2); linux/magic.h).
const (
	ext4Magic  = 0xEF53 // ext2, ext3 and ext4 share it
	btrfsMagic = 0x9123683E
)

// replaceOrdered reports whether f lives on ext4 or btrfs (see NoSyncWhereOrdered): one fstatfs
// of the open file, so the answer is about the file written, wherever its path leads.
func replaceOrdered(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var st syscall.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return false
	}
	switch uint32(st.Type) {
	case ext4Magic, btrfsMagic:
		return true
	}
	return false
}
