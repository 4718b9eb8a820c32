package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/setup/settings"
	"github.com/cairn-hooks/cairn/pkg/setup/skills"
	"github.com/cairn-hooks/cairn/pkg/transcript"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// Latency report bounds.
const (
	// recentTranscripts: the newest few sessions give a median of the hooks as they are now
	// installed, not as they were weeks ago, and bound the work.
	recentTranscripts = 5
	// transcriptMaxBytes: each transcript is read from its end. A hook run is one short line, so
	// the last 32 MiB hold far more runs than a median needs, even in a transcript of gigabytes.
	transcriptMaxBytes = 32 << 20
	// sessionEndBudgetMs is the bound for a SessionEnd run in the worst state (docs/DESIGN.md,
	// Budgets): Claude Code cancels SessionEnd hooks after 1.5 s unless a timeout raises that.
	sessionEndBudgetMs = 500
)

// The outcomes of a check, as the report prints them.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "FAIL" // the install is broken: cairn doctor exits 1
)

// Finding is one line of the report: a check's outcome and what it found.
type Finding struct {
	Status string `json:"status"` // statusOK, statusWarn or statusFail
	Check  string `json:"check"`
	Detail string `json:"detail"`
}

// HookLatency is what the transcripts say about one hook.
type HookLatency struct {
	Event    string `json:"event"`
	Runs     int    `json:"runs"`
	MedianMs int64  `json:"median_ms"`
	MaxMs    int64  `json:"max_ms"`
	TimedOut int    `json:"timed_out"`
	Failed   int    `json:"failed"` // any outcome but success, timeouts included
}

type doctor struct {
	ctx      context.Context
	world    *project.Project // the project checked, Claude Code's config directory ("" when unknown), the environment, the clock
	self     string           // this cairn executable
	plugins  []cairnPlugin    // the cairn plugins Claude Code loads here (findPlugins)
	client   client           // the Claude Code installed here, as far as doctor can tell without running it
	findings []Finding
	latency  []HookLatency

	fix, dryRun bool            // --fix, --dry-run
	files       safefile.Writer // what --fix writes through: the project's, or a dry run
}

func (d *doctor) add(status, check, format string, args ...any) {
	d.findings = append(d.findings, Finding{status, check, fmt.Sprintf(format, args...)})
}

// DoctorOptions are what cairn doctor is given beside the project.
type DoctorOptions struct {
	Self   string // this cairn executable ("" when unknown): its version and its directory are the reference
	Fix    bool   // repair what doctor can: pointers to parked items gone from Claude Code's memory index
	DryRun bool   // with Fix: the repairs go to Files, a planner, and the report says they would be made
	// Files is what Fix writes through; p.Files when nil.
	Files safefile.Writer
}

// Report is what doctor found.
type Report struct {
	Findings []Finding
	Latency  []HookLatency // one per hook with runs recorded, in the hook table's order
	// SettingsFiles are the settings files whose hooks Claude Code merges for the project, from
	// the lowest precedence to the highest.
	SettingsFiles []string
}

// Failed is how many checks failed.
func (r Report) Failed() int {
	n := 0
	for _, f := range r.Findings {
		if f.Status == statusFail {
			n++
		}
	}
	return n
}

