//go:build unix

package transcript

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO at the transcript path would block os.Open until a writer came: it is never opened.
func TestFIFOIsNotOpened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LastAssistantText(path); !errors.Is(err, ErrNotRegular) {
		t.Errorf("err %v, want ErrNotRegular", err)
	}
}
