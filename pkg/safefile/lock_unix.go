//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes an exclusive flock on the lock file rel inside r (created when missing), the
// same lock go-internal's lockedfile takes, opened through the tree so that a symlinked lock
// directory cannot lead it out of the project.
func lockFile(r *os.Root, rel, _ string) (func(), error) {
	unlock, _, err := flockFile(r, rel, syscall.LOCK_EX)
	return unlock, err
}

// tryLockFile is lockFile that does not wait: busy is true when another process holds the lock.
func tryLockFile(r *os.Root, rel, _ string) (unlock func(), busy bool, err error) {
	return flockFile(r, rel, syscall.LOCK_EX|syscall.LOCK_NB)
}

func flockFile(r *os.Root, rel string, how int) (func(), bool, error) {
	f, err := r.OpenFile(rel, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, false, outside(rel, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.EWOULDBLOCK {
		f.Close()
		return nil, true, nil
	}
	if err != nil {
		f.Close()
		return nil, false, &os.PathError{Op: "flock", Path: filepath.Clean(f.Name()), Err: err}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, false, nil
}
