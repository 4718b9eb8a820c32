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
		data, fi, err := ReadFile(dir, p, 1<<20)
		if err != nil || string(data) != content || fi.Size() != int64(len(content)) {
			t.Fatalf("%d bytes: got %d, %v", len(content), len(data), err)
		}
	}
	var tl *TooLargeError
	if _, _, err := ReadFile(dir, p, 69999); !errors.As(err, &tl) {
		t.Errorf("over the limit: %v", err)
	}
	if _, _, err := ReadFile(dir, filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	// A symlink at the file itself is refused, as O_NOFOLLOW would; one in a directory above is
	// followed while it stays inside.
	os.Symlink("f", filepath.Join(dir, "link"))
	if _, _, err := ReadFile(dir, "link", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a symlink at the file: %v", err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "g"), []byte("g"), 0o644)
	os.Symlink("sub", filepath.Join(dir, "dirlink"))
	if data, _, err := ReadFile(dir, "dirlink/g", 1<<20); err != nil || string(data) != "g" {
		t.Errorf("through an inside directory link: %q %v", data, err)
	}
}

// ReadHead returns the start of a file of any size, and refuses what is not a regular file.
func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	for n, want := range map[int64]string{0: "", 4: "0123", 10: "0123456789", 100: "0123456789"} {
		if got, err := ReadHead(dir, p, n); err != nil || string(got) != want {
			t.Errorf("ReadHead(%d) = %q, %v; want %q", n, got, err, want)
		}
	}
	if _, err := ReadHead(dir, dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
	if _, err := ReadHead(dir, filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	if ents, more, err := ReadDir(dir, ".", 2); err != nil || len(ents) != 2 || !more {
		t.Fatalf("%d entries, more %v, %v", len(ents), more, err)
	}
	if ents, more, err := ReadDir(dir, dir, 10); err != nil || len(ents) != 3 || more {
		t.Fatalf("%d entries, more %v, %v", len(ents), more, err)
	}
	out := t.TempDir()
	os.Symlink(out, filepath.Join(dir, "out"))
	if _, _, err := ReadDir(dir, "out", 10); !errors.Is(err, ErrOutside) {
		t.Fatalf("a directory outside: %v", err)
	}
}
