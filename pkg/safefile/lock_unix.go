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
	f, err := r.OpenFile(rel, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, outside(rel, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: filepath.Clean(f.Name()), Err: err}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
