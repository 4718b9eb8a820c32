package project

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"/home/me/my.proj":  "-home-me-my-proj",
		"/Users/me/.agents": "-Users-me--agents",
		`C:\git\cc-plus`:    "C--git-cc-plus",
		"/a b/c_d":          "-a-b-c-d",
		"/x/é":              "-x--",
		"/x/😀":              "-x---",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	if got := LegacySlug("/home/me/my.proj"); got != "home-me-my-proj" {
		t.Errorf("LegacySlug = %q", got)
	}
	if got := LegacySlug("/a b/c_d"); got != "a b-c_d" {
		t.Errorf("LegacySlug = %q", got)
	}
}

func TestRoot(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "repo", ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "repo", "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(dir, "plain"), 0o755)
	cases := []struct {
		env  Env
		cwd  string
		want string
	}{
		{Env{"CLAUDE_PROJECT_DIR": filepath.Join(dir, "plain")}, filepath.Join(dir, "repo", "a"), filepath.Join(dir, "plain")},
		{Env{}, filepath.Join(dir, "repo", "a", "b"), filepath.Join(dir, "repo")},
		{Env{}, filepath.Join(dir, "plain"), filepath.Join(dir, "plain")},
	}
	for _, c := range cases {
		got, err := Root(c.env, c.cwd)
		if err != nil || got != c.want {
			t.Errorf("Root(%v, %s) = %s, %v; want %s", c.env, c.cwd, got, err, c.want)
		}
	}
	if _, err := Root(Env{}, ""); err == nil {
		t.Error("no cwd: want an error")
	}
}

func TestConfine(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	out := filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(root, "in"), 0o755)
	os.MkdirAll(out, 0o755)
	os.Symlink(out, filepath.Join(root, "link-out"))
	os.Symlink(filepath.Join(root, "in"), filepath.Join(root, "link-in"))
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(root, "dangling"))
	// Links behind links: in/deep-out leads out, reached through link-in; chain-out is a link
	// inside to that link; in/rel-in is a relative link that stays inside.
	os.Symlink(out, filepath.Join(root, "in", "deep-out"))
	os.Symlink(filepath.Join(root, "link-in", "deep-out"), filepath.Join(root, "chain-out"))
	os.Symlink("..", filepath.Join(root, "in", "rel-in"))
	os.Symlink("../..", filepath.Join(root, "in", "rel-out"))
	os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
	ok := []string{"in", "in/new/file", "link-in/x", ".", "in/rel-in/in/x", "link-in/rel-in/link-in/y", "file/below-a-file"}
	bad := []string{"..", "../out", "in/../../out", out, "link-out", "link-out/new/file", "dangling", "dangling/x",
		"in/deep-out/x", "link-in/deep-out", "chain-out", "chain-out/x", "in/rel-out/out/x", "link-in/rel-in/link-out/z"}
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

func TestSafeName(t *testing.T) {
	for _, s := range []string{"r1", "fix-42", "a.b_c", "ünï"} {
		if !SafeName(s) {
			t.Errorf("SafeName(%q) = false", s)
		}
	}
	for _, s := range []string{"", ".", "..", "../x", "a/b", `a\b`, "-rf", ".hidden", "a\x00b", "a\nb", string(make([]byte, 200))} {
		if SafeName(s) {
			t.Errorf("SafeName(%q) = true", s)
		}
	}
}

func TestBranch(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/feature/x\n"), 0o644)
	if b := Branch(dir); b != "feature/x" {
		t.Errorf("Branch = %q", b)
	}
	wt := t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(dir, ".git")+"\n"), 0o644)
	if b := Branch(wt); b != "feature/x" {
		t.Errorf("worktree Branch = %q", b)
	}
	if b := Branch(t.TempDir()); b != "" {
		t.Errorf("no git: %q", b)
	}
}

// BenchmarkConfine: a write confines its path and its lock's; this is the cost of one.
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
