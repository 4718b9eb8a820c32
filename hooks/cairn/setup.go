package main

// The installation's commands — cairn install, uninstall, doctor and plugin build — as command
// glue: each parses its flags, calls one function of pkg/setup, which does the work, and prints
// what it is given back.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/setup"
	"github.com/cairn-hooks/cairn/pkg/setup/skills"
	"github.com/cairn-hooks/cairn/pkg/version"
)

func init() {
	topLevel["install"] = command{"[--user | --project DIR] [--bin DIR] [--dry-run] [--allow-bash] [--claude-version V]",
		"wire cairn's hooks into Claude Code's settings.json, install its skills and register its MCP server (.mcp.json, approved in .claude/settings.local.json; at user scope ~/.claude.json)", runInstall}
	topLevel["uninstall"] = command{"[--user | --project DIR] [--bin DIR] [--dry-run]",
		"remove cairn's hooks, permission rules, skills and MCP server entry; user data stays", runUninstall}
	topLevel["doctor"] = command{"[--json] [--fix [--dry-run]]",
		"check the hook wiring, the skills, the MCP server, the plugin, the state files and Claude Code's memory index, and report the hooks' real latency; --fix removes pointers to parked items that are gone from Claude Code's memory index", runDoctor}
	register("plugin", "build", command{"--out DIR [--bin DIR]",
		"build a Claude Code plugin, which is also a marketplace serving it, from cairn's binaries for one platform (those in --bin, default this cairn's)", runPluginBuild})
}

// host is the machine as pkg/setup is given it: the CLI's environment, working directory and
// executable, its output and its voice.
func (c *CLI) host() setup.Host {
	return setup.Host{Env: c.Env, Cwd: c.Cwd, Self: self, Out: c.Stdout, Warn: c.Warn, Hint: c.Hint}
}

// self is this cairn executable with symlinks resolved: ~/.local/bin/cairn may be a link into
// the bin directory, where the other binaries are.
func self() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p, nil
}

// setupError maps pkg/setup's outcomes onto the CLI's: a refusal of what the command was given
// is a usage error, and an error with a hint is followed by it.
func setupError(err error) error {
	var ue setup.UsageError
	var he setup.HintedError
	switch {
	case errors.As(err, &ue):
		return usagef("%s", ue.Error())
	case errors.As(err, &he):
		return withHint(err, he.Hint)
	}
	return err
}

// installFlags are the flags install and uninstall share.
type installFlags struct {
	user    bool
	project string
	bin     string
	dryRun  bool
}

// define adds the flags to fs; uninstall's help says what they remove, not what they install.
func (f *installFlags) define(fs *flag.FlagSet, uninstall bool) {
	user, proj := "install for every project: in $CLAUDE_CONFIG_DIR or ~/.claude", "install into this project's .claude/ (default: the current project)"
	if uninstall {
		user, proj = "remove the install for every project, from $CLAUDE_CONFIG_DIR or ~/.claude", "remove the install from this project's .claude/ (default: the current project)"
	}
	fs.BoolVar(&f.user, "user", false, user)
	fs.StringVar(&f.project, "project", "", proj)
	fs.StringVar(&f.bin, "bin", "", "directory holding cairn's binaries (default: this cairn's directory)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print every change (diffs), change nothing")
}

// target is where the flags say to work: at project scope without --project, the current
// project (CLI.Project, which warns outside git).
func (f installFlags) target(c *CLI) (setup.Target, error) {
	if f.user && f.project != "" {
		return setup.Target{}, usagef("--user and --project are exclusive")
	}
	t := setup.Target{User: f.user, Project: f.project, Bin: f.bin, DryRun: f.dryRun}
	if !f.user && f.project == "" {
		p, err := c.Project()
		if err != nil {
			return setup.Target{}, err
		}
		t.Project = p.Root
	}
	return t, nil
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

func runInstall(ctx context.Context, c *CLI, args []string) error {
	fl := flag.NewFlagSet("install", flag.ContinueOnError)
	var f installFlags
	f.define(fl, false)
	var allow optBool
	fl.Var(&allow, "allow-bash", "add a permission rule that lets Claude run the cairn CLI without asking")
	claudeVersion := fl.String("claude-version", "", "wire for this Claude Code release (default: $"+setup.ClientVersionEnv+", else what claude --version on PATH says)")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("", "install")
	}
	t, err := f.target(c)
	if err != nil {
		return err
	}
	o := setup.InstallOptions{Target: t, ClaudeVersion: *claudeVersion}
	if allow.set {
		o.AllowBash = &allow.val
	}
	return setupError(setup.Install(ctx, c.host(), o))
}