// Doctor checks cairn's install for project p, in this order: this cairn and the client it
// judges the wiring for, the hooks in the settings files and the plugins, the skills, the MCP
// server, the state files, where the checkout's shared and own state live (its worktrees),
// Claude Code's memory index (repaired under Fix), the hooks' latency
// as the newest transcripts record it, and the repairs cairn.log records. It runs nothing a
// repository supplies: the binaries a settings file names are read, not run, and the only process
// it starts is the MCP server beside o.Self.
func Doctor(ctx context.Context, p *project.Project, o DoctorOptions) Report {
	files := o.Files
	if files == nil {
		files = p.Files
	}
	d := &doctor{ctx: ctx, world: p, self: o.Self, fix: o.Fix, dryRun: o.DryRun, files: files}
	d.add(statusOK, "cairn", "version %s at %s; project %s", version.String(), d.self, d.world.Root)
	d.client = doctorClient(d.world.Env)
	switch claude := lookPath(d.world.Env, "claude", runtime.GOOS); {
	case d.client.known:
		d.add(statusOK, "client", "%s (%s)", d.client, d.client.from)
	case claude == "":
		d.add(statusWarn, "client", "no Claude Code found: no claude on PATH; the hooks run once it is installed (a client elsewhere, such as an IDE's, is taken for a current one: set %s to its version to check the wiring against it)", ClientVersionEnv)
	default:
		d.add(statusWarn, "client", "%s, version unknown (doctor reads it from an npm or native install's files, and runs nothing): the wiring is checked for a current Claude Code; set %s to its version", claude, ClientVersionEnv)
	}

	cli := d.checkHooks()
	d.checkSkills(cli)
	d.checkMCP()
	d.checkState()
	d.checkWorktrees()
	d.checkMemoryIndex()
	d.checkLatency(cli)
	d.checkRepairs()
	return Report{Findings: d.findings, Latency: d.latency, SettingsFiles: d.settingsFiles()}
}

// expandProjectDir expands $CLAUDE_PROJECT_DIR at the start of a command's path, as Claude Code
// does, to the project root.
func expandProjectDir(p, root string) string {
	for _, v := range []string{"$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}"} {
		if rest, ok := strings.CutPrefix(p, v+"/"); ok {
			return filepath.ToSlash(filepath.Join(root, rest))
		}
	}
	return p
}

// checkExecutable says why path cannot be cairn's binary: missing, not a regular file, or (but
// on Windows) not executable; nil when it can.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s is missing", path)
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// installedVersion reads the version of the hook binary name at path without running it
// ([Stamp]): doctor reads what a settings file names, and a settings file can come with a
// cloned repository. It must be cairn's binary of that name, executable.
func installedVersion(path, name string) (string, error) {
	if err := checkExecutable(path); err != nil {
		return "", err
	}
	v, pkg, err := Stamp(path)
	if err != nil {
		return "", err
	}
	if want := "github.com/cairn-hooks/cairn/hooks/" + name; pkg != want {
		return "", fmt.Errorf("%s was built from %s, not cairn's %s", path, pkg, want)
	}
	return v, nil
}

// settingsFiles are the settings files whose hooks Claude Code merges for this project, from the
// lowest precedence to the highest, their hooks merged (docs/DESIGN.md, Facts about Claude Code);
// managed settings are not cairn's to check.
func (d *doctor) settingsFiles() []string {
	var out []string
	if d.world.Config != "" {
		out = append(out, filepath.Join(d.world.Config, "settings.json"))
	}
	return append(out,
		filepath.Join(d.world.Root, ".claude", "settings.json"),
		filepath.Join(d.world.Root, ".claude", "settings.local.json"))
}

// owner recognises cairn's entries: binaries next to this cairn, or in any cairn/bin.
func (d *doctor) owner() settings.Owner {
	if d.self == "" {
		return settings.Owner{Hooks: hookNames()}
	}
	return owner(filepath.Dir(d.self))
}

type wired struct {
	file string
	settings.Entry
}

