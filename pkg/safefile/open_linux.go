//go:build linux

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The Linux fast path. A directory below a tree is opened once with openat2(2) from the tree's
// directory, resolved beneath it (RESOLVE_BENEATH: no "..", no absolute link, no link leading
// out — checked by the kernel at the moment of use), as an O_PATH descriptor that opens nothing,
// and kept for the life of the process. A file in it is then opened or stat'd by its single
// name relative to that descriptor, without following a link at the name (O_NOFOLLOW) and
// without blocking on a FIFO (O_NONBLOCK): a single name cannot leave the directory. It spares
// the hot paths os.Root's component walk, a separate lstat, and the network poller's probing of
// every file package os opens. A kernel without openat2 (before 5.6) goes through os.Root.

// resolve is how every directory below a tree is resolved.
const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// noOpenat2 is set once the kernel says it has no openat2.
var noOpenat2 atomic.Bool

// dirFDs holds each directory opened for the fast path, by the tree and the path below it as the
// caller spelt them: joining and cleaning them for a key cost more than the fstatat it serves
// (two spellings of one directory only hold two descriptors).
var dirFDs struct {
	sync.Mutex
	m map[dirKey]int
}

type dirKey struct{ root, rel string }

// dirFD returns a descriptor of the directory rel below the tree at root.
func dirFD(root, rel string) (int, error) {
	key := dirKey{root, rel}
	dirFDs.Lock()
	fd, ok := dirFDs.m[key]
	dirFDs.Unlock()
	if ok {
		return fd, nil
	}
	var err error
	if rel == "." {
		fd, err = unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	} else {
		var top int
		if top, err = dirFD(root, "."); err != nil {
			return -1, err
		}
		fd, err = openat2(top, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolve})
	}
	if err != nil {
		return -1, err
	}
	dirFDs.Lock()
	defer dirFDs.Unlock()
	if other, ok := dirFDs.m[key]; ok {
		unix.Close(fd)
		return other, nil
	}
	if dirFDs.m == nil {
		dirFDs.m = map[dirKey]int{}
	}
	if len(dirFDs.m) >= 4*maxTrees {
		for k, old := range dirFDs.m {
			unix.Close(old)
			delete(dirFDs.m, k)
		}
	}
	dirFDs.m[key] = fd
	return fd, nil
}

// lstatNames is LstatNames with the directory opened once: one fstatat per name.
func lstatNames(dir string, names []string) ([]fs.FileInfo, []error, bool) {
	if noOpenat2.Load() {
		return nil, nil, false
	}
	fd, err := dirFD(dir, ".")
	if noOpenat2.Load() {
		return nil, nil, false
	}
	infos, errs := make([]fs.FileInfo, len(names)), make([]error, len(names))
	for i, n := range names {
		switch {
		case err != nil:
			errs[i] = &fs.PathError{Op: "open", Path: dir, Err: err}
		case !oneName(n):
			errs[i] = fmt.Errorf("%s: %q is not a name in it: %w", dir, n, ErrOutside)
		default:
			var st unix.Stat_t
			if e := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); e != nil {
				errs[i] = &fs.PathError{Op: "lstat", Path: filepath.Join(dir, n), Err: e}
			} else {
				infos[i] = statInfo(n, &st)
			}
		}
	}
	return infos, errs, true
}

// fastConfine is Confine's check in one openat2: rel resolves beneath root, its symlinks
// included (RESOLVE_BENEATH allows those that stay inside). ok is false when the walk must decide:
// a component that is missing or not a directory (what comes next is created under what exists,
// or fails there), or no openat2.
func fastConfine(root, rel, shown string) (error, bool) {
	if noOpenat2.Load() {
		return nil, false
	}
	top, err := dirFD(root, ".")
	if err != nil || noOpenat2.Load() {
		return nil, false
	}
	fd, err := openat2(top, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve})
	switch {
	case err == nil:
		unix.Close(fd)
		return nil, true
	case errors.Is(err, unix.EXDEV):
		return fmt.Errorf("%s: resolves outside the project root: %w", shown, ErrOutside), true
	}
	return nil, false
}

func releaseFDs() {
	dirFDs.Lock()
	defer dirFDs.Unlock()
	for _, fd := range dirFDs.m {
		unix.Close(fd)
	}
	dirFDs.m = nil
}

// openat2 retries openat2(2) on EINTR and EAGAIN (a racing rename).
func openat2(dir int, rel string, how *unix.OpenHow) (int, error) {
	for {
		fd, err := unix.Openat2(dir, rel, how)
		if err != unix.EINTR && err != unix.EAGAIN {
			if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) && noOpenat2Probe() {
				noOpenat2.Store(true)
			}
			return fd, err
		}
	}
}

// noOpenat2Probe tells a seccomp filter that refuses openat2 with EPERM (some container
// runtimes) from a real permission error: openat2 of "/" must succeed.
func noOpenat2Probe() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_DIRECTORY})
	if err == nil {
		unix.Close(fd)
		return false
	}
	return err == unix.EPERM || err == unix.ENOSYS
}

// fastDir returns the descriptor of rel's directory and rel's name in it. ok is false when the
// fast path is not available; err reports a directory that is missing or leads out.
func fastDir(root, rel, shown string) (dir int, name string, err error, ok bool) {
	if noOpenat2.Load() || rel == "." || rel == ".." {
		return -1, "", nil, false
	}
	d, name := filepath.Split(rel)
	if d == "" {
		d = "."
	}
	dir, err = dirFD(root, filepath.Clean(d))
	if noOpenat2.Load() {
		return -1, "", nil, false
	}
	switch {
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		return -1, "", fmt.Errorf("%s: resolves outside the project root: %w", shown, ErrOutside), true
	case err != nil:
		return -1, "", &fs.PathError{Op: "open", Path: shown, Err: err}, true
	}
	return dir, name, nil, true
}

// fastOpen opens rel, a path in the tree at root, for reading (see the fast path above), and
// refuses what fstat says is not a regular file.
func fastOpen(root, rel, shown string) (fd int, fi fs.FileInfo, err error, ok bool) {
	dir, name, err, ok := fastDir(root, rel, shown)
	if !ok || err != nil {
		return -1, nil, err, ok
	}
	for {
		fd, err = unix.Openat(dir, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	return openResult(fd, err, name, shown)
}

// fastStat stats rel, a path in the tree at root (see the fast path above). follow says whether
// a symlink at the name itself is followed (Stat: while it stays inside the tree) or described
// (Lstat).
func fastStat(root, rel, shown string, follow bool) (fs.FileInfo, error, bool) {
	dir, name, err, ok := fastDir(root, rel, shown)
	if !ok || err != nil {
		return nil, err, ok
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: shown, Err: err}, true
	}
	if !follow || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return statInfo(name, &st), nil, true
	}
	fd, err := openat2(dir, name, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve})
	if err != nil {
		top, terr := dirFD(root, ".")
		if terr == nil {
			// The link may lead elsewhere inside the tree, above its own directory.
			fd, err = openat2(top, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve})
		}
	}
	switch {
	case errors.Is(err, unix.EXDEV):
		return nil, fmt.Errorf("%s: resolves outside the project root: %w", shown, ErrOutside), true
	case err != nil:
		return nil, &fs.PathError{Op: "stat", Path: shown, Err: err}, true
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: shown, Err: err}, true
	}
	return statInfo(name, &st), nil, true
}