func runUninstall(ctx context.Context, c *CLI, args []string) error {
	fl := flag.NewFlagSet("uninstall", flag.ContinueOnError)
	var f installFlags
	f.define(fl, true)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("", "uninstall")
	}
	t, err := f.target(c)
	if err != nil {
		return err
	}
	return setupError(setup.Uninstall(c.host(), setup.UninstallOptions{Target: t, SearchCache: searchCacheDir(c.Env)}))
}

func runDoctor(ctx context.Context, c *CLI, args []string) error {
	fl := flag.NewFlagSet("doctor", flag.ContinueOnError)
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fix := fl.Bool("fix", false, "repair what doctor can: pointers in Claude Code's memory index to parked-item files that are gone")
	dryRun := fl.Bool("dry-run", false, "with --fix: print the change as a diff after the report, and write nothing")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageOf("", "doctor")
	case *dryRun && !*fix:
		return usagef("--dry-run goes with --fix; %v", usageOf("", "doctor"))
	case *dryRun && *asJSON:
		return usagef("--dry-run prints a diff, which is not JSON; %v", usageOf("", "doctor"))
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	o := setup.DoctorOptions{Fix: *fix, DryRun: *dryRun}
	o.Self, _ = self()
	var planned bytes.Buffer
	if *dryRun {
		o.Files = safefile.DryRun{Out: &planned, Roots: []string{p.Root}}
	}
	r := setup.Doctor(ctx, p, o)
	if *asJSON {
		latency := r.Latency
		if latency == nil {
			latency = []setup.HookLatency{}
		}
		b, _ := json.MarshalIndent(struct {
			OK       bool                `json:"ok"`
			Checks   []setup.Finding     `json:"checks"`
			Latency  []setup.HookLatency `json:"latency"`
			Version  string              `json:"version"`
			Project  string              `json:"project"`
			Settings []string            `json:"settings_files"`
		}{r.Failed() == 0, r.Findings, latency, version.String(), p.Root, r.SettingsFiles}, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
	} else {
		for _, f := range r.Findings {
			fmt.Fprintf(c.Stdout, "%-4s %s: %s\n", f.Status, f.Check, f.Detail)
		}
		if planned.Len() > 0 {
			// The index is Claude Code's file, and may hold anything a terminal would obey.
			fmt.Fprintf(c.Stdout, "\n%s", plain.Terminal(planned.String()))
		}
	}
	if n := r.Failed(); n > 0 {
		return fmt.Errorf("doctor found %d problem(s)", n)
	}
	return nil
}

func runPluginBuild(ctx context.Context, c *CLI, args []string) error {
	fl := flag.NewFlagSet("plugin build", flag.ContinueOnError)
	out := fl.String("out", "", "the directory to create: the plugin, and a marketplace listing it")
	bin := fl.String("bin", "", "directory holding the binaries to package, for any one platform (default: this cairn's directory)")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *out == "" {
		return usageOf("plugin", "build")
	}
	pl, err := setup.BuildPlugin(c.host(), *out, *bin)
	if err != nil {
		return setupError(err)
	}
	fmt.Fprintf(c.Stdout, "plugin %s %s for %s/%s in %s: %d hooks, %d skills, the MCP server (cairn mcp)\n",
		pl.Name, pl.Version, pl.GOOS, pl.GOARCH, pl.Dir, pl.Hooks, pl.Skills)
	fmt.Fprintf(c.Stdout, "install: claude plugin marketplace add %s && claude plugin install %s@%s\n",
		skills.ShellQuote(pl.Dir), pl.Name, pl.Marketplace)
	return nil
}