// checkHooks checks that each hook is wired exactly once across the settings files, runs the
// right binary, which exists, is executable and is this cairn's version. It returns the path of
// the cairn CLI beside the wired hooks (this cairn when none is wired).
func (d *doctor) checkHooks() (cli string) {
	own := d.owner()
	var mine []wired
	read := 0
	for _, path := range d.settingsFiles() {
		data, _, err := safefile.ReadLoose(path, maxConfig)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			d.add(statusFail, "settings", "%s: %v", path, err)
			continue
		}
		read++
		es, err := settings.Entries(data, own)
		if err != nil {
			d.add(statusFail, "settings", "%s: %s (Claude Code may ignore the whole file)", path,
				strings.TrimPrefix(err.Error(), settings.ErrInvalid.Error()+": "))
			continue
		}
		n := 0
		for _, e := range es {
			if e.Cairn || d.runsCairnHook(e) {
				mine = append(mine, wired{path, e})
				n++
			}
		}
		d.add(statusOK, "settings", "%s: valid, %d of cairn's hook entries", path, n)
	}
	d.plugins = d.findPlugins()
	if read == 0 && len(d.plugins) == 0 {
		d.add(statusFail, "settings", "no settings file found (%s): run cairn install", strings.Join(d.settingsFiles(), ", "))
	}
	for _, p := range d.plugins {
		switch {
		case p.root == "":
			d.add(statusFail, "plugin", "%s: its directory is not found in %s: reinstall it with claude plugin install %s", p, filepath.Join(d.world.Config, "plugins"), p.id)
		case len(p.hooks) == 0:
			d.add(statusFail, "plugin", "%s at %s wires none of cairn's hooks: rebuild it with cairn plugin build", p, p.root)
		default:
			d.add(statusOK, "plugin", "%s at %s", p, p.root)
		}
	}
	cli = d.self
	for _, spec := range hookSpecs {
		var here []wired
		for _, w := range mine {
			if w.Event == spec.event {
				here = append(here, w)
			}
		}
		var fromPlugins []cairnPlugin
		for _, p := range d.plugins {
			if _, ok := p.hooks[spec.event]; ok {
				fromPlugins = append(fromPlugins, p)
			}
		}
		check := "hook " + spec.event
		switch {
		case len(here)+len(fromPlugins) == 0:
			d.add(statusFail, check, "not wired: run cairn install")
			continue
		case len(fromPlugins) > 0 && len(here) > 0:
			// A plugin's hooks and a settings file's are not deduplicated: both run
			// (testscripts/e2e/FINDINGS.md §l). Keep the plugin, which carries the MCP server and
			// updates with claude plugin update: the settings entries go.
			var where []string
			for _, w := range here {
				where = append(where, w.Executable()+" in "+w.file+" (remove it: "+d.uninstallAdvice(w.file, w.Executable())+")")
			}
			d.add(statusFail, check, "wired %d times, by the %s and in settings: %s: each would run on every event; keep one, the plugin: remove the settings install",
				len(here)+len(fromPlugins), fromPlugins[0], strings.Join(where, "; "))
			continue
		case len(fromPlugins) > 1:
			var ids []string
			for _, p := range fromPlugins {
				ids = append(ids, p.id)
			}
			d.add(statusFail, check, "wired %d times, by the plugins %s: each would run on every event; disable all but one with claude plugin disable <id>",
				len(fromPlugins), strings.Join(ids, ", "))
			continue
		case len(fromPlugins) == 1:
			cli = d.checkPluginHook(check, spec, fromPlugins[0])
			continue
		case len(here) > 1:
			var where, fixes []string
			for _, w := range here {
				where = append(where, w.Executable()+" in "+w.file)
				if fix := d.uninstallAdvice(w.file, w.Executable()); !slices.Contains(fixes, fix) {
					fixes = append(fixes, fix)
				}
			}
			d.add(statusFail, check, "wired %d times (%s): it would run more than once; keep one install and remove the others: %s",
				len(here), strings.Join(where, "; "), strings.Join(fixes, "; or "))
			continue
		}
		w := here[0]
		prog := w.Executable()
		if name := strings.TrimSuffix(filepath.Base(filepath.FromSlash(prog)), ".exe"); name != spec.binary {
			d.add(statusFail, check, "runs %s, which is cairn's %s hook, not %s: run cairn install", prog, name, spec.binary)
			continue
		}
		v, err := installedVersion(filepath.FromSlash(expandProjectDir(prog, d.world.Root)), spec.binary)
		if err != nil {
			d.add(statusFail, check, "%v (wired in %s): a hook that cannot start is silently skipped; reinstall with install.sh", err, w.file)
			continue
		}
		if v != version.String() {
			d.add(statusFail, check, "%s is version %s but this cairn is %s: reinstall with install.sh", prog, v, version.String())
			continue
		}
		cli = filepath.Join(filepath.Dir(filepath.FromSlash(prog)), settings.CLIName+exe())
		cl := d.client
		if w.Exec && cl.known && !cl.execForm() && needsQuoting(prog) {
			d.add(statusFail, check, "%s in %s is in exec form, but %s runs every hook command through /bin/sh (exec form needs %s), which cannot run this path unquoted: the hook cannot start; run cairn install to rewrite it in shell form",
				prog, w.file, cl, execFormSince)
			continue
		}
		if w.Exec && !cl.known && needsQuoting(prog) {
			d.add(statusWarn, check, "%s in %s is in exec form, which a Claude Code older than %s runs through /bin/sh, where this path cannot start unquoted; no client version was found to tell which you have: run cairn install --claude-version <version> to wire for it", prog, w.file, execFormSince)
		}
		form := "exec form"
		if !w.Exec {
			form = "shell form"
		}
		timeout := "no timeout"
		if w.Timeout > 0 {
			timeout = fmt.Sprintf("timeout %g s", w.Timeout)
		}
		d.add(statusOK, check, "%s (%s, %s, %s) in %s", prog, v, form, timeout, w.file)
		switch {
		case w.Matcher != "" && w.Matcher != "*":
			d.add(statusWarn, check, "matcher %q: cairn's hooks gate themselves and a matcher can make Claude Code skip them; run cairn install to clear it", w.Matcher)
		case !w.Exec && cl.known && !cl.execForm():
			// The form this client needs.
		case !w.Exec && cl.known:
			d.add(statusWarn, check, "shell form: the command goes through a shell, but %s spawns hooks directly in exec form; run cairn install to rewrite it", cl)
		case !w.Exec:
			d.add(statusWarn, check, "shell form: the command goes through a shell; run cairn install to write it in exec form")
		case spec.event == "SessionEnd" && w.Timeout == 0:
			d.add(statusWarn, check, "no timeout: SessionEnd hooks then share a 1.5 s budget; run cairn install to set one")
		}
	}
	for _, w := range mine {
		if !slices.ContainsFunc(hookSpecs, func(s hookSpec) bool { return s.event == w.Event }) {
			d.add(statusFail, "hook "+w.Event, "cairn's %s is wired under an event cairn does not serve (in %s): run cairn install to remove it", w.Executable(), w.file)
		}
	}
	return cli
}

