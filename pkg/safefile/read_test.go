package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	big := strings.Repeat("x", 70000)
	for _, content := range []string{"", "one line\n", big} {
		os.WriteFile(p, []byte(content), 0o644)
		data, fi, err := ReadFile(p, 1<<20)
		if err != nil || string(data) != content || fi.Size() != int64(len(content)) {
			t.Fatalf("%d bytes: got %d, %v", len(content), len(data), err)
		}
	}
	if _, _, err := ReadFile(p, 69999); err == nil {
		t.Error("over the limit: no error")
	}
	if _, err := Read(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := Read(dir); err == nil {
		t.Error("a directory: no error")
	}
	os.Symlink(p, filepath.Join(dir, "link"))
	if data, err := Read(filepath.Join(dir, "link")); err != nil || len(data) != len(big) {
		t.Errorf("through a symlink, as os.ReadFile: %d %v", len(data), err)
	}
}
