package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/settings"
	"github.com/cairn-hooks/cairn/pkg/skills"
	"github.com/cairn-hooks/cairn/pkg/version"
)

func init() {
	topLevel["install"] = command{"[--user | --project DIR] [--bin DIR] [--dry-run] [--allow-bash]",
		"wire cairn's hooks into Claude Code's settings.json and install its skills", runInstall}
	topLevel["uninstall"] = command{"[--user | --project DIR] [--bin DIR] [--dry-run]",
		"remove cairn's hooks, permission rule and skills; user data stays", runUninstall}
}

// hookSpec is how one hook binary is registered.
type hookSpec struct {
	event, binary string
	timeout       int // seconds
}

// hookSpecs are cairn's hooks, each registered once with an empty matcher: the binaries gate
// themselves (SPEC §9). A timeout only bounds a stall — every hook finishes far inside it — and a
// timed-out hook's output is discarded, so each is set to what a stall may cost the user.
var hookSpecs = []hookSpec{
	// Startup work is small, but after a compaction it re-injects the whiteboard; 10 s stops a
	// stall without ever cutting a healthy run.
	{"SessionStart", "sessionstart", 10},
	// Runs on, and blocks, every prompt: a stall must cost seconds, not the 30 s default.
	{"UserPromptSubmit", "userpromptsubmit", 5},
	// May scan a large transcript; it writes files and prints nothing, so a generous bound costs
	// nothing and a cut would lose a checkpoint.
	{"PreCompact", "precompact", 30},
	// All SessionEnd hooks share a 1.5 s budget unless a settings-file timeout raises it (to the
	// largest, at most 60 s): 5 s lets the TTL clean-up finish (reference §2.4).
	{"SessionEnd", "sessionend", 5},
}

// exe is the suffix of executables on this platform.
func exe() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// hookCommand is the "command" of a hook handler: the absolute path with forward slashes, which
// Claude Code spawns directly in exec form on every platform (reference §6 #7).
func hookCommand(bin, binary string) string {
	return filepath.ToSlash(filepath.Join(bin, binary+exe()))
}

// scope is where an install goes: a project's .claude/ or the user's Claude config directory.
type scope struct {
	user     bool
	root     string // the directory every write is confined to
	settings string // settings.json
	skills   string // the skills directory
}

func (s scope) name() string {
	if s.user {
		return "user"
	}
	return "project"
}

// installFlags are the flags install and uninstall share.
type installFlags struct {
	user    bool
	project string
	bin     string
	dryRun  bool
}

func (f *installFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.user, "user", false, "install for every project: in $CLAUDE_CONFIG_DIR or ~/.claude")
	fs.StringVar(&f.project, "project", "", "install into this project's .claude/ (default: the current project)")
	fs.StringVar(&f.bin, "bin", "", "directory holding cairn's binaries (default: this cairn's directory)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print every change (diffs), change nothing")
}

// optBool is a boolean flag that remembers whether it was given: --allow-bash adds the rule,
// --allow-bash=false removes it, and leaving it out keeps what an earlier install chose.
type optBool struct{ set, val bool }

func (o *optBool) IsBoolFlag() bool { return true }
func (o *optBool) String() string   { return strconv.FormatBool(o.val) }
func (o *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	o.set, o.val = true, v
	return err
}

// scope resolves where to install. create makes a missing user config directory (install does,
// uninstall has nothing to remove from one).
func (f installFlags) scope(c *CLI, create bool) (scope, error) {
	if f.user && f.project != "" {
		return scope{}, usagef("--user and --project are exclusive")
	}
	if f.user {
		cfg, err := project.ConfigDir(c.Env)
		if err != nil {
			return scope{}, err
		}
		s := scope{user: true, root: cfg, settings: filepath.Join(cfg, "settings.json"), skills: filepath.Join(cfg, "skills")}
		if _, err := os.Stat(cfg); errors.Is(err, fs.ErrNotExist) {
			// Claude Code has not run as this user yet. Writes are confined to the config
			// directory, so it must exist; a dry run (or an uninstall, which writes nothing
			// there) confines to its nearest existing parent.
			if create && !f.dryRun {
				return s, os.MkdirAll(cfg, 0o700)
			}
			for s.root = filepath.Dir(cfg); !fileExists(s.root) && filepath.Dir(s.root) != s.root; {
				s.root = filepath.Dir(s.root)
			}
		}
		return s, nil
	}
	root := f.project
	if root == "" {
		r, err := c.Root()
		if err != nil {
			return scope{}, err
		}
		root = r
	} else if !filepath.IsAbs(root) {
		root = filepath.Join(c.Cwd, root)
	}
	root = filepath.Clean(root)
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return scope{}, fmt.Errorf("project %s is not a directory", root)
	}
	claude := filepath.Join(root, ".claude")
	return scope{root: root, settings: filepath.Join(claude, "settings.json"), skills: filepath.Join(claude, "skills")}, nil
}