// checkPluginHook checks the one hook binary a plugin wires for spec: there, cairn's, of this
// cairn's version, and startable by the client found. It returns the cairn CLI beside it.
func (d *doctor) checkPluginHook(check string, spec hookSpec, p cairnPlugin) (cli string) {
	h := p.hooks[spec.event]
	path := h.path
	v, err := installedVersion(path, spec.binary)
	if err != nil {
		d.add(statusFail, check, "%v (%s): a hook that cannot start is silently skipped; rebuild the plugin with cairn plugin build and reinstall it", err, p)
		return d.self
	}
	if v != version.String() {
		d.add(statusFail, check, "%s is version %s but this cairn is %s: run the plugin's own %s doctor, or update the plugin",
			path, v, version.String(), filepath.Join(p.root, pluginBin, settings.CLIName+exeSuffix(p.goos)))
		return d.self
	}
	if cl := d.client; cl.known && !cl.execForm() && needsQuoting(filepath.ToSlash(p.root)) {
		d.add(statusFail, check, "%s runs every hook command through /bin/sh (exec form needs %s), which cannot run %s unquoted: the hooks of the %s cannot start; install the plugin where its path needs no quoting, or use cairn install",
			cl, execFormSince, filepath.ToSlash(path), p)
		return d.self
	}
	timeout := "no timeout"
	if h.timeout > 0 {
		timeout = fmt.Sprintf("timeout %g s", h.timeout)
	}
	d.add(statusOK, check, "%s (%s, exec form, %s) from the %s", path, v, timeout, p)
	return filepath.Join(p.root, pluginBin, settings.CLIName+exeSuffix(p.goos))
}

