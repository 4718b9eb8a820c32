//go:build unix && !linux

package safefile

import "testing"

// withoutFastOpen: there is no fast path here; every open goes through os.Root already.
func withoutFastOpen(t *testing.T) {}
