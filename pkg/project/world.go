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
// A Project is used by one goroutine at a time (a hook or a command is one); it is passed as a
// pointer because it memoises what it reads once (Project.branch).
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
}

// Branch is the checked-out branch of Root (branch), read once per process.
func (p *Project) Branch() string {
	if !p.branchRead {
		p.branch, p.branchRead = branch(p.Root), true
	}
	return p.branch
}

// SessionRanHere reports whether Claude Code on this machine ran session sid in this project: its
// transcript is <config>/projects/<slug>/<sid>.jsonl, where slug is the root's or, for a session
// started in a directory below the root, one that begins with the root's and a dash
// (TranscriptDirs). A repository can commit any file of cairn's, a session id included, but not a
// file in the user's config directory: this is how cairn tells the sessions of this machine from
// those a clone brought along.
func (p *Project) SessionRanHere(sid string) bool {
	if p.Config == "" || !SafeName(sid) {
		return false
	}
	projects := filepath.Join(p.Config, "projects")
	name := sid + ".jsonl"
	regular := func(dir string) bool {
		fi, err := os.Stat(filepath.Join(projects, dir, name))
		return err == nil && fi.Mode().IsRegular()
	}
	if regular(Slug(p.Root)) { // the common case, without listing the directory
		return true
	}
	for _, d := range TranscriptDirs(p.Config, []string{p.Root}) {
		if !d.Exact && regular(d.Name) {
			return true
		}
	}
	return false
}
