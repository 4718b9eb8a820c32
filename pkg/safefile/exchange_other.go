//go:build !linux

package safefile

import "os"

// exchange cannot swap two names here: the caller renames.
func exchange(r *os.Root, tmp, rel string) (bool, error) { return false, nil }
