package setup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/pkg/setup/settings"
	"github.com/cairn-hooks/cairn/pkg/setup/skills"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// hookSpec is how one hook binary is registered.
type hookSpec struct {
	event, binary string
	timeout       int  // seconds
	noMatcher     bool // registered without a matcher (settings.Hook's NoMatcher)
}

// hookSpecs are cairn's hooks, each registered once with an empty matcher: the binaries gate
// themselves (a matcher is not to be relied on: docs/DESIGN.md, Facts about Claude Code). A
// timeout only bounds a stall — every hook finishes far inside it — and a timed-out hook's
// output is discarded, so each is set to what a stall may cost the user.
var hookSpecs = []hookSpec{
	// Startup work is small, but after a compaction it re-injects the whiteboard; 10 s stops a
	// stall without ever cutting a healthy run.
	{"SessionStart", "sessionstart", 10, false},
	// Runs on, and blocks, every prompt: a stall must cost seconds, not the 30 s default.
	{"UserPromptSubmit", "userpromptsubmit", 5, false},
	// May scan a large transcript; it writes files and prints nothing, so a generous bound costs
	// nothing and a cut would lose a checkpoint.
	{"PreCompact", "precompact", 30, false},
	// Rewrites one checkpoint; only when PreCompact was missed does it scan the transcript as
	// PreCompact would, hence the same bound. Its output is discarded or shown to the user.
	{"PostCompact", "postcompact", 30, false},
	// All SessionEnd hooks share a 1.5 s budget unless a settings-file timeout raises it (to the
	// largest, at most 60 s): 5 s lets the TTL clean-up finish.
	{"SessionEnd", "sessionend", 5, false},
	// Runs before every tool call and holds it while it runs: a stall must cost seconds (a
	// PreToolUse hook that times out does not block the tool). With no matcher at all: from
	// 2.1.288 a PreToolUse matcher that fails to match fails closed, so the binary branches on
	// the tool's name itself.
	{"PreToolUse", "pretooluse", 5, true},
}

// hookNames are the binaries of hookSpecs, in order.
func hookNames() []string {
	var out []string
	for _, h := range hookSpecs {
		out = append(out, h.binary)
	}
	return out
}

// MCPBinary is the MCP server's binary, installed beside the CLI, which runs it as cairn mcp.
const MCPBinary = "cairn-mcp"

// ExeFile is the file name of the binary name on this platform: name.exe on Windows.
func ExeFile(name string) string { return name + exe() }

// exe is the suffix of executables on this platform.
func exe() string { return exeSuffix(runtime.GOOS) }

// exeSuffix is the suffix of executables on goos: Windows finds a program by its ".exe", and
// Claude Code's exec form needs a real .exe there (docs/DESIGN.md, Facts about Claude Code).
func exeSuffix(goos string) string {
	if goos == "windows" {
		return ".exe"
	}
	return ""
}