// checkSkills checks that each skill Claude Code will use is cairn's and current: the personal
// skill wins over the project's of the same name (docs/DESIGN.md, Facts about Claude Code).
func (d *doctor) checkSkills(cli string) {
	var dirs []string
	if d.world.Config != "" {
		dirs = append(dirs, filepath.Join(d.world.Config, "skills"))
	}
	dirs = append(dirs, filepath.Join(d.world.Root, ".claude", "skills"))
	for _, name := range skills.Names {
		check := "skill /" + name
		var path string
		var data []byte
		for _, dir := range dirs {
			p := filepath.Join(dir, name, "SKILL.md")
			if b, _, err := safefile.ReadLoose(p, maxConfig); err == nil {
				path, data = p, b
				break
			}
		}
		if p := d.skillPlugin(); p != nil {
			d.checkPluginSkill(check, name, *p, path, data)
			continue
		}
		want, err := skills.Render(name, filepath.ToSlash(cli), skills.ToolsInstalled)
		switch {
		case err != nil:
			d.add(statusFail, check, "%v", err)
		case path == "":
			d.add(statusWarn, check, "not installed: run cairn install")
		case !skills.IsCairn(data):
			d.add(statusWarn, check, "%s is not cairn's, and Claude Code uses it", path)
		case string(data) != string(want):
			d.add(statusWarn, check, "%s is from another cairn version or path: run cairn install", path)
		default:
			d.add(statusOK, check, "%s", path)
		}
	}
}

// runsCairnHook reports whether a settings entry that Owner does not recognise by its path runs
// one of cairn's hook binaries all the same, by what the binary's build information says (read,
// not run): a settings install from a bin directory this cairn does not know, such as go
// install's, beside a plugin.
func (d *doctor) runsCairnHook(e settings.Entry) bool {
	prog := expandProjectDir(e.Executable(), d.world.Root)
	name := strings.TrimSuffix(filepath.Base(filepath.FromSlash(prog)), ".exe")
	if !slices.Contains(hookNames(), name) || !filepath.IsAbs(filepath.FromSlash(prog)) {
		return false
	}
	_, err := installedVersion(filepath.FromSlash(prog), name)
	return err == nil
}

// skillAdvice says how to remove the skill a settings install put at path
// (<dir>/skills/<name>/SKILL.md): the uninstall of that install's settings file.
func (d *doctor) skillAdvice(path string) string {
	file := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(path))), "settings.json")
	cli := d.self
	if data, _, err := safefile.ReadLoose(file, maxConfig); err == nil {
		if es, err := settings.Entries(data, d.owner()); err == nil {
			for _, e := range es {
				if e.Cairn || d.runsCairnHook(e) {
					return d.uninstallAdvice(file, e.Executable())
				}
			}
		}
	}
	return d.uninstallAdvice(file, filepath.ToSlash(cli))
}

// skillPlugin is the plugin whose skills Claude Code offers: the first found with a directory.
func (d *doctor) skillPlugin() *cairnPlugin {
	for i, p := range d.plugins {
		if p.root != "" {
			return &d.plugins[i]
		}
	}
	return nil
}

// checkPluginSkill checks skill name of plugin p, which Claude Code offers as /cairn:<name>,
// and warns when a settings install's copy (at path, holding data) is offered beside it.
func (d *doctor) checkPluginSkill(check, name string, p cairnPlugin, path string, data []byte) {
	pp := filepath.Join(p.root, "skills", name, "SKILL.md")
	got, _, err := safefile.ReadLoose(pp, maxConfig)
	want, rerr := skills.Render(name, settings.CLIName, skills.ToolsPlugin)
	switch {
	case rerr != nil:
		d.add(statusFail, check, "%v", rerr)
	case err != nil:
		d.add(statusWarn, check, "the %s has no %s: rebuild it with cairn plugin build", p, pp)
	case string(got) != string(want):
		d.add(statusWarn, check, "%s is from another cairn version: update the plugin", pp)
	case path != "" && skills.IsCairn(data):
		d.add(statusWarn, check, "/%s:%s comes from the %s, and cairn's /%s is installed in %s too: Claude Code offers both; remove the settings install (%s)",
			pluginName, name, p, name, path, d.skillAdvice(path))
	default:
		d.add(statusOK, check, "/%s:%s from the %s", pluginName, name, p)
	}
}

