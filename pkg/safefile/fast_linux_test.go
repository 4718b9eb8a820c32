//go:build linux

package safefile

import "testing"

// withoutFastOpen makes the test go through os.Root, as a kernel without openat2 does.
func withoutFastOpen(t *testing.T) {
	noOpenat2.Store(true)
	t.Cleanup(func() { noOpenat2.Store(false) })
}
