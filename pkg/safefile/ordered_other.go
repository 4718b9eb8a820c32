//go:build !linux

package safefile

import "os"

// replaceOrdered is false outside Linux: the fsync stays (see NoSyncWhereOrdered).
func replaceOrdered(*os.File) bool { return false }
