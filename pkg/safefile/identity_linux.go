package safefile

import (
	"hash/fnv"
	"io/fs"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Identity is a 32-bit fingerprint of the file fi describes — its device and inode — so that a
// reader that recorded it can tell a file replaced under the same name (a new inode) from one
// appended to; 0 where the system gives neither.
func Identity(fi fs.FileInfo) uint32 {
	switch st := fi.Sys().(type) {
	case *unix.Stat_t:
		return identity(uint64(st.Dev), st.Ino)
	case *syscall.Stat_t:
		return identity(uint64(st.Dev), st.Ino)
	}
	return 0
}

func identity(dev, ino uint64) uint32 {
	h := fnv.New32a()
	h.Write(strconv.AppendUint(strconv.AppendUint(nil, dev, 16), ino, 16))
	return h.Sum32() | 1 // never 0: 0 means unknown
}
