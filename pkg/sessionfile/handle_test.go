package sessionfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// The handle reads session-context.md once per process and holds what its own writes leave: the
// parked items' count and the snapshot's check read it once between them. The file is changed
// underneath the handle to prove that nothing is read again.
func TestContextReadsOnce(t *testing.T) {
	root := t.TempDir()
	files := safefile.Disk{Roots: []string{root}}
	c := OpenAt(root, files)
	if data, exists, err := c.Read(); err != nil || exists || data != nil {
		t.Fatalf("missing file: %q %v %v", data, exists, err)
	}
	os.MkdirAll(filepath.Dir(Path(root)), 0o755)
	os.WriteFile(Path(root), []byte("# Session context\n"), 0o644)
	if _, exists, _ := c.Read(); exists {
		t.Fatal("the handle read the file again")
	}
	// A write starts from the file under the lock and leaves the handle holding the result.
	if _, err := c.Update(func(old []byte, exists bool) ([]byte, error) {
		if !exists || string(old) != "# Session context\n" {
			t.Errorf("the edit saw %q (exists %v), not the file under the lock", old, exists)
		}
		return append(old, "more\n"...), nil
	}); err != nil {
		t.Fatal(err)
	}
	os.Remove(Path(root))
	if data, exists, err := c.Read(); err != nil || !exists || string(data) != "# Session context\nmore\n" {
		t.Fatalf("after its write: %q %v %v", data, exists, err)
	}
	// An edit that changes nothing leaves the handle holding what it saw; a failed one makes the
	// next Read read the file.
	if _, err := c.Update(func([]byte, bool) ([]byte, error) { return nil, safefile.ErrNoChange }); err != nil {
		t.Fatal(err)
	}
	if _, exists, _ := c.Read(); exists {
		t.Error("an unchanged write did not refresh the handle: the file is gone")
	}
	os.WriteFile(Path(root), []byte("x\n"), 0o644)
	if _, err := c.Update(func([]byte, bool) ([]byte, error) { return nil, errors.New("refused") }); err == nil {
		t.Fatal("the edit's error was lost")
	}
	if data, _, _ := c.Read(); string(data) != "x\n" {
		t.Errorf("after a failed write: %q", data)
	}
}
