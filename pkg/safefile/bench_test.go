package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile: reading a small state file two directories down, as the hooks do many times
// per run.
func BenchmarkReadFile(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, ".claude", "state", "session.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"sessions":[]}`), 0o644)
	for b.Loop() {
		if _, _, err := ReadFile(root, p, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdate: one locked atomic replace without fsync, as the registry does.
func BenchmarkUpdate(b *testing.B) {
	root := b.TempDir()
	d := Disk{Roots: []string{root}}
	p := filepath.Join(root, ".claude", "state", "session.json")
	n := 0
	for b.Loop() {
		n++
		if _, err := d.Update(p, 0o600, func(old []byte, _ bool) ([]byte, error) { return []byte{byte(n)}, nil }, NoSync); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLstat(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, "session-open-x.md")
	os.WriteFile(p, []byte("x"), 0o644)
	for b.Loop() {
		if _, err := Lstat(root, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOsLstat(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, "session-open-x.md")
	os.WriteFile(p, []byte("x"), 0o644)
	for b.Loop() {
		if _, err := os.Lstat(p); err != nil {
			b.Fatal(err)
		}
	}
}
