//go:build unix

package tasks

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO named like a task would block os.Open until a writer came: it must not be opened.
func TestForSessionSkipsFIFO(t *testing.T) {
	config := t.TempDir()
	dir := filepath.Join(config, "tasks", "s")
	write(t, dir, "1.json", `{"id":"1","status":"pending"}`)
	if err := syscall.Mkfifo(filepath.Join(dir, "2.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := ForSession(config, "s")
	if err != nil || len(ts) != 1 {
		t.Errorf("%+v, %v; want the one regular task", ts, err)
	}
}
