package project

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// A repository may have several checkouts: its main checkout and the linked worktrees `git
// worktree add` makes, each a directory of its own with its own branch. cairn shares a
// repository's project knowledge (checkpoints, hand-offs, their catalog, the timeline) through
// its main checkout and keeps working state (the run whiteboard, parked items, the session
// registry, file claims, session-context.md) per checkout (docs/DESIGN.md, Where state lives).
//
// The layout is read from the files git keeps, never by running git: a hook must not pay for a
// process, and doctor executes nothing a repository supplies. A linked worktree's root holds a
// ".git" file, "gitdir: <its git dir>"; that directory's "commondir" file names the repository's
// common git directory (relative to it, or absolute), and its "gitdir" file names the worktree's
// ".git" file back. The main checkout is the directory holding a common git dir named ".git"; a
// bare repository (a common dir named anything else) has none. A submodule or a checkout made
// with --separate-git-dir has a ".git" file too, but its git dir has no "commondir": it is a
// main checkout of its own.
//
// A project can bring its ".git" along — an archive of a checkout holds one, a file or a whole
// git dir, with any commondir and gitdir files in it — so none of these files is taken at its
// word. A linked worktree's git dir must be one of its common dir's worktrees
// (<common>/worktrees/<name>, links resolved), so that a git dir the project brought cannot name
// another repository's common dir and with it a main checkout where cairn would write. A
// repository's other checkouts are listed (Worktrees, whose transcripts make the history) only
// from a common dir that is the main checkout's own ".git" or a bare repository's, and each only
// when its own ".git" names its git dir back: a worktrees directory the project brought cannot
// list another project's directory, nor can a ".git" that links or points to another
// repository's git dir list that repository's checkouts.

// Repo is where the checkout at a root stands in its repository.
type Repo struct {
	// Main is the root of the repository's main checkout: the root itself in the main checkout,
	// "" when the repository has none (a bare repository's worktree) or the root is not a
	// checkout.
	Main string
	// Common is the repository's common git directory; "" outside git.
	Common string
	// Worktree is the name git gives this checkout when it is a linked worktree (its directory
	// under <common>/worktrees/), "" in a main checkout.
	Worktree string
	// GitDir is this checkout's own git directory, where its HEAD is (the common one in a main
	// checkout); linked says it was named by a ".git" file, so it may lie outside the root.
	GitDir string
	linked bool
}

// Linked reports whether the checkout is a linked worktree of a repository with a main checkout
// elsewhere: the one case where knowledge lives under another root.
func (r Repo) Linked() bool { return r.Worktree != "" && r.Main != "" }

// Locate reads the repository layout of the checkout at root (see above). ok is false when root
// is not a checkout: it has no ".git", or one cairn cannot read. A linked worktree counts as one
// only when its git dir names it back: a ".git" file in a directory is no proof that the
// repository it points to knows that directory.
func Locate(root string) (Repo, bool) {
	gitDir, file, ok := gitDirOf(root)
	if !ok {
		return Repo{}, false
	}
	if !file {
		return Repo{Main: root, Common: gitDir, GitDir: gitDir}, true
	}
	common, ok := readLink(gitDir, "commondir")
	if !ok {
		// A submodule, or a checkout with a separate git dir: its own main checkout.
		return Repo{Main: root, Common: gitDir, GitDir: gitDir, linked: true}, true
	}
	back, ok := readLink(gitDir, "gitdir")
	if !ok || !sameFile(back, filepath.Join(root, ".git")) || !worktreeOf(gitDir, common) {
		return Repo{}, false
	}
	r := Repo{Common: common, Worktree: filepath.Base(gitDir), GitDir: gitDir, linked: true}
	if filepath.Base(common) == ".git" {
		if fi, err := os.Stat(filepath.Dir(common)); err == nil && fi.IsDir() {
			r.Main = filepath.Dir(common)
		}
	}
	return r, true
}

// MainCheckout returns the root of the main checkout of the repository the checkout at root
// belongs to: root itself for a main checkout; ok is false for a bare repository's worktree and
// outside git.
func MainCheckout(root string) (string, bool) {
	r, ok := Locate(root)
	return r.Main, ok && r.Main != ""
}

