package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestConfine(t *testing.T) {
	t.Run("fast path", testConfine)
	t.Run("walk", func(t *testing.T) {
		withoutFastOpen(t)
		testConfine(t)
	})
}

func testConfine(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	out := filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(root, "in"), 0o755)
	os.MkdirAll(out, 0o755)
	os.Symlink(out, filepath.Join(root, "link-out"))
	os.Symlink("in", filepath.Join(root, "link-in"))
	os.Symlink(filepath.Join(root, "in"), filepath.Join(root, "abs-in"))
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(root, "dangling"))
	// Links behind links: in/deep-out leads out, reached through link-in; chain-out is a link
	// inside to that link; in/rel-in is a relative link that stays inside.
	os.Symlink(out, filepath.Join(root, "in", "deep-out"))
	os.Symlink("link-in/deep-out", filepath.Join(root, "chain-out"))
	os.Symlink("..", filepath.Join(root, "in", "rel-in"))
	os.Symlink("../..", filepath.Join(root, "in", "rel-out"))
	os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
	ok := []string{"in", "in/new/file", "link-in/x", ".", "in/rel-in/in/x", "link-in/rel-in/link-in/y", "file/below-a-file"}
	// An absolute link is refused even when it points inside: os.Root, which confines every
	// operation, refuses absolute links, and the check says what the operation will do.
	bad := []string{"..", "../out", "in/../../out", out, "link-out", "link-out/new/file", "dangling", "dangling/x",
		"in/deep-out/x", "link-in/deep-out", "chain-out", "chain-out/x", "in/rel-out/out/x", "link-in/rel-in/link-out/z", "abs-in/x"}
	// Through a root that is itself a link, the same answers.
	alias := filepath.Join(dir, "alias")
	os.Symlink(root, alias)
	for _, r := range []string{root, alias} {
		for _, p := range append(ok, r, filepath.Join(r, "in")) {
			if _, err := Confine(r, p); err != nil {
				t.Errorf("Confine(%q, %q): %v", r, p, err)
			}
		}
		for _, p := range bad {
			if _, err := Confine(r, p); !errors.Is(err, ErrOutside) {
				t.Errorf("Confine(%q, %q) = %v, want ErrOutside", r, p, err)
			}
		}
	}
}

// BenchmarkConfine: the cost of checking one state path.
func BenchmarkConfine(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, ".claude", "state", "locks"), 0o755)
	os.WriteFile(filepath.Join(root, ".claude", "state", "session.json"), nil, 0o644)
	for b.Loop() {
		if _, err := Confine(root, ".claude/state/session.json"); err != nil {
			b.Fatal(err)
		}
	}
}