// binDir returns the directory of cairn's binaries: --bin, else the directory of this cairn
// executable with symlinks resolved (~/.local/bin/cairn may be a link into the bin directory).
func (f installFlags) binDir(c *CLI) (string, error) {
	if f.bin != "" {
		if filepath.IsAbs(f.bin) {
			return filepath.Clean(f.bin), nil
		}
		return filepath.Join(c.Cwd, f.bin), nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this executable: %w; pass --bin DIR", err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	return filepath.Dir(self), nil
}

// owner recognises cairn's entries: those running binaries from bin, or from any cairn/bin.
func owner(bin string) settings.Owner {
	return settings.Owner{BinDirs: []string{filepath.ToSlash(bin)}}
}

// files is what install and uninstall write with: configFiles, or safefile.DryRun.
type files interface {
	Update(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (bool, error)
	Remove(path string) error
}

// configFiles writes Claude Code's own files — settings.json and the skills — atomically and
// confined to the scope's directory, as safefile.Disk does, but without Disk's sidecar lock: it
// would leave a settings.json.lock beside the user's settings (in their repository, at project
// scope), and the other writer of these files, Claude Code, takes no lock of cairn's anyway.
type configFiles struct{ roots []string }

func (f configFiles) confine(path string) (string, error) {
	var first error
	for _, r := range f.roots {
		p, err := project.Confine(r, path)
		if err == nil {
			return p, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", first
}

// Update replaces path with what fn returns, keeping the file's mode; the same bytes, or
// safefile.ErrNoChange, leave it untouched. A symlink or a non-regular file is refused.
func (f configFiles) Update(path string, perm fs.FileMode, fn func(old []byte, exists bool) ([]byte, error)) (bool, error) {
	path, err := f.confine(path)
	if err != nil {
		return false, err
	}
	fi, err := os.Lstat(path)
	exists := err == nil
	switch {
	case exists && fi.Mode()&fs.ModeSymlink != 0:
		return false, fmt.Errorf("%s is a symlink: refusing to write through it; replace the link with a copy of its file, or wire the hooks into that file by hand", path)
	case exists && !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s is not a regular file", path)
	case exists:
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	var old []byte
	if exists {
		if old, err = os.ReadFile(path); err != nil {
			return false, err
		}
	}
	next, err := fn(old, exists)
	if errors.Is(err, safefile.ErrNoChange) || err == nil && exists && bytes.Equal(old, next) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, safefile.WriteAtomic(path, next, perm)
}

// Remove deletes path; a missing file is not an error.
func (f configFiles) Remove(path string) error {
	path, err := f.confine(path)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (s scope) writer(c *CLI, dryRun bool) files {
	if dryRun {
		return safefile.DryRun{Out: c.Stdout, Roots: []string{s.root}}
	}
	return configFiles{roots: []string{s.root}}
}

// readSettings reads a settings file for a change: missing reads as nil, and unless the change is
// a dry run, a file without any write permission is refused, even for root (who could write it
// anyway): a read-only settings.json is how a person says it is not to be edited by tools.
func readSettings(path string, dryRun bool) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !dryRun && fi.Mode().Perm()&0o222 == 0 {
		return nil, fmt.Errorf("%s is read-only (mode %04o): nothing was changed; make it writable, or make the change by hand (--dry-run prints it)", path, fi.Mode().Perm())
	}
	return os.ReadFile(path)
}

func settingsError(path string, err error) error {
	if errors.Is(err, settings.ErrInvalid) {
		msg := strings.TrimPrefix(err.Error(), settings.ErrInvalid.Error()+": ")
		return fmt.Errorf("%s: %s; nothing was changed: fix the file, then run this again", path, msg)
	}
	return err // it names the file already
}

func runInstall(ctx context.Context, c *CLI, args []string) error {
	fl := flag.NewFlagSet("install", flag.ContinueOnError)
	var f installFlags
	f.define(fl)
	var allow optBool
	fl.Var(&allow, "allow-bash", "add a permission rule that lets Claude run the cairn CLI without asking")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("", "install")
	}
	s, err := f.scope(c, true)
	if err != nil {
		return err
	}
	bin, err := f.binDir(c)
	if err != nil {
		return err
	}
	// The install-time self-test (reference §6 #14): a hook that cannot start is a silent no-op
	// in Claude Code, so every binary must be there, run, and be this version before anything is
	// wired. A dry run may plan for a bin directory not filled yet (install.sh --dry-run builds
	// elsewhere): the binaries beside this cairn, which would be installed there, are tested.
	tested := bin
	if f.dryRun && !fileExists(filepath.Join(bin, settings.CLIName+exe())) {
		self, err := installFlags{}.binDir(c)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "note: %s holds no cairn yet; testing the binaries beside this one, in %s\n", bin, self)
		tested = self
	}
	if err := selfTest(ctx, tested); err != nil {
		return err
	}
	cli := filepath.Join(bin, settings.CLIName+exe())
	p := settings.Plan{Rule: "Bash(" + filepath.ToSlash(cli) + ":*)"}
	switch {
	case allow.set && allow.val:
		p.RuleMode = settings.AddRule
	case allow.set:
		p.RuleMode = settings.RemoveRule
	}
	for _, h := range hookSpecs {
		p.Hooks = append(p.Hooks, settings.Hook{Event: h.event, Command: hookCommand(bin, h.binary), Timeout: h.timeout})
	}
	own := owner(bin)

	// Check everything before writing anything, so a refusal leaves every file as it was.
	old, err := readSettings(s.settings, f.dryRun)
	if err != nil {
		return err
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
		data, err := skills.Render(name, filepath.ToSlash(cli))
		if err != nil {
			return err
		}
		path := filepath.Join(s.skills, name, "SKILL.md")
		cur, err := os.ReadFile(path)
		skip := err == nil && !skills.IsCairn(cur)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		sks = append(sks, skillFile{name, path, data, skip})
	}

	w := s.writer(c, f.dryRun)
	existed := fileExists(s.settings)
	changed, err := w.Update(s.settings, 0o644, func(old []byte, _ bool) ([]byte, error) {
		return settings.Install(old, p, own)
	})
	if err != nil {
		return settingsError(s.settings, err)
	}
	if !f.dryRun {
		fmt.Fprintf(c.Stdout, "hooks: %s %s\n", outcome(changed, existed), s.settings)
	}
	for _, sk := range sks {
		if sk.skip {
			fmt.Fprintf(c.Stderr, "cairn: warning: %s was not written by cairn and is left as it is; move it away and run cairn install again to install cairn's /%s\n", sk.path, sk.name)
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
		if !f.dryRun {
			fmt.Fprintf(c.Stdout, "skill %s: %s %s\n", sk.name, outcome(changed, existed), sk.path)
		}
	}
	warnOtherScope(c, s, own)
	if f.dryRun {
		fmt.Fprintln(c.Stdout, "dry run: nothing was changed")
		return nil
	}
	fmt.Fprintf(c.Stdout, "cairn %s is wired in at %s scope; check it with: %s doctor\n", version.String(), s.name(), skills.ShellQuote(cli))
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
// entries across settings files, so each hook would run twice.
func warnOtherScope(c *CLI, s scope, own settings.Owner) {
	var others []string
	if s.user {
		if root, err := c.Root(); err == nil {
			others = append(others, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
		}
	} else {
		if cfg, err := project.ConfigDir(c.Env); err == nil {
			others = append(others, filepath.Join(cfg, "settings.json"))
		}
		others = append(others, filepath.Join(s.root, ".claude", "settings.local.json"))
	}
	for _, o := range others {
		data, err := os.ReadFile(o)
		if err != nil {
			continue
		}
		es, err := settings.Entries(data, own)
		if err != nil {
			continue
		}
		for _, e := range es {
			if e.Cairn {
				fmt.Fprintf(c.Stderr, "cairn: warning: %s wires cairn's hooks too, so each would run twice\ncairn: hint: remove one copy with cairn uninstall (--user or --project DIR)\n", o)
				break
			}
		}
	}
}

// selfTest checks that every binary of cairn is in bin, executable, and answers --version with
// this cairn's version.
func selfTest(ctx context.Context, bin string) error {
	want := version.String()
	for _, name := range slices.Concat(settings.HookNames, []string{settings.CLIName}) {
		path := filepath.Join(bin, name+exe())
		got, err := binaryVersion(ctx, path, name)
		if err != nil {
			return fmt.Errorf("%w\ncairn: hint: build and install every binary with install.sh, or pass --bin DIR", err)
		}
		if got != want {
			return fmt.Errorf("%s is version %s but this cairn is %s\ncairn: hint: install every binary from one build with install.sh", path, got, want)
		}
	}
	return nil
}

// versionTimeout bounds `<binary> --version`, which answers at once.
const versionTimeout = 10 * time.Second

// binaryVersion runs `path --version` and returns the version from its "<name> <version>" line.
func binaryVersion(ctx context.Context, path, name string) (string, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s is missing", path)
	case err != nil:
		return "", err
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file", path)
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s is not executable", path)
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
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

func runUninstall(ctx context.Context, c *CLI, args []string) error {
	fl := flag.NewFlagSet("uninstall", flag.ContinueOnError)
	var f installFlags
	f.define(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("", "uninstall")
	}
	s, err := f.scope(c, false)
	if err != nil {
		return err
	}
	bin, err := f.binDir(c)
	if err != nil {
		return err
	}
	own := owner(bin)

	// Check before changing anything.
	old, err := readSettings(s.settings, f.dryRun)
	if err != nil {
		return err
	}
	next, removed, err := settings.Uninstall(old, own)
	if err != nil {
		return settingsError(s.settings, err)
	}

	w := s.writer(c, f.dryRun)
	switch {
	case removed == 0:
		if !f.dryRun {
			fmt.Fprintf(c.Stdout, "hooks: none of cairn's in %s\n", s.settings)
		}
	case settings.Empty(next):
		// Nothing is left but cairn's: the file says nothing more than a missing one.
		if err := w.Remove(s.settings); err != nil {
			return err
		}
		if !f.dryRun {
			fmt.Fprintf(c.Stdout, "hooks: removed %d of cairn's entries; %s held nothing else and is removed\n", removed, s.settings)
		}
	default:
		if _, err := w.Update(s.settings, 0o644, func(old []byte, _ bool) ([]byte, error) {
			out, _, err := settings.Uninstall(old, own)
			return out, err
		}); err != nil {
			return settingsError(s.settings, err)
		}
		if !f.dryRun {
			fmt.Fprintf(c.Stdout, "hooks: removed %d of cairn's entries from %s\n", removed, s.settings)
		}
	}

	gone := map[string]bool{}
	for _, name := range skills.Names {
		path := filepath.Join(s.skills, name, "SKILL.md")
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !skills.IsCairn(data) {
			fmt.Fprintf(c.Stderr, "cairn: warning: %s was not written by cairn and is left as it is\n", path)
			continue
		}
		if err := w.Remove(path); err != nil {
			return err
		}
		gone[path] = true
		if removeEmptyDir(c, filepath.Dir(path), gone, f.dryRun) {
			gone[filepath.Dir(path)] = true
		}
		if !f.dryRun {
			fmt.Fprintf(c.Stdout, "skill %s: removed %s\n", name, path)
		}
	}
	if len(gone) > 0 {
		removeEmptyDir(c, s.skills, gone, f.dryRun)
	}
	if f.dryRun {
		fmt.Fprintln(c.Stdout, "dry run: nothing was changed")
		return nil
	}
	fmt.Fprintf(c.Stdout, "cairn is unwired from %s scope; its data (.agents/, .claude/state/, memory/, .notes/) is kept\n", s.name())
	return nil
}

// removeEmptyDir removes dir when it holds nothing but what uninstall removed (gone, which a dry
// run has only pretended to remove): a directory cairn emptied. It reports whether it removed
// it, or in a dry run would have.
func removeEmptyDir(c *CLI, dir string, gone map[string]bool, dryRun bool) bool {
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
		fmt.Fprintf(c.Stdout, "remove %s%c\n", dir, filepath.Separator)
		return true
	}
	return os.Remove(dir) == nil
}
