// Package setup puts cairn into Claude Code, takes it out again and checks what is there: the
// install and uninstall of its hooks, skills and MCP server at a project's or the user's scope,
// the plugin build, cairn doctor's checks, and the detection of the Claude Code release the hooks
// are wired for. The cairn CLI parses the flags, calls one function here and prints what it is
// given back; nothing here reads os.Getenv, time.Now or a standard stream: the environment, the
// working directory, this executable, the output and the voice come in a [Host], and the project
// doctor checks in a [project.Project].
//
// [Install] (cairn install), in order:
//  1. resolves the [Target]: the scope (a project's .claude/ or the user's config directory,
//     Target.scope) and the directory of the binaries (Host.binDir);
//  2. runs the self-test: every binary there answers --version with this cairn's version
//     (selfTest), since a hook that cannot start is a silent no-op in Claude Code;
//  3. finds the client: --claude-version, $CAIRN_CLAUDE_VERSION, else what `claude --version`
//     says (installClient), which decides the hooks' form (hookPlan);
//  4. plans every file before it writes any — settings.json (settings.Install), the skills
//     (skills.Render), the MCP server's entry and approval (planMCP), the block in
//     .claude/.gitignore (withIgnoreBlock) — and checks that each may be written, inside the scope
//     (writable, configFiles.root);
//  5. writes them in that order through configFiles (atomic, confined, no lock file left beside
//     the user's settings), or prints each change as a diff under --dry-run (safefile.DryRun), and
//     warns when the other scope wires cairn too (warnOtherScope).
//
// [Uninstall] takes back what install wrote and nothing else, in the same order, and removes the
// project's search index. [Doctor] reads — and runs nothing a repository supplies — the settings
// files, the plugins Claude Code loads, the skills, the MCP registrations, the state files, Claude
// Code's memory index, the transcripts' record of the hooks' latency and cairn.log's repairs, and
// returns a [Report]. [BuildPlugin] writes cairn as a plugin for one platform from the same hook
// table (hookSpecs), skill templates and MCP entry as install.
//
// Two parts are packages of their own below this one: setup/settings edits a settings file by
// splicing bytes, knowing nothing of scopes or files (a thousand lines and a fuzz test of their
// own), and setup/skills owns the embedded SKILL.md templates, which cairn context's file filter
// and the skills test read too. The version stamp reader ([Stamp], once pkg/buildstamp) is folded
// in: doctor and the plugin build are its only callers, and it stood alone only to keep
// debug/buildinfo out of the hooks, which this package's place (linked by the CLI alone,
// testscripts' TestLayering) now does.
package setup

import (
	"io"

	"github.com/cairn-hooks/cairn/pkg/project"
)

// Host is the machine a command of this package runs on, as values: the environment (Claude
// Code's config directory, $CLAUDE_PROJECT_DIR, PATH and $CAIRN_CLAUDE_VERSION are read from it),
// the working directory that relative paths start from, this cairn executable, where the command's
// lines go, and the voice for warnings and the hints that follow them.
type Host struct {
	Env project.Env
	Cwd string
	// Self returns this cairn executable, symlinks resolved: the other binaries are beside it. It
	// is called only when a path is not given.
	Self func() (string, error)
	Out  io.Writer
	Warn func(format string, args ...any)
	Hint func(format string, args ...any)
}

// Target is where install and uninstall work, as the flags they share say it.
type Target struct {
	User    bool   // the user's config directory ($CLAUDE_CONFIG_DIR or ~/.claude): every project
	Project string // the project's root at project scope: absolute, or relative to Host.Cwd; not read when User
	Bin     string // the directory of cairn's binaries: absolute, relative to Host.Cwd, or "" for this cairn's
	DryRun  bool   // print every change as a diff and change nothing
}

// UsageError is a refusal of what the command was given rather than of a file: a client version
// that is not one. The CLI reports it as a usage error.
type UsageError struct{ msg string }

func (e UsageError) Error() string { return e.msg }

// HintedError is an error and the line that says what to do about it.
type HintedError struct {
	Err  error
	Hint string
}

func (e HintedError) Error() string { return e.Err.Error() }
func (e HintedError) Unwrap() error { return e.Err }

// withHint adds a hint line to err.
func withHint(err error, hint string) error { return HintedError{err, hint} }
