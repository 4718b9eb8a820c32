package project

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// HistoryRoots is the list of project roots whose Claude Code transcripts make up the history of
// the project at root: what `cairn search` indexes and `cairn show session:<id>` looks in. The
// history is knowledge a repository's checkouts share, so it is every checkout of the repository
// root belongs to (Worktrees: the main checkout and each linked worktree), or root alone outside git.
func HistoryRoots(root string) []string { return Worktrees(root) }

// TranscriptDir is a directory under <config>/projects that may hold transcripts of one of the
// roots it was listed for.
type TranscriptDir struct {
	Name string // the directory's name under <config>/projects
	Root string // the root it belongs to: the one whose slug names it, or starts it, the longest
	// Exact is true when the name is the root's slug itself. Otherwise it is a directory that a
	// session started below the root gets (the root's slug, a dash, and more), or the root's
	// legacy spelling — or another project's whose slug happens to start the same way
	// ("/home/me/proj-old" for "/home/me/proj"): a reader checks each session's cwd.
	Exact bool
}

// maxProjectDirs bounds the names read from <config>/projects: one per project Claude Code has
// opened on this machine.
const maxProjectDirs = 4096

// TranscriptDirs lists the directories under <config>/projects that may hold transcripts of the
// roots: each root's slug, every name that starts with a root's slug and a dash, and each root's
// legacy spelling (LegacySlug), when they exist. A name that several roots' slugs start goes to
// the root with the longest slug. At most maxProjectDirs names are read; links and other
// non-directories are left out.
func TranscriptDirs(config string, roots []string) []TranscriptDir {
	if config == "" || len(roots) == 0 {
		return nil
	}
	projects := filepath.Join(config, "projects")
	d, err := safefile.OpenDirLoose(projects)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(maxProjectDirs)
	d.Close()
	return matchDirs(projects, names, roots)
}

// matchDirs keeps the names that belong to one of roots (see TranscriptDirs), sorted.
func matchDirs(projects string, names, roots []string) []TranscriptDir {
	slugs := make([]string, len(roots))
	for i, r := range roots {
		slugs[i] = Slug(r)
	}
	var out []TranscriptDir
	for _, n := range names {
		best, exact := -1, false
		for i, s := range slugs {
			switch {
			case n == s:
				best, exact = i, true
			case !exact && strings.HasPrefix(n, s+"-") && (best < 0 || len(s) > len(slugs[best])):
				best = i
			}
		}
		if best < 0 {
			for i, r := range roots {
				if n == LegacySlug(r) {
					best = i
				}
			}
		}
		if best < 0 {
			continue
		}
		out = append(out, TranscriptDir{Name: n, Root: roots[best], Exact: exact})
	}
	kept := make([]string, len(out))
	for i, d := range out {
		kept[i] = d.Name
	}
	infos, errs := safefile.LstatNames(projects, kept)
	dirs := out[:0]
	for i, d := range out {
		if errs[i] == nil && infos[i].IsDir() {
			dirs = append(dirs, d)
		}
	}
	out = dirs
	slices.SortFunc(out, func(a, b TranscriptDir) int { return strings.Compare(a.Name, b.Name) })
	return out
}
