package setup

// What doctor knows of cairn installed as a Claude Code plugin: which settings file enables it,
// where its directory is, and which hooks its hooks.json wires. Everything is read from Claude
// Code's own files (testscripts/e2e/FINDINGS.md §l): nothing is run, and `claude
// plugin list`, which would say the same authoritatively, is not asked.

import (
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/setup/settings"
)

// cairnPlugin is a cairn plugin that Claude Code loads for this project.
type cairnPlugin struct {
	id        string                // "cairn@<marketplace>", or "cairn (--plugin-dir)" for one found by this cairn's path
	enabledIn string                // the settings file whose enabledPlugins turns it on; "" for --plugin-dir
	root      string                // its directory; "" when doctor could not find it
	hooks     map[string]pluginHook // by event: what its hooks.json runs
	goos      string                // "windows" when its hooks run .exe files
}

// pluginHook is a hook handler of a plugin's hooks.json that runs one of cairn's binaries.
type pluginHook struct {
	path    string  // the binary, under the plugin's root
	timeout float64 // seconds; 0 when absent
}

func (p cairnPlugin) String() string {
	if p.enabledIn == "" {
		return "plugin " + p.id
	}
	return "plugin " + p.id + " (enabled in " + p.enabledIn + ")"
}

// enabledPlugins returns the ids of the cairn plugins ("cairn@<marketplace>") that the settings
// files enable, with the file that decided each: a later file (higher precedence) overrides an
// earlier one, and false disables. Marketplace names vary, so any "cairn@" id counts.
func (d *doctor) enabledPlugins() (ids []string, where map[string]string) {
	state := map[string]bool{}
	where = map[string]string{}
	var order []string
	for _, path := range d.settingsFiles() {
		data, _, err := safefile.ReadLoose(path, maxConfig)
		if err != nil {
			continue
		}
		gjson.GetBytes(data, "enabledPlugins").ForEach(func(k, v gjson.Result) bool {
			id := k.String()
			if !strings.HasPrefix(id, pluginName+"@") || (v.Type != gjson.True && v.Type != gjson.False) {
				return true
			}
			if _, seen := state[id]; !seen {
				order = append(order, id)
			}
			state[id], where[id] = v.Type == gjson.True, path
			return true
		})
	}
	for _, id := range order {
		if state[id] {
			ids = append(ids, id)
		}
	}
	return ids, where
}

// installedPluginDir finds the directory of an installed plugin: the installPath that
// plugins/installed_plugins.json records for it at user scope or for this project, else, for a
// directory marketplace, the plugin's folder in it (where current clients read a directory
// marketplace's plugin from; 2.1.100 read the copy at installPath).
func (d *doctor) installedPluginDir(id string) string {
	if d.world.Config == "" {
		return ""
	}
	plugins := filepath.Join(d.world.Config, "plugins")
	if data, _, err := safefile.ReadLoose(filepath.Join(plugins, "installed_plugins.json"), maxConfig); err == nil {
		for _, e := range gjson.GetBytes(data, "plugins."+gjson.Escape(id)).Array() {
			scope, proj := e.Get("scope").String(), e.Get("projectPath").String()
			if p := e.Get("installPath").String(); p != "" && (scope == "user" || proj != "" && filepath.Clean(proj) == d.world.Root) && isCairnPlugin(p) {
				return p
			}
		}
	}
	_, market, _ := strings.Cut(id, "@")
	data, _, err := safefile.ReadLoose(filepath.Join(plugins, "known_marketplaces.json"), maxConfig)
	if err != nil {
		return ""
	}
	m := gjson.GetBytes(data, gjson.Escape(market))
	loc := m.Get("installLocation").String()
	if loc == "" {
		return ""
	}
	manifest, _, err := safefile.ReadLoose(filepath.Join(loc, ".claude-plugin", "marketplace.json"), maxConfig)
	if err != nil {
		return ""
	}
	for _, p := range gjson.GetBytes(manifest, "plugins").Array() {
		src := p.Get("source")
		if p.Get("name").String() != pluginName || src.Type != gjson.String || !strings.HasPrefix(src.Str, "./") {
			continue
		}
		if dir := filepath.Join(loc, filepath.FromSlash(src.Str)); isCairnPlugin(dir) {
			return dir
		}
	}
	return ""
}

