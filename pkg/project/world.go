package project

import (
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Project is the world one cairn process works in: the project, Claude Code's config directory,
// the environment, the confined writer, the clock and the voice for warnings. A process builds it
// once — hookio.Main for a hook, the CLI for a command — and passes it down to every flow and
// every file handle, so that no package below reads os.Getenv, time.Now or stderr, and a test
// builds the whole world with one call (projecttest.New).
//
// A Project is passed as a pointer because it memoises what it reads once (Project.branch, the
// repository's layout). Those memos are not guarded: a process that starts a second goroutine on
// the same Project reads them first (SessionEnd, which expires the parked items beside the
// registry's end after hookio.Main has located the repository).
type Project struct {
	Root   string          // the project root: absolute and cleaned
	Config string          // Claude Code's config directory; "" when neither CLAUDE_CONFIG_DIR nor HOME is set
	Env    Env             // the process environment (settings.json's env block reaches hooks through it)
	Files  safefile.Writer // every write, confined to Root; a planner that writes nothing under --dry-run
	Now    func() time.Time
	// Warn reports a problem that does not stop the work: a hook writes one stderr line and
	// a line in .claude/state/cairn.log, the CLI one stderr line.
	Warn   func(format string, args ...any)
	DryRun bool // plan every write, even those a repeat would skip

	branch     string
	branchRead bool
	repo       Repo
	repoRead   bool
}

// Branch is the checked-out branch of Root (branch), read once per process — from the git dir
// the repository's layout was located through (Repo), so that a hook looks for ".git" once.
func (p *Project) Branch() string {
	if !p.branchRead {
		// A ".git" that does not hold up as a checkout of a repository (Locate) names no
		// branch: its HEAD could be any repository's.
		if r := p.Repo(); r.GitDir != "" {
			p.branch = headBranch(p.Root, r.GitDir, r.linked)
		}
		p.branchRead = true
	}
	return p.branch
}

// Repo is where Root stands in its repository (Locate), read once per process: the one lookup
// of the repository's layout a hook makes.
func (p *Project) Repo() Repo {
	if !p.repoRead {
		p.repo, _ = Locate(p.Root)
		p.repoRead = true
	}
	return p.repo
}

// Shared is the root that holds the project knowledge a repository's checkouts share —
// checkpoints of every kind, their catalog, the timeline: the repository's main checkout when
// Root is a linked worktree of one, else Root itself (docs/DESIGN.md, Where state lives).
// Working state stays under Root.
func (p *Project) Shared() string {
	if r := p.Repo(); r.Linked() {
		return r.Main
	}
	return p.Root
}

// Roots are the trees the project's writer is confined to: Root, and the main checkout when Root is
// a linked worktree (Shared), where the knowledge it shares is written.
func (p *Project) Roots() []string {
	if s := p.Shared(); s != p.Root {
		return []string{p.Root, s}
	}
	return []string{p.Root}
}

// Worktree is the name of the linked worktree Root is, as shared records name where they came
// from, or "" in a main checkout and outside git.
func (p *Project) Worktree() string {
	if r := p.Repo(); r.Linked() {
		return r.Worktree
	}
	return ""
}

// SessionRanHere reports whether Claude Code on this machine ran session sid in this project
// (Transcript finds its transcript). A repository can commit any file of cairn's, a session id
// included, but not a file in the user's config directory: this is how cairn tells the sessions
// of this machine from those a clone brought along.
func (p *Project) SessionRanHere(sid string) bool {
	_, ok := p.Transcript(sid)
	return ok
}

// Transcript returns the path of session sid's transcript on this machine:
// <config>/projects/<slug>/<sid>.jsonl, where slug is that of one of the repository's checkouts
// (Root's first: the project knowledge a session leaves is shared by them all) or, for a session
// started in a directory below a checkout, one that begins with its slug and a dash.
func (p *Project) Transcript(sid string) (string, bool) {
	if p.Config == "" || !SafeName(sid) {
		return "", false
	}
	projects := filepath.Join(p.Config, "projects")
	name := sid + ".jsonl"
	if f := filepath.Join(projects, Slug(p.Root), name); isRegular(f) {
		return f, true // the common case, without listing the directory
	}
	for _, d := range TranscriptDirs(p.Config, p.historyRoots()) {
		if d.Exact && d.Root == p.Root {
			continue // looked at already
		}
		if f := filepath.Join(projects, d.Name, name); isRegular(f) {
			return f, true
		}
	}
	return "", false
}

// historyRoots are the checkouts whose transcripts make the project's history (HistoryRoots),
// found through the repository already located once.
func (p *Project) historyRoots() []string {
	if r := p.Repo(); r.Common != "" {
		return worktreesOf(p.Root, r)
	}
	return []string{p.Root}
}

// isRegular reports whether path names a regular file (through links).
func isRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
