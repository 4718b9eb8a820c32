package project

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// layout builds, by hand, what `git worktree add` leaves: a main checkout at dir/main whose
// .git is a directory, and linked worktrees whose .git files point into
// dir/main/.git/worktrees/<name>, which point back. It returns the main checkout's root.
func layout(t *testing.T, dir string, worktrees ...string) string {
	t.Helper()
	main := filepath.Join(dir, "main")
	mustWrite(t, filepath.Join(main, ".git", "HEAD"), "ref: refs/heads/main\n")
	for _, name := range worktrees {
		wt := filepath.Join(dir, name)
		gd := filepath.Join(main, ".git", "worktrees", name)
		mustWrite(t, filepath.Join(wt, ".git"), "gitdir: "+gd+"\n")
		mustWrite(t, filepath.Join(gd, "commondir"), "../..\n")
		mustWrite(t, filepath.Join(gd, "gitdir"), filepath.Join(wt, ".git")+"\n")
		mustWrite(t, filepath.Join(gd, "HEAD"), "ref: refs/heads/"+name+"\n")
	}
	return main
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLocate(t *testing.T) {
	dir := t.TempDir()
	main := layout(t, dir, "wt1", "wt2")
	wt1 := filepath.Join(dir, "wt1")

	if r, ok := Locate(main); !ok || r.Main != main || r.Worktree != "" || r.Linked() || r.Common != filepath.Join(main, ".git") {
		t.Errorf("main checkout: %+v %v", r, ok)
	}
	if r, ok := Locate(wt1); !ok || r.Main != main || r.Worktree != "wt1" || !r.Linked() || r.Common != filepath.Join(main, ".git") {
		t.Errorf("linked worktree: %+v %v", r, ok)
	}
	if m, ok := MainCheckout(wt1); !ok || m != main {
		t.Errorf("MainCheckout = %q %v", m, ok)
	}

	// Relative paths, as git writes them with worktree.useRelativePaths.
	rel := filepath.Join(dir, "rel")
	gd := filepath.Join(main, ".git", "worktrees", "rel")
	mustWrite(t, filepath.Join(rel, ".git"), "gitdir: ../main/.git/worktrees/rel\n")
	mustWrite(t, filepath.Join(gd, "commondir"), "../..\n")
	mustWrite(t, filepath.Join(gd, "gitdir"), "../../../../rel/.git\n")
	if r, ok := Locate(rel); !ok || r.Main != main || r.Worktree != "rel" {
		t.Errorf("relative links: %+v %v", r, ok)
	}

	// A .git file that points at a worktree git dir which names another directory back is no
	// worktree of that repository: a directory cannot adopt a repository by writing a file.
	forged := filepath.Join(dir, "forged")
	mustWrite(t, filepath.Join(forged, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "wt1")+"\n")
	if r, ok := Locate(forged); ok || r.Main != "" {
		t.Errorf("forged .git file: %+v %v", r, ok)
	}

	// A bare repository's worktree has no main checkout.
	bare := filepath.Join(dir, "repo.git")
	bw := filepath.Join(dir, "bw")
	mustWrite(t, filepath.Join(bw, ".git"), "gitdir: "+filepath.Join(bare, "worktrees", "bw")+"\n")
	mustWrite(t, filepath.Join(bare, "worktrees", "bw", "commondir"), "../..\n")
	mustWrite(t, filepath.Join(bare, "worktrees", "bw", "gitdir"), filepath.Join(bw, ".git")+"\n")
	if r, ok := Locate(bw); !ok || r.Main != "" || r.Linked() || r.Worktree != "bw" || r.Common != bare {
		t.Errorf("bare repository's worktree: %+v %v", r, ok)
	}

	// A submodule: a .git file, a git dir without commondir; its own main checkout.
	sub := filepath.Join(main, "sub")
	mustWrite(t, filepath.Join(sub, ".git"), "gitdir: ../.git/modules/sub\n")
	mustWrite(t, filepath.Join(main, ".git", "modules", "sub", "HEAD"), "ref: refs/heads/main\n")
	if r, ok := Locate(sub); !ok || r.Main != sub || r.Linked() {
		t.Errorf("submodule: %+v %v", r, ok)
	}

	// Not a checkout: nothing, a .git file that is not a link, a FIFO.
	for _, d := range []string{t.TempDir(), filepath.Join(dir, "junk")} {
		if d == filepath.Join(dir, "junk") {
			mustWrite(t, filepath.Join(d, ".git"), "not a link\n")
		}
		if r, ok := Locate(d); ok {
			t.Errorf("%s: %+v", d, r)
		}
	}
}

func TestWorktrees(t *testing.T) {
	dir := t.TempDir()
	main := layout(t, dir, "wt1", "wt2", "gone")
	os.RemoveAll(filepath.Join(dir, "gone")) // removed without `git worktree prune`
	want := []string{main, filepath.Join(dir, "wt1"), filepath.Join(dir, "wt2")}
	for _, from := range want {
		if got := Worktrees(from); !slices.Equal(got, want) {
			t.Errorf("Worktrees(%s) = %q, want %q", from, got, want)
		}
	}
	plain := t.TempDir()
	if got := Worktrees(plain); !slices.Equal(got, []string{plain}) {
		t.Errorf("outside git: %q", got)
	}
}

// The world: Shared is the main checkout from a linked worktree, Root elsewhere; a session's
// transcript is found under any checkout's slug.
func TestProjectShared(t *testing.T) {
	dir := t.TempDir()
	main := layout(t, dir, "wt1")
	wt1 := filepath.Join(dir, "wt1")
	conf := t.TempDir()
	p := &Project{Root: wt1, Config: conf}
	if p.Shared() != main || p.Worktree() != "wt1" || !slices.Equal(p.Roots(), []string{wt1, main}) {
		t.Errorf("from the worktree: Shared %q, Worktree %q", p.Shared(), p.Worktree())
	}
	m := &Project{Root: main, Config: conf}
	if m.Shared() != main || m.Worktree() != "" || !slices.Equal(m.Roots(), []string{main}) {
		t.Errorf("from the main checkout: Shared %q, Worktree %q", m.Shared(), m.Worktree())
	}
	o := &Project{Root: t.TempDir(), Config: conf}
	if o.Shared() != o.Root || o.Worktree() != "" {
		t.Errorf("outside git: Shared %q, Worktree %q", o.Shared(), o.Worktree())
	}

	mustWrite(t, filepath.Join(conf, "projects", Slug(main), "s-main.jsonl"), "{}\n")
	mustWrite(t, filepath.Join(conf, "projects", Slug(wt1)+"-sub", "s-sub.jsonl"), "{}\n")
	for _, sid := range []string{"s-main", "s-sub"} {
		if !p.SessionRanHere(sid) || !m.SessionRanHere(sid) {
			t.Errorf("%s: not found from every checkout", sid)
		}
		if o.SessionRanHere(sid) {
			t.Errorf("%s: found from another project", sid)
		}
	}
	if got, ok := m.Transcript("s-sub"); !ok || got != filepath.Join(conf, "projects", Slug(wt1)+"-sub", "s-sub.jsonl") {
		t.Errorf("Transcript = %q %v", got, ok)
	}
	if p.SessionRanHere("../s-main") || p.SessionRanHere("absent") {
		t.Error("an unsafe or unknown id ran here")
	}
}

// A project can bring its own ".git" — an archive of a checkout holds one, a file or a whole git
// directory — and so its own git dir, commondir and back-links: none of it may make another
// directory of the user's the project's main checkout (where shared knowledge is written) or a
// checkout of its repository (whose transcripts the history reads). A linked worktree's git dir
// must lie in the common dir's worktrees, and a checkout is listed only when its own ".git"
// names the repository's git dir for it back.
func TestLocateRefusesABroughtGitDir(t *testing.T) {
	dir := t.TempDir()
	other := layout(t, filepath.Join(dir, "other"), "otherwt") // the user's real repository
	otherWT := filepath.Join(dir, "other", "otherwt")
	otherGit := filepath.Join(other, ".git")

	// A ".git" file naming a git dir the project brought, whose commondir names the other
	// repository's and whose gitdir names the project back.
	evil := filepath.Join(dir, "evil")
	mustWrite(t, filepath.Join(evil, ".git"), "gitdir: gd\n")
	mustWrite(t, filepath.Join(evil, "gd", "commondir"), otherGit+"\n")
	mustWrite(t, filepath.Join(evil, "gd", "gitdir"), "../.git\n")
	if r, ok := Locate(evil); ok && r.Main != "" && r.Main != evil {
		t.Errorf("a brought git dir made %s the main checkout: %+v", r.Main, r)
	}
	p := &Project{Root: evil, Config: t.TempDir()}
	if p.Shared() != evil || !slices.Equal(p.Roots(), []string{evil}) {
		t.Errorf("shared knowledge written to %q (roots %q)", p.Shared(), p.Roots())
	}
	if got := Worktrees(evil); !slices.Equal(got, []string{evil}) {
		t.Errorf("Worktrees = %q", got)
	}

	// A ".git" directory (a whole checkout, unpacked) whose worktrees list the other repository's
	// checkouts and a directory above them.
	unpacked := filepath.Join(dir, "unpacked")
	mustWrite(t, filepath.Join(unpacked, ".git", "HEAD"), "ref: refs/heads/main\n")
	for n, back := range map[string]string{"a": filepath.Join(other, ".git"), "b": filepath.Join(otherWT, ".git"), "c": filepath.Join(dir, ".git")} {
		mustWrite(t, filepath.Join(unpacked, ".git", "worktrees", n, "gitdir"), back+"\n")
		mustWrite(t, filepath.Join(unpacked, ".git", "worktrees", n, "commondir"), "../..\n")
	}
	if got := Worktrees(unpacked); !slices.Equal(got, []string{unpacked}) {
		t.Errorf("an unpacked .git listed other directories as its checkouts: %q", got)
	}

	// A ".git" link to the other repository's git dir, and a ".git" file naming it (the shape of
	// a checkout made with --separate-git-dir): the other repository's worktrees are not this
	// project's.
	linked := filepath.Join(dir, "linked")
	os.MkdirAll(linked, 0o755)
	if err := os.Symlink(otherGit, filepath.Join(linked, ".git")); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "named")
	mustWrite(t, filepath.Join(named, ".git"), "gitdir: "+otherGit+"\n")
	for _, root := range []string{linked, named} {
		if got := Worktrees(root); slices.Contains(got, otherWT) || slices.Contains(got, other) {
			t.Errorf("%s: Worktrees = %q", root, got)
		}
	}

	// The other repository itself is unchanged: its worktree is found from both sides.
	if got := Worktrees(otherWT); !slices.Equal(got, []string{other, otherWT}) {
		t.Errorf("the real repository: Worktrees = %q", got)
	}
}