// hookCommand is the path of a hook binary as a hook handler's "command" names it on goos: bin
// (absolute) and the binary's file name, with forward slashes, which Claude Code spawns
// directly in exec form on every platform (Git Bash, which runs shell form on Windows, eats
// backslashes: docs/DESIGN.md, Facts about Claude Code). It takes goos rather than reading
// runtime.GOOS so that Windows paths are tested on any machine: a Windows bin directory
// ("C:\Users\me\cairn\bin", "\\host\share\bin") is spelt with "/" however the host's filepath
// would spell it, and is not cleaned, which would turn a UNC share's leading "//" into "/".
func hookCommand(goos, bin, binary string) string {
	if goos == "windows" {
		bin = strings.ReplaceAll(bin, `\`, "/")
	} else {
		bin = filepath.ToSlash(bin)
	}
	return strings.TrimRight(bin, "/") + "/" + binary + exeSuffix(goos)
}

// hookPlan is the hook handlers install wires, one per hookSpecs row, for binaries in bin on
// goos and the client cl: exec form, or for a client older than exec form, shell form with the
// path quoted. When the client is unknown (none found), the form every release starts: exec form
// while the path needs no quoting (an older client runs it through /bin/sh as it stands), else
// shell form with the path quoted.
func hookPlan(goos, bin string, cl client) []settings.Hook {
	var hs []settings.Hook
	for _, h := range hookSpecs {
		hook := settings.Hook{Event: h.event, Command: hookCommand(goos, bin, h.binary), Timeout: h.timeout, NoMatcher: h.noMatcher}
		if !cl.execForm() || !cl.known && needsQuoting(hook.Command) {
			hook.Command, hook.Shell = shellCommand(hook.Command), true
		}
		hs = append(hs, hook)
	}
	return hs
}

// scope is where an install goes: a project's .claude/ or the user's Claude config directory.
type scope struct {
	user     bool
	root     string // the directory every write is confined to
	settings string // settings.json
	skills   string // the skills directory
}

// gitignore is the .gitignore a project install keeps its block in; "" at user scope, which
// writes nothing into any project.
func (s scope) gitignore() string {
	if s.user {
		return ""
	}
	return filepath.Join(s.root, ".claude", ".gitignore")
}

func (s scope) name() string {
	if s.user {
		return "user"
	}
	return "project"
}

// scope resolves where to install. create makes a missing user config directory (install does,
// uninstall has nothing to remove from one).
func (t Target) scope(h Host, create bool) (scope, error) {
	if t.User {
		cfg, err := project.ConfigDir(h.Env)
		if err != nil {
			return scope{}, err
		}
		s := scope{user: true, root: cfg, settings: filepath.Join(cfg, "settings.json"), skills: filepath.Join(cfg, "skills")}
		if _, err := os.Stat(cfg); errors.Is(err, fs.ErrNotExist) {
			// Claude Code has not run as this user yet. Writes are confined to the config
			// directory, so it must exist; a dry run (or an uninstall, which writes nothing
			// there) confines to its nearest existing parent.
			if create && !t.DryRun {
				return s, os.MkdirAll(cfg, 0o700)
			}
			for s.root = filepath.Dir(cfg); !fileExists(s.root) && filepath.Dir(s.root) != s.root; {
				s.root = filepath.Dir(s.root)
			}
		}
		return s, nil
	}
	root := t.Project
	if !filepath.IsAbs(root) {
		root = filepath.Join(h.Cwd, root)
	}
	root = filepath.Clean(root)
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return scope{}, fmt.Errorf("project %s is not a directory", root)
	}
	claude := filepath.Join(root, ".claude")
	return scope{root: root, settings: filepath.Join(claude, "settings.json"), skills: filepath.Join(claude, "skills")}, nil
}

// binDir returns the directory of cairn's binaries: bin (--bin), else the directory of this cairn
// executable with symlinks resolved (~/.local/bin/cairn may be a link into the bin directory).
func (h Host) binDir(bin string) (string, error) {
	if bin != "" {
		if filepath.IsAbs(bin) {
			return filepath.Clean(bin), nil
		}
		return filepath.Join(h.Cwd, bin), nil
	}
	self, err := h.Self()
	if err != nil {
		return "", fmt.Errorf("finding this executable: %w; pass --bin DIR", err)
	}
	return filepath.Dir(self), nil
}

// owner recognises cairn's entries: those running binaries from bin, or from any cairn/bin.
func owner(bin string) settings.Owner {
	return settings.Owner{BinDirs: []string{filepath.ToSlash(bin)}, Hooks: hookNames()}
}

// files is what install and uninstall write with: configFiles, or safefile.DryRun.
type files interface {
	Update(path string, perm fs.FileMode, edit safefile.Edit, opts ...safefile.Option) (bool, error)
	Remove(path string) error
}

// configFiles writes Claude Code's own files — settings.json and the skills — atomically and
// confined to the scope's directory, as safefile.Disk does, but without Disk's sidecar lock: it
// would leave a settings.json.lock beside the user's settings (in their repository, at project
// scope), and the other writer of these files, Claude Code, takes no lock of cairn's anyway.
type configFiles struct{ roots []string }

// root returns the tree path lies in.
func (f configFiles) root(path string) (string, error) {
	var first error
	for _, r := range f.roots {
		if _, err := safefile.Confine(r, path); err == nil {
			return r, nil
		} else if first == nil {
			first = err
		}
	}
	return "", first
}

// maxConfig bounds a settings file or a skill read for an edit, and maxClaudeJSON bounds
// ~/.claude.json, which Claude Code grows with every project it opens.
const (
	maxConfig     = 4 << 20
	maxClaudeJSON = 32 << 20
)

// configLimit is the bound for reading the config file at path.
func configLimit(path string) int64 {
	if filepath.Base(path) == ".claude.json" {
		return maxClaudeJSON
	}
	return maxConfig
}

// Update replaces path with what edit returns, keeping the file's mode; the same bytes, or
// safefile.ErrNoChange, leave it untouched. A symlink or a non-regular file is refused.
func (f configFiles) Update(path string, perm fs.FileMode, edit safefile.Edit, _ ...safefile.Option) (bool, error) {
	root, err := f.root(path)
	if err != nil {
		return false, err
	}
	fi, exists, err := writable(path)
	if err != nil {
		return false, err
	}
	if exists {
		perm = fi.Mode().Perm()
	}
	var old []byte
	if exists {
		if old, _, err = safefile.ReadFile(root, path, configLimit(path)); err != nil {
			return false, err
		}
	}
	next, err := edit(old, exists)
	if errors.Is(err, safefile.ErrNoChange) || err == nil && exists && bytes.Equal(old, next) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, safefile.WriteAtomic(root, path, next, perm)
}

// writable checks that install may replace path: missing, or a regular file, not a symlink.
// Install checks every file it will write before it writes any, so that a refusal leaves every
// file as it was.
func writable(path string) (fs.FileInfo, bool, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, false, fmt.Errorf("%s is a symlink: refusing to write through it; replace the link with a copy of its file, or wire the hooks into that file by hand", path)
	case !fi.Mode().IsRegular():
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	}
	return fi, true, nil
}

// Remove deletes path; a missing file is not an error. Removing takes no lock.
func (f configFiles) Remove(path string) error {
	return safefile.Disk{Roots: f.roots}.Remove(path)
}

func (s scope) writer(out io.Writer, dryRun bool) files {
	if dryRun {
		return safefile.DryRun{Out: out, Roots: []string{s.root}}
	}
	return configFiles{roots: []string{s.root}}
}

// readSettings reads a settings file for a change: missing reads as nil, and unless the change is
// a dry run, a file without any write permission is refused, even for root (who could write it
// anyway): a read-only settings.json is how a person says it is not to be edited by tools.
// A project's settings come with the repository, so they are read as any file of it is, without
// blocking, regular files only, at most maxConfig bytes: a FIFO there would stall the install,
// /dev/zero or a file of gigabytes fill its memory.
func readSettings(path string, dryRun bool) ([]byte, error) {
	data, fi, err := readConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !dryRun && fi.Mode().Perm()&0o222 == 0 {
		return nil, fmt.Errorf("%s is read-only (mode %04o): nothing was changed; make it writable, or make the change by hand (--dry-run prints it)", path, fi.Mode().Perm())
	}
	return data, nil
}

// readConfig reads a settings file or a skill, following a link as Claude Code does (a
// dotfiles manager links ~/.claude/settings.json), without blocking, regular files only, at
// most configLimit bytes.
func readConfig(path string) ([]byte, fs.FileInfo, error) {
	return safefile.ReadLoose(path, configLimit(path))
}

func settingsError(path string, err error) error {
	if errors.Is(err, settings.ErrInvalid) {
		msg := strings.TrimPrefix(err.Error(), settings.ErrInvalid.Error()+": ")
		return fmt.Errorf("%s: %s; nothing was changed: fix the file, then run this again", path, msg)
	}
	return err // it names the file already
}

// InstallOptions are what cairn install is given beside the [Target].
type InstallOptions struct {
	Target
	// AllowBash true adds the permission rule that lets Claude run the cairn CLI (and every
	// tool of its MCP server) without asking, false removes it, nil keeps what an earlier
	// install chose.
	AllowBash *bool
	// ClaudeVersion is the Claude Code release to wire for; "" for $CAIRN_CLAUDE_VERSION, else
	// what claude --version on PATH says.
	ClaudeVersion string
}

// Install wires cairn in at o's scope: its hooks into settings.json, its skills, its MCP server
// and, at project scope, the block of .claude/.gitignore (the route is in the package doc). It
// prints a line per file on h.Out, or under DryRun the diffs and nothing else changes. Every file
// is checked before the first is written, so a refusal leaves each as it was.
func Install(ctx context.Context, h Host, o InstallOptions) error {
	f := o.Target
	s, err := f.scope(h, true)
	if err != nil {
		return err
	}
	bin, err := h.binDir(f.Bin)
	if err != nil {
		return err
	}
	// The install-time self-test: a hook that cannot start is a silent no-op in Claude Code
	// (docs/DESIGN.md, Facts about Claude Code), so every binary must be there, run, and be this
	// version before anything is wired. A dry run may plan for a bin directory not filled yet
	// (install.sh --dry-run builds elsewhere): the binaries beside this cairn, which would be
	// installed there, are tested.
	tested := bin
	if f.DryRun && !fileExists(filepath.Join(bin, settings.CLIName+exe())) {
		self, err := h.binDir("")
		if err != nil {
			return err
		}
		fmt.Fprintf(h.Out, "note: %s holds no cairn yet; testing the binaries beside this one, in %s\n", bin, self)
		tested = self
	}
	if err := selfTest(ctx, h.Env, tested); err != nil {
		return err
	}
	cl, err := installClient(ctx, h, o.ClaudeVersion)
	if err != nil {
		return err
	}
	cli := filepath.Join(bin, settings.CLIName+exe())
	p := settings.Plan{Rule: "Bash(" + filepath.ToSlash(cli) + ":*)"}
	switch {
	case o.AllowBash != nil && *o.AllowBash:
		p.RuleMode = settings.AddRule
	case o.AllowBash != nil:
		p.RuleMode = settings.RemoveRule
	}
	p.Hooks = hookPlan(runtime.GOOS, bin, cl)
	own := owner(bin)

	// Check everything before writing anything, so a refusal leaves every file as it was.
	old, err := readSettings(s.settings, f.DryRun)
	if err != nil {
		return err
	}
	mp, err := planMCP(h, s, cli, own, o.AllowBash, old, f.DryRun)
	if err != nil {
		return err
	}
	if s.user {
		p.MCPRules = mp.rules
	}
	if _, err := settings.Install(old, p, own); err != nil {
		return settingsError(s.settings, err)
	}
	type skillFile struct {
		name, path string
		data       []byte
		skip       bool
	}
	var sks []skillFile
	for _, name := range skills.Names {
		data, err := skills.Render(name, filepath.ToSlash(cli), skills.ToolsInstalled)
		if err != nil {
			return err
		}
		path := filepath.Join(s.skills, name, "SKILL.md")
		cur, _, err := readConfig(path)
		skip := err == nil && !skills.IsCairn(cur)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		sks = append(sks, skillFile{name, path, data, skip})
	}

	// Every file written is checked first: a link or a FIFO found at the last one would otherwise
	// refuse the install after the others were written.
	targets := []string{s.settings, mp.server, mp.approval, s.gitignore()}
	for _, sk := range sks {
		if !sk.skip {
			targets = append(targets, sk.path)
		}
	}
	for _, t := range targets {
		if _, _, err := writable(t); t != "" && err != nil {
			return err
		}
	}
	// and the files install writes itself must lie inside the scope's directory at the moment of
	// the check: a linked .claude/skills/<name> that leads out of it would be refused by the write,
	// after settings.json was written (hooks wired, no skills, no MCP entry).
	inScope := []string{s.settings, s.gitignore()}
	for _, sk := range sks {
		if !sk.skip {
			inScope = append(inScope, sk.path)
		}
	}
	for _, t := range inScope {
		if t == "" {
			continue
		}
		if _, err := (configFiles{roots: []string{s.root}}).root(t); err != nil {
			return fmt.Errorf("%s: %w; nothing was installed: replace the link with a directory of its own and run cairn install again", t, err)
		}
	}

	w := s.writer(h.Out, f.DryRun)
	existed := fileExists(s.settings)
	changed, err := w.Update(s.settings, 0o644, func(old []byte, _ bool) ([]byte, error) {
		return settings.Install(old, p, own)
	})
	if err != nil {
		return settingsError(s.settings, err)
	}
	switch {
	case !cl.known && needsQuoting(hookCommand(runtime.GOOS, bin, "cairn")):
		fmt.Fprintf(h.Out, "client: no Claude Code version found (no claude on PATH that says one; --claude-version or $%s names it): hooks in shell form with each path quoted, which every release can start\n", ClientVersionEnv)
	case !cl.known:
		fmt.Fprintf(h.Out, "client: no Claude Code version found (no claude on PATH that says one; --claude-version or $%s names it): hooks in exec form, which every release can start at this path\n", ClientVersionEnv)
	case cl.known && cl.execForm():
		fmt.Fprintf(h.Out, "client: %s (%s): hooks in exec form\n", cl, cl.from)
	case cl.known:
		fmt.Fprintf(h.Out, "client: %s (%s) runs hook commands through /bin/sh and ignores args (exec form needs %s): hooks in shell form, each path quoted\n", cl, cl.from, execFormSince)
	}
	if !f.DryRun {
		fmt.Fprintf(h.Out, "hooks: %s %s\n", outcome(changed, existed), s.settings)
	}
	for _, sk := range sks {
		if sk.skip {
			h.Warn("%s was not written by cairn and is left as it is; move it away and run cairn install again to install cairn's /%s", sk.path, sk.name)
			continue
		}
		existed := fileExists(sk.path)
		changed, err := w.Update(sk.path, 0o644, func(old []byte, exists bool) ([]byte, error) {
			if exists && !skills.IsCairn(old) {
				return nil, fmt.Errorf("%s appeared during the install and is not cairn's: left as it is", sk.path)
			}
			return sk.data, nil
		})
		if err != nil {
			return err
		}
		if !f.DryRun {
			fmt.Fprintf(h.Out, "skill %s: %s %s\n", sk.name, outcome(changed, existed), sk.path)
		}
	}
	if err := mp.wire(h, s, own, f.DryRun); err != nil {
		return err
	}
	if gi := s.gitignore(); gi != "" {
		existed := fileExists(gi)
		changed, err := w.Update(gi, 0o644, func(old []byte, _ bool) ([]byte, error) { return withIgnoreBlock(old), nil })
		if err != nil {
			return err
		}
		if !f.DryRun {
			fmt.Fprintf(h.Out, "gitignore: %s %s (runtime state, binaries and settings.local.json)\n", outcome(changed, existed), gi)
		}
	}
	warnOtherScope(h, s, own)
	if !installShLayout(bin) {
		// install.sh copies the binaries into a directory of their own; anything else (an
		// unpacked release in Downloads, go install's GOBIN) is wired where it stands.
		fmt.Fprintf(h.Out, "note: the hooks run from %s, where these binaries are: moving or deleting that directory stops them; to keep cairn elsewhere, move it first and run its cairn install again\n", bin)
	}
	if f.DryRun {
		fmt.Fprintln(h.Out, "dry run: nothing was changed")
		return nil
	}
	fmt.Fprintf(h.Out, "cairn %s is wired in at %s scope; check it with: %s doctor\n", version.String(), s.name(), skills.ShellQuote(cli))
	return nil
}

func outcome(changed, existed bool) string {
	switch {
	case !changed:
		return "unchanged"
	case existed:
		return "updated"
	default:
		return "created"
	}
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// warnOtherScope warns when the other scope's settings wire cairn too: Claude Code merges hook
// entries across settings files, so each hook would run twice. A project install looks at the
// user's settings; a user install at the project of the working directory and at every project
// Claude Code has opened (otherProjects). The hint is the command that removes the other
// install whole (removeAdvice).
func warnOtherScope(h Host, s scope, own settings.Owner) {
	cfg, _ := project.ConfigDir(h.Env)
	type other struct{ file, root string }
	var others []other
	if s.user {
		for _, root := range otherProjects(h) {
			others = append(others, other{filepath.Join(root, ".claude", "settings.json"), root},
				other{filepath.Join(root, ".claude", "settings.local.json"), root})
		}
	} else {
		if cfg != "" {
			others = append(others, other{filepath.Join(cfg, "settings.json"), s.root})
		}
		others = append(others, other{filepath.Join(s.root, ".claude", "settings.local.json"), s.root})
	}
	warned := 0
	for _, o := range others {
		data, _, err := readConfig(o.file)
		if err != nil {
			continue
		}
		es, err := settings.Entries(data, own)
		if err != nil {
			continue
		}
		i := slices.IndexFunc(es, func(e settings.Entry) bool { return e.Cairn })
		if i < 0 {
			continue
		}
		if warned++; warned > maxOtherWarnings {
			continue
		}
		h.Warn("%s wires cairn's hooks too, so each would run twice", o.file)
		h.Hint("keep one install; remove that one with %s", removeAdvice(o.file, es[i].Executable(), cfg, o.root))
	}
	if warned > maxOtherWarnings {
		h.Warn("%d more settings files wire cairn's hooks too; cairn doctor in each project names them", warned-maxOtherWarnings)
	}
}

// maxOtherWarnings bounds the double-install warnings of one install.
const maxOtherWarnings = 5

// maxKnownProjects bounds the projects a user install looks into: each costs two small reads.
const maxKnownProjects = 1000

// otherProjects are the projects a user install looks for a project install in: the git top
// level of the working directory (or $CLAUDE_PROJECT_DIR), then every project Claude Code keeps
// state for in ~/.claude.json ("projects", keyed by absolute path), at most maxKnownProjects.
func otherProjects(h Host) []string {
	var roots []string
	if d := h.Env.Get("CLAUDE_PROJECT_DIR"); d != "" {
		roots = append(roots, filepath.Clean(d))
	} else if top, ok := project.GitTop(h.Cwd); ok && filepath.IsAbs(h.Cwd) {
		roots = append(roots, top)
	}
	if path, err := project.ClaudeJSON(h.Env); err == nil {
		if data, _, err := readConfig(path); err == nil {
			gjson.GetBytes(data, "projects").ForEach(func(k, _ gjson.Result) bool {
				if p := k.String(); filepath.IsAbs(p) && !slices.Contains(roots, filepath.Clean(p)) {
					roots = append(roots, filepath.Clean(p))
				}
				return len(roots) < maxKnownProjects
			})
		}
	}
	return roots
}

// selfTest checks that every binary of cairn is in bin, executable, and answers --version with
// this cairn's version.
func selfTest(ctx context.Context, env project.Env, bin string) error {
	want := version.String()
	for _, name := range slices.Concat(hookNames(), []string{settings.CLIName, MCPBinary}) {
		path := filepath.Join(bin, name+exe())
		got, err := binaryVersion(ctx, env, path, name)
		if err != nil {
			return withHint(err, "build and install every binary with install.sh, or pass --bin DIR")
		}
		if got != want {
			return withHint(fmt.Errorf("%s is version %s but this cairn is %s", path, got, want), "install every binary from one build with install.sh")
		}
	}
	return nil
}

// versionTimeout bounds `<binary> --version`, which answers at once.
const versionTimeout = 10 * time.Second

// binaryVersion runs `path --version` in env and returns the version from its "<name> <version>"
// line.
func binaryVersion(ctx context.Context, env project.Env, path, name string) (string, error) {
	if err := checkExecutable(path); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = env.List()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", path, err)
	}
	line := strings.TrimSpace(string(out))
	v, ok := strings.CutPrefix(line, name+" ")
	if !ok || strings.ContainsAny(v, " \n") {
		return "", fmt.Errorf("%s --version printed %q, not \"%s <version>\": is it cairn's?", path, line, name)
	}
	return v, nil
}

// UninstallOptions are what cairn uninstall is given beside the [Target].
type UninstallOptions struct {
	Target
	// SearchCache is the cache directory the project's search index may be kept in ("" for
	// none): the index is derived from the project, and goes with the install.
	SearchCache string
}

// Uninstall takes back what [Install] wrote at o's scope — cairn's hook handlers and permission
// rules, its skills, its MCP server's entry and approval, the .gitignore block — and nothing
// else: a file left holding nothing but cairn's goes, one that holds anything more is edited.
// At project scope it removes the search index. The data (runs, checkpoints, parked items) stays.
func Uninstall(h Host, o UninstallOptions) error {
	f := o.Target
	s, err := f.scope(h, false)
	if err != nil {
		return err
	}
	bin, err := h.binDir(f.Bin)
	if err != nil {
		return err
	}
	own := owner(bin)

	// Check before changing anything.
	old, err := readSettings(s.settings, f.DryRun)
	if err != nil {
		return err
	}
	next, removed, err := settings.Uninstall(old, own)
	if err != nil {
		return settingsError(s.settings, err)
	}
	what := removedText(old, own, removed)

	w := s.writer(h.Out, f.DryRun)
	switch {
	case removed == 0:
		if !f.DryRun {
			fmt.Fprintf(h.Out, "hooks: none of cairn's in %s\n", s.settings)
		}
	case settings.Empty(next):
		// Nothing is left but cairn's: the file says nothing more than a missing one.
		if err := w.Remove(s.settings); err != nil {
			return err
		}
		if !f.DryRun {
			fmt.Fprintf(h.Out, "hooks: removed %s; %s held nothing else and is removed\n", what, s.settings)
		}
	default:
		if _, err := w.Update(s.settings, 0o644, func(old []byte, _ bool) ([]byte, error) {
			out, _, err := settings.Uninstall(old, own)
			return out, err
		}); err != nil {
			return settingsError(s.settings, err)
		}
		if !f.DryRun {
			fmt.Fprintf(h.Out, "hooks: removed %s from %s\n", what, s.settings)
		}
	}

	gone := map[string]bool{}
	for _, name := range skills.Names {
		path := filepath.Join(s.skills, name, "SKILL.md")
		data, _, err := readConfig(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !skills.IsCairn(data) {
			h.Warn("%s was not written by cairn and is left as it is", path)
			continue
		}
		if err := w.Remove(path); err != nil {
			return err
		}
		gone[path] = true
		if removeEmptyDir(h.Out, filepath.Dir(path), gone, f.DryRun) {
			gone[filepath.Dir(path)] = true
		}
		if !f.DryRun {
			fmt.Fprintf(h.Out, "skill %s: removed %s\n", name, path)
		}
	}
	if len(gone) > 0 {
		removeEmptyDir(h.Out, s.skills, gone, f.DryRun)
	}
	if err := unwireMCP(h, s, own, f.DryRun); err != nil {
		return err
	}
	if err := unignore(h.Out, s, w, f.DryRun); err != nil {
		return err
	}
	if !s.user {
		removeSearchIndex(h, s.root, o.SearchCache, f.DryRun)
	}
	if f.DryRun {
		fmt.Fprintln(h.Out, "dry run: nothing was changed")
		return nil
	}
	fmt.Fprintf(h.Out, "cairn is unwired from %s scope; its data (.agents/, .claude/state/, memory/, .notes/) is kept\n", s.name())
	return nil
}

// unignore takes cairn's block out of the project's .claude/.gitignore, and the file with it
// when nothing else is left.
func unignore(out io.Writer, s scope, w files, dryRun bool) error {
	gi := s.gitignore()
	if gi == "" {
		return nil
	}
	data, _, err := readConfig(gi)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	rest, had := withoutIgnoreBlock(data)
	switch {
	case !had:
		return nil
	case len(bytes.TrimSpace(rest)) == 0:
		if err := w.Remove(gi); err != nil {
			return err
		}
		if !dryRun {
			fmt.Fprintf(out, "gitignore: removed cairn's block from %s, which held nothing else and is removed\n", gi)
		}
	default:
		if _, err := w.Update(gi, 0o644, func(old []byte, _ bool) ([]byte, error) {
			kept, _ := withoutIgnoreBlock(old)
			return kept, nil
		}); err != nil {
			return err
		}
		if !dryRun {
			fmt.Fprintf(out, "gitignore: removed cairn's block from %s\n", gi)
		}
	}
	return nil
}

// removeSearchIndex removes the project's search index, which is derived from its files (its
// data stays): in the user's cache directory, and in .claude/cairn/search/ when it went there.
// A failure is a warning: the index is not cairn's wiring.
func removeSearchIndex(h Host, root, cache string, dryRun bool) {
	if dryRun {
		var dirs []string
		if cache != "" {
			_, d := search.Location(root, cache)
			dirs = append(dirs, d)
		}
		_, d := search.Location(root, "")
		for _, d := range append(dirs, d) {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
				fmt.Fprintf(h.Out, "remove %s%c (the search index)\n", d, filepath.Separator)
			}
		}
		return
	}
	gone, err := search.Remove(root, cache)
	if err != nil {
		h.Warn("removing the search index: %v", err)
	}
	for _, d := range gone {
		fmt.Fprintf(h.Out, "search index: removed %s\n", d)
	}
	// .claude/cairn/ held only the index (install.sh's bin directory, if any, is removed after
	// this, and the directory with it).
	if dir := filepath.Join(root, ".claude", "cairn"); len(gone) > 0 {
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
			os.Remove(dir) // only when empty
		}
	}
}

// removedText says what settings.Uninstall removed from data, which held removed of cairn's
// entries: its hook handlers, and the rest permission rules ("5 hooks and 1 permission rule").
func removedText(data []byte, own settings.Owner, removed int) string {
	hooks := 0
	if es, err := settings.Entries(data, own); err == nil {
		for _, e := range es {
			if e.Cairn {
				hooks++
			}
		}
	}
	hooks = min(hooks, removed)
	var parts []string
	if hooks > 0 {
		parts = append(parts, plural(hooks, "hook", "hooks"))
	}
	if rules := removed - hooks; rules > 0 {
		parts = append(parts, plural(rules, "permission rule", "permission rules"))
	}
	return strings.Join(parts, " and ")
}

// installShLayout reports whether bin is a bin directory install.sh made: <…>/cairn/bin, which
// holds cairn's binaries and nothing else.
func installShLayout(bin string) bool {
	return filepath.Base(bin) == "bin" && filepath.Base(filepath.Dir(bin)) == "cairn"
}

// plural is n and the noun, singular or plural.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// removeEmptyDir removes dir when it holds nothing but what uninstall removed (gone, which a dry
// run has only pretended to remove): a directory cairn emptied. It reports whether it removed
// it, or in a dry run would have.
func removeEmptyDir(out io.Writer, dir string, gone map[string]bool, dryRun bool) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !gone[filepath.Join(dir, e.Name())] {
			return false
		}
	}
	if dryRun {
		fmt.Fprintf(out, "remove %s%c\n", dir, filepath.Separator)
		return true
	}
	return os.Remove(dir) == nil
}