// checkState checks the state files cairn reads: the parked items, the session registry and the
// active run.
func (d *doctor) checkState() {
	store := parking.New(d.world.Root, d.world.Config, safefile.DryRun{Out: io.Discard, Roots: []string{d.world.Root}}, d.world.Now)
	items, err := store.List()
	switch {
	case err != nil:
		d.add(statusFail, "parked items", "%v", err)
	default:
		today := d.world.Now()
		stale, expired := 0, 0
		for _, it := range items {
			switch age := it.Age(today); {
			case age >= parking.ExpireDays:
				expired++
			case age >= parking.StaleDays:
				stale++
			}
		}
		detail := fmt.Sprintf("%d open (%d stale, %d past %d days) in %s", len(items), stale, expired, parking.ExpireDays, sessionfile.Path(d.world.Root))
		switch {
		case len(items) >= parking.MaxOpen:
			d.add(statusWarn, "parked items", "%s: nothing more is parked until some are archived (/session archive)", detail)
		case expired > 0:
			d.add(statusWarn, "parked items", "%s: SessionStart or SessionEnd should have removed the expired ones; is the hook wired?", detail)
		default:
			d.add(statusOK, "parked items", "%s", detail)
		}
	}

	if ss, err := registry.Open(d.world).Sessions(); err != nil {
		d.add(statusFail, "sessions", "%v", err)
	} else {
		active := 0
		for _, s := range ss {
			if s.Status == registry.StatusActive {
				active++
			}
		}
		d.add(statusOK, "sessions", "%d recorded, %d active, in %s", len(ss), active, filepath.Join(d.world.Root, registry.File))
	}
	if store := claims.Open(d.world, registry.Open(d.world)); store.Dir() != "" {
		if live, _, err := store.Live(); err != nil {
			d.add(statusWarn, "claims", "%s: %v", store.Dir(), err)
		} else {
			d.add(statusOK, "claims", "%d live file claims in %s", len(live), store.Dir())
		}
	}

	r, err := runstate.Active(d.world.Root)
	switch {
	case errors.Is(err, runstate.ErrNoActive):
		d.add(statusOK, "run", "no active run")
		return
	case err != nil:
		d.add(statusFail, "run", "%v: fix it or end the run with cairn run end", err)
		return
	}
	data, _, err := safefile.ReadFile(d.world.Root, r.StatePath(), maxConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.add(statusWarn, "run", "%s/state.json is missing: cairn run set creates it", r.Rel)
	case err != nil:
		d.add(statusFail, "run", "%s/state.json: %v", r.Rel, err)
	default:
		d.checkStateJSON(r, data)
	}
	mem, _, err := safefile.ReadFile(d.world.Root, r.MemoryPath(), maxConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.add(statusWarn, "run", "%s/MEMORY.md is missing: the next PreCompact creates it", r.Rel)
	case err != nil:
		d.add(statusFail, "run", "%s/MEMORY.md: %v", r.Rel, err)
	default:
		if n := strings.Count(string(mem), "\n"); n > runstate.WhiteboardLines {
			d.add(statusWarn, "run", "%s/MEMORY.md has %d lines, over the whiteboard's %d: shorten its prose", r.Rel, n, runstate.WhiteboardLines)
		}
	}
}

// checkStateJSON checks the run state contract: a flat object of string values, one key per line.
func (d *doctor) checkStateJSON(r runstate.Run, data []byte) {
	st, warnings, err := runstate.Parse(data)
	if err != nil {
		d.add(statusFail, "run", "%s/state.json: %v", r.Rel, err)
		return
	}
	bad := false
	for _, w := range warnings {
		status := statusWarn
		if strings.Contains(w, "nested") {
			status, bad = statusFail, true // the contract forbids it: grep/sed readers break
		}
		d.add(status, "run", "%s/%s", r.Rel, w)
	}
	lines := map[int]string{}
	gjson.ParseBytes(data).ForEach(func(k, _ gjson.Result) bool {
		line := strings.Count(string(data[:k.Index]), "\n") + 1
		if other, dup := lines[line]; dup && !bad {
			d.add(statusWarn, "run", "%s/state.json has %q and %q on line %d: grep and sed readers expect one key per line (cairn run set rewrites it so)", r.Rel, other, k.Str, line)
			bad = true
		}
		lines[line] = k.Str
		return true
	})
	if !bad {
		d.add(statusOK, "run", "%s active: state.json flat with %d keys, phase %q", r.Rel, len(st.Keys()), st.Get("phase"))
	}
}

