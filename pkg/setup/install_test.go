//go:build unix

package setup

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// A settings file or a skill that a repository made a FIFO, a link to /dev/zero or a file of
// gigabytes is refused at once: before, os.ReadFile blocked on the FIFO forever and read /dev/zero
// and the huge file into memory, in cairn install, cairn uninstall and the warning about the
// other scope.
func TestReadConfigRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	huge := filepath.Join(dir, "huge.json")
	os.WriteFile(huge, []byte("{}\n"), 0o644)
	os.Truncate(huge, 1<<30)
	linked := filepath.Join(dir, "linked.json")
	os.WriteFile(filepath.Join(dir, "real.json"), []byte("{\"a\":1}\n"), 0o644)
	os.Symlink("real.json", linked)

	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, p := range []string{fifo, zero} {
			if _, err := readSettings(p, false); !errors.Is(err, safefile.ErrNotRegular) {
				t.Errorf("readSettings(%s): %v, want ErrNotRegular", filepath.Base(p), err)
			}
		}
		var tooLarge *safefile.TooLargeError
		if _, err := readSettings(huge, false); !errors.As(err, &tooLarge) {
			t.Errorf("readSettings(huge): %v, want a TooLargeError", err)
		}
		if data, err := readSettings(filepath.Join(dir, "missing.json"), false); data != nil || err != nil {
			t.Errorf("missing: %q %v", data, err)
		}
		// A link is followed, as Claude Code follows it (a dotfiles manager's settings.json).
		if data, err := readSettings(linked, false); err != nil || string(data) != "{\"a\":1}\n" {
			t.Errorf("linked: %q %v", data, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading a settings file blocked")
	}
}
