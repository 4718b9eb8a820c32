//go:build unix && !linux

package safefile

import (
	"hash/fnv"
	"io/fs"
	"strconv"
	"syscall"
)

// Identity is a 32-bit fingerprint of the file fi describes — its device and inode — so that a
// reader that recorded it can tell a file replaced under the same name (a new inode) from one
// appended to; 0 where the system gives neither.
func Identity(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		h := fnv.New32a()
		h.Write(strconv.AppendUint(strconv.AppendUint(nil, uint64(st.Dev), 16), uint64(st.Ino), 16))
		return h.Sum32() | 1
	}
	return 0
}
