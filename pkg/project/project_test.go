package project

import (
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

// The branch is read from HEAD in the git dir the checkout's layout was located through: a
// ".git" directory, or a ".git" file naming a git dir of its own (a submodule); a ".git" that does
// not hold up as a checkout (Locate) names no branch, whatever HEAD it points to.
func TestBranch(t *testing.T) {
	branch := func(root string) string { return (&Project{Root: root}).Branch() }
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/feature/x\n"), 0o644)
	if b := branch(dir); b != "feature/x" {
		t.Errorf("Branch = %q", b)
	}
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: "+filepath.Join(dir, ".git")+"\n"), 0o644)
	if b := branch(sub); b != "feature/x" {
		t.Errorf("a .git file's Branch = %q", b)
	}
	if b := branch(t.TempDir()); b != "" {
		t.Errorf("no git: %q", b)
	}
	// A linked worktree's git dir that does not name this checkout back: no branch.
	other := t.TempDir()
	gd := filepath.Join(dir, ".git", "worktrees", "w")
	os.MkdirAll(gd, 0o755)
	os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/someone-else\n"), 0o644)
	os.WriteFile(filepath.Join(gd, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(gd, "gitdir"), []byte(filepath.Join(t.TempDir(), ".git")+"\n"), 0o644)
	os.WriteFile(filepath.Join(other, ".git"), []byte("gitdir: "+gd+"\n"), 0o644)
	if b := branch(other); b != "" {
		t.Errorf("a .git that does not hold up: %q", b)
	}
}

// Windows's environment is case-insensitive and usually has no HOME: an Env made from it finds
// Path as PATH, LocalAppData in any case, and the home in USERPROFILE.
func TestEnvWindows(t *testing.T) {
	e := envFrom("windows", []string{"Path=C:\\bin", "LOCALAPPDATA=C:\\Users\\me\\AppData\\Local", "UserProfile=C:\\Users\\me", "=C:=C:\\dir"})
	for key, want := range map[string]string{"PATH": "C:\\bin", "Path": "C:\\bin", "LocalAppData": "C:\\Users\\me\\AppData\\Local", "USERPROFILE": "C:\\Users\\me", "HOME": ""} {
		if got := e.Get(key); got != want {
			t.Errorf("Get(%q) = %q, want %q", key, got, want)
		}
	}
	if _, ok := e[""]; ok {
		t.Error("the drive's current-directory entry became a variable")
	}
	if h := homeDir(e); h != "C:\\Users\\me" {
		t.Errorf("Home = %q", h)
	}
	// Elsewhere keys keep their case, and HOME wins.
	u := envFrom("linux", []string{"Path=/x", "HOME=/home/me", "USERPROFILE=/nope"})
	if u.Get("Path") != "/x" || u["PATH"] != "" || homeDir(u) != "/home/me" {
		t.Errorf("linux: %v", u)
	}
}