// checkLatency reports what Claude Code recorded about cairn's hooks in this project's newest
// transcripts: how often each ran, how long it took (durationMs), and how often it failed.
func (d *doctor) checkLatency(cli string) {
	if d.world.Config == "" {
		d.add(statusWarn, "latency", "no Claude config directory (neither CLAUDE_CONFIG_DIR nor HOME is set)")
		return
	}
	dir := filepath.Join(d.world.Config, "projects", project.Slug(d.world.Root))
	paths, err := newestTranscripts(dir, recentTranscripts)
	if err != nil {
		d.add(statusWarn, "latency", "%s: %v", dir, err)
		return
	}
	own := owner(filepath.Dir(cli))
	if d.self != "" {
		own.BinDirs = append(own.BinDirs, filepath.ToSlash(filepath.Dir(d.self)))
	}
	for _, p := range d.plugins {
		if p.root != "" {
			own.BinDirs = append(own.BinDirs, filepath.ToSlash(filepath.Join(p.root, pluginBin)))
		}
	}
	ownsPluginCommand := func(cmd string) bool {
		for _, name := range hookNames() {
			if len(d.plugins) > 0 && isPluginHookCommand(cmd, name) {
				return true
			}
		}
		return false
	}
	byEvent := map[string][]transcript.HookRun{}
	for _, p := range paths {
		runs, err := transcript.HookRuns(p, transcriptMaxBytes)
		if err != nil {
			d.add(statusWarn, "latency", "%s: %v", p, err)
			continue
		}
		for _, r := range runs {
			// Claude Code records an exec-form command as the command and its args joined by
			// spaces; cairn's have no args, so the command is the path, spaces and all.
			if own.OwnsCommand(r.Command, true) || own.OwnsCommand(r.Command, false) || ownsPluginCommand(r.Command) {
				byEvent[r.Event] = append(byEvent[r.Event], r)
			}
		}
	}
	if len(byEvent) == 0 {
		d.add(statusOK, "latency", "no runs of cairn's hooks recorded yet in %d transcript(s) under %s", len(paths), dir)
		return
	}
	for _, spec := range hookSpecs {
		runs := byEvent[spec.event]
		if len(runs) == 0 {
			continue
		}
		l := summarise(spec.event, runs)
		d.latency = append(d.latency, l)
		detail := fmt.Sprintf("%d runs in the newest %d transcript(s), median %d ms, max %d ms, %d timed out, %d failed",
			l.Runs, len(paths), l.MedianMs, l.MaxMs, l.TimedOut, l.Failed)
		switch {
		case l.TimedOut > 0 || l.Failed > 0:
			d.add(statusWarn, "latency "+spec.event, "%s: see cairn.log under .claude/state/ and claude --debug", detail)
		case spec.event == "SessionEnd" && l.MaxMs >= sessionEndBudgetMs:
			d.add(statusWarn, "latency "+spec.event, "%s: over the %d ms SessionEnd budget", detail, sessionEndBudgetMs)
		default:
			d.add(statusOK, "latency "+spec.event, "%s", detail)
		}
	}
}

func summarise(event string, runs []transcript.HookRun) HookLatency {
	l := HookLatency{Event: event, Runs: len(runs)}
	var ms []int64
	for _, r := range runs {
		if r.DurationMs >= 0 {
			ms = append(ms, r.DurationMs)
		}
		if r.TimedOut {
			l.TimedOut++
		}
		if r.Outcome != "success" {
			l.Failed++
		}
	}
	if len(ms) > 0 {
		slices.Sort(ms)
		l.MedianMs = ms[len(ms)/2]
		if len(ms)%2 == 0 {
			l.MedianMs = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
		}
		l.MaxMs = ms[len(ms)-1]
	}
	return l
}

// newestTranscripts returns up to n of the .jsonl files in dir, newest first by modification
// time. A missing dir has none.
func newestTranscripts(dir string, n int) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type file struct {
		path string
		mod  int64
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, file{filepath.Join(dir, e.Name()), fi.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b file) int {
		if a.mod != b.mod {
			if a.mod > b.mod {
				return -1
			}
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	var out []string
	for _, f := range files[:min(n, len(files))] {
		out = append(out, f.path)
	}
	return out, nil
}