// maxWorktrees bounds the linked worktrees Worktrees lists.
const maxWorktrees = 256

// Worktrees returns the roots of every checkout of the repository the checkout at root belongs
// to: the main checkout first (when there is one), then each linked worktree git lists under
// <common>/worktrees/ whose directory still exists, in git's order of names; at most 256 linked
// ones. Outside git it returns root alone.
func Worktrees(root string) []string {
	r, ok := Locate(root)
	if !ok {
		return []string{root}
	}
	return worktreesOf(root, r)
}

// worktreesOf is Worktrees for the checkout at root, located as r.
func worktreesOf(root string, r Repo) []string {
	var out []string
	if r.Main != "" {
		out = append(out, r.Main)
	}
	// The common dir must be the main checkout's own ".git" (or a bare repository's, which Locate
	// found this root a worktree of): not a git dir a ".git" file or link named elsewhere.
	if r.Main != "" && realPath(r.Common) != filepath.Join(realPath(r.Main), ".git") {
		return withRoot(out, root)
	}
	if d, err := safefile.OpenDirLoose(filepath.Join(r.Common, "worktrees")); err == nil {
		names, _ := d.Readdirnames(maxWorktrees)
		d.Close()
		slices.Sort(names)
		for _, n := range names {
			gd := filepath.Join(r.Common, "worktrees", n)
			back, ok := readLink(gd, "gitdir")
			if !ok {
				continue
			}
			dir := filepath.Dir(back)
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || containsPath(out, dir) {
				continue
			}
			if named, file, ok := gitDirOf(dir); ok && file && sameFile(named, gd) {
				out = append(out, dir) // its ".git" names this git dir: a checkout of the repository
			}
		}
	}
	return withRoot(out, root)
}

// withRoot is the checkouts out with root added last when it is not among them.
func withRoot(out []string, root string) []string {
	if !containsPath(out, root) {
		out = append(out, root)
	}
	return out
}

// gitDirOf returns root's git directory: root/.git when that is a directory (file false), else
// the directory its ".git" file names (file true). A ".git" is read as any file of an untrusted
// project is: regular files only, without blocking, a few KiB at most.
func gitDirOf(root string) (dir string, file, ok bool) {
	data, _, err := safefile.ReadFile(root, filepath.Join(root, ".git"), maxGitFile)
	if errors.Is(err, safefile.ErrNotRegular) {
		// A directory, or a link to one: the git dir itself.
		if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
			return filepath.Join(root, ".git"), false, true
		}
		return "", false, false
	}
	if err != nil {
		return "", false, false
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", false, false
	}
	return resolve(root, strings.TrimSpace(line)), true, true
}

// readLink reads the one-line file name in dir (commondir, gitdir) and returns the path it holds,
// made absolute against dir.
func readLink(dir, name string) (string, bool) {
	data, _, err := safefile.ReadLoose(filepath.Join(dir, name), maxGitFile)
	if err != nil {
		return "", false
	}
	line := strings.TrimSpace(string(data))
	if line == "" || strings.ContainsAny(line, "\n\x00") {
		return "", false
	}
	return resolve(dir, line), true
}

// resolve makes p absolute against base, cleaned.
func resolve(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// sameFile reports whether paths a and b name the same file: equal once cleaned, or once
// resolved through symlinks (a checkout reached through a link, a temp directory under a linked
// /tmp).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// worktreeOf reports whether gitDir is one of the linked worktrees' git dirs of the common dir
// common: <common>/worktrees/<name>, once both are resolved through links.
func worktreeOf(gitDir, common string) bool {
	g, c := realPath(gitDir), realPath(common)
	return g != "" && c != "" && filepath.Dir(g) == filepath.Join(c, "worktrees")
}

// realPath is p with every link resolved, or "" when it cannot be resolved.
func realPath(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// containsPath reports whether list holds a path that names the same directory as p.
func containsPath(list []string, p string) bool {
	for _, q := range list {
		if sameFile(q, p) {
			return true
		}
	}
	return false
}