// isCairnPlugin reports whether dir holds a plugin named cairn.
func isCairnPlugin(dir string) bool {
	data, _, err := safefile.ReadLoose(filepath.Join(dir, ".claude-plugin", "plugin.json"), maxConfig)
	return err == nil && gjson.GetBytes(data, "name").String() == pluginName
}

// readPluginHooks fills p.hooks from p.root's hooks/hooks.json: each handler that runs one of
// cairn's hook binaries from the plugin's bin/ in exec form.
func (p *cairnPlugin) readPluginHooks() {
	p.hooks = map[string]pluginHook{}
	if p.root == "" {
		return
	}
	data, _, err := safefile.ReadLoose(filepath.Join(p.root, "hooks", "hooks.json"), maxConfig)
	if err != nil {
		return
	}
	gjson.GetBytes(data, "hooks").ForEach(func(event, groups gjson.Result) bool {
		for _, g := range groups.Array() {
			for _, h := range g.Get("hooks").Array() {
				cmd := h.Get("command").String()
				for _, spec := range hookSpecs {
					if spec.event == event.Str && isPluginHookCommand(cmd, spec.binary) {
						file := strings.TrimPrefix(cmd, pluginRoot+"/")
						p.hooks[spec.event] = pluginHook{filepath.Join(p.root, filepath.FromSlash(file)), h.Get("timeout").Float()}
						if strings.HasSuffix(cmd, ".exe") {
							p.goos = "windows"
						}
					}
				}
			}
		}
		return true
	})
}

// findPlugins returns the cairn plugins Claude Code loads here, as far as its files say: those
// the settings files enable, and the plugin this cairn runs from when no settings file names a
// cairn plugin (it is then loaded with --plugin-dir, or not at all, which doctor cannot tell
// apart).
func (d *doctor) findPlugins() []cairnPlugin {
	ids, where := d.enabledPlugins()
	var out []cairnPlugin
	for _, id := range ids {
		p := cairnPlugin{id: id, enabledIn: where[id], root: d.installedPluginDir(id)}
		p.readPluginHooks()
		out = append(out, p)
	}
	if len(where) == 0 && d.self != "" { // a plugin disabled by a settings file is not loaded
		if root := filepath.Dir(filepath.Dir(d.self)); filepath.Base(filepath.Dir(d.self)) == pluginBin && isCairnPlugin(root) {
			p := cairnPlugin{id: pluginName + " (--plugin-dir " + root + ")", root: root}
			p.readPluginHooks()
			out = append(out, p)
		}
	}
	return out
}

// uninstallAdvice says how to remove cairn's settings-file wiring in file (removeAdvice).
func (d *doctor) uninstallAdvice(file, prog string) string {
	return removeAdvice(file, expandProjectDir(prog, d.world.Root), d.world.Config, d.world.Root)
}

// removeAdvice says how to remove the install whose hook binary prog is wired in file, the
// user's settings (in config) or the project's (under root): for install.sh's layout (a bin
// directory ending in cairn/bin, which only install.sh takes out again) install.sh's uninstall,
// run in cairn's checkout, so that no binary is left behind; else the uninstall of the cairn
// beside prog (go install's and an unpacked archive's binaries are the user's own), at the
// scope of file.
func removeAdvice(file, prog, config, root string) string {
	bin := filepath.Dir(filepath.FromSlash(prog))
	cli := filepath.Join(bin, settings.CLIName+exe())
	byScript := installShLayout(bin)
	switch {
	case config != "" && file == filepath.Join(config, "settings.json") && byScript:
		return "./install.sh --uninstall --user, in cairn's checkout"
	case config != "" && file == filepath.Join(config, "settings.json"):
		return quoteArg(cli) + " uninstall --user"
	case file == filepath.Join(root, ".claude", "settings.json") && byScript:
		return "./install.sh --uninstall --project " + quoteArg(root) + ", in cairn's checkout"
	case file == filepath.Join(root, ".claude", "settings.json"):
		return quoteArg(cli) + " uninstall --project " + quoteArg(root)
	default:
		return "remove cairn's entries from " + file + " by hand"
	}
}

// quoteArg is a path as one shell word, for advice a person will paste.
func quoteArg(s string) string { return shellCommand(s) }
