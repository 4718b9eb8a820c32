package main

import (
	"strings"
	"testing"
)

// A panic in the expiry that runs beside step 1 fails open as one in run does: it comes back as
// an error, not as a crash of the hook (hookio recovers run's goroutine only).
func TestExpireBesideFailsOpen(t *testing.T) {
	err := <-expireBeside(nil) // a nil store panics in Expire
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("got %v, want an internal error", err)
	}
}
