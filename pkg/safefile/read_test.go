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

// ReadHead returns the start of a file of any size, and refuses what is not a regular file.
func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	for n, want := range map[int64]string{0: "", 4: "0123", 10: "0123456789", 100: "0123456789"} {
		if got, err := ReadHead(p, n); err != nil || string(got) != want {
			t.Errorf("ReadHead(%d) = %q, %v; want %q", n, got, err, want)
		}
	}
	if _, err := ReadHead(dir, 10); err == nil {
		t.Error("a directory: no error")
	}
	if _, err := ReadHead(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
