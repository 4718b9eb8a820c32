//go:build !unix

package safefile

import (
	"os"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// lockFile takes go-internal's lockedfile mutex on the lock file at full. Off Unix the
// lock file is opened by path: its directory was created through the tree, but a symlink swapped
// in between could redirect the lock file itself (never the file it guards, which is written
// through the tree).
func lockFile(r *os.Root, rel, full string) (func(), error) {
	return lockedfile.MutexAt(full).Lock()
}

// tryLockFile is lockFile: lockedfile cannot be asked without waiting, so off Unix a second
// writer waits its turn.
func tryLockFile(r *os.Root, rel, full string) (func(), bool, error) {
	unlock, err := lockFile(r, rel, full)
	return unlock, false, err
}
