package setup

// cairn plugin build: cairn as a Claude Code plugin, for one platform.

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/setup/settings"
	"github.com/cairn-hooks/cairn/pkg/setup/skills"
)

// Plugin layout (reference Addendum "Plugins"; testscripts/e2e/FINDINGS.md §l).
const (
	// pluginName is the plugin's name in plugin.json and the marketplace: a plugin install is
	// "cairn@<marketplace>", which is how doctor finds it in enabledPlugins.
	pluginName = "cairn"
	// marketplaceName names the marketplace the build's directory serves: install with
	// `claude plugin install cairn@cairn`.
	marketplaceName = "cairn"
	// pluginRoot is how a plugin's hooks and MCP servers name its directory; Claude Code
	// substitutes it in "command" and "args" (testscripts/e2e/FINDINGS.md §l), exec form included.
	pluginRoot = "${CLAUDE_PLUGIN_ROOT}"
	// pluginBin is the plugin's bin/: its binaries, and on the Bash tool's PATH, so the skills
	// call plain `cairn`.
	pluginBin = "bin"
)

// mcpServerEntry is cairn's entry in an "mcpServers" object: `cairn mcp`, a stdio server, run
// from cairnPath. The plugin's .mcp.json names it so; settings-based MCP configuration can use
// the same entry.
func mcpServerEntry(cairnPath string) mcpServer {
	return mcpServer{Command: cairnPath, Args: []string{"mcp"}}
}

// mcpServer is a stdio MCP server's entry in an "mcpServers" object.
type mcpServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// pluginManifest is .claude-plugin/plugin.json. Only name is required; author and license keep
// `claude plugin validate` from warning (testscripts/e2e/FINDINGS.md §l).
func pluginManifest(ver string) any {
	return struct {
		Name        string            `json:"name"`
		Version     string            `json:"version"`
		Description string            `json:"description"`
		Author      map[string]string `json:"author"`
		License     string            `json:"license"`
		Homepage    string            `json:"homepage"`
		Keywords    []string          `json:"keywords"`
	}{pluginName, ver,
		"Session continuity across compaction, /clear and session end: a run whiteboard, parked open loops, checkpoints and a session registry, kept in the project.",
		map[string]string{"name": "the cairn authors"}, "MIT", "https://github.com/cairn-hooks/cairn",
		[]string{"hooks", "compaction", "memory", "checkpoints"}}
}

// marketplaceManifest is .claude-plugin/marketplace.json beside plugin.json: the build's
// directory lists itself ("./"), so one directory, or a git repository holding it, serves as the
// marketplace. Claude Code 2.1.100 refuses keys it does not know at the top of a marketplace
// manifest, "description" among them, and every version asks for metadata.description
// (checked with `claude plugin validate` of 2.1.100, 2.1.197 and 2.1.332).
func marketplaceManifest(ver string) any {
	type entry struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		Description string `json:"description"`
		Version     string `json:"version"`
	}
	return struct {
		Name     string            `json:"name"`
		Owner    map[string]string `json:"owner"`
		Metadata map[string]string `json:"metadata"`
		Plugins  []entry           `json:"plugins"`
	}{marketplaceName, map[string]string{"name": "the cairn authors"},
		map[string]string{"description": "cairn for Claude Code: session continuity hooks, skills and an MCP server"},
		[]entry{{pluginName, "./", "cairn's hooks, skills and MCP server", ver}}}
}

// pluginHooks is hooks/hooks.json for goos: every row of hookSpecs, in exec form, run from the
// plugin's bin/ (a real .exe on Windows), under an empty matcher (none for a row that wants none:
// PreToolUse), in the table's order. Timeouts
// are those of a settings install; note that a plugin's SessionEnd timeout does not raise Claude
// Code's 1.5 s SessionEnd budget (a settings file's does: docs/DESIGN.md, Facts about Claude Code),
// which cairn's SessionEnd stays well inside.
func pluginHooks(goos string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"description":"cairn's hooks: each binary gates itself on source and trigger","hooks":{`)
	var events []string
	byEvent := map[string][]hookSpec{}
	for _, h := range hookSpecs {
		if byEvent[h.event] == nil {
			events = append(events, h.event)
		}
		byEvent[h.event] = append(byEvent[h.event], h)
	}
	type handler struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"` // present, so exec form
		Timeout int      `json:"timeout,omitempty"`
	}
	for i, ev := range events {
		var handlers []handler
		for _, h := range byEvent[ev] {
			handlers = append(handlers, handler{"command", hookCommand(goos, pluginRoot+"/"+pluginBin, h.binary), []string{}, h.timeout})
		}
		var matcher *string
		if !byEvent[ev][0].noMatcher {
			matcher = new(string)
		}
		group, err := json.Marshal(struct {
			Matcher *string   `json:"matcher,omitempty"`
			Hooks   []handler `json:"hooks"`
		}{matcher, handlers})
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(ev)
		fmt.Fprintf(&b, "%s:[%s]", key, group)
	}
	b.WriteString("}}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// pluginMCP is .mcp.json: cairn's MCP server, from the plugin's bin/.
func pluginMCP(goos string) ([]byte, error) {
	cli := hookCommand(goos, pluginRoot+"/"+pluginBin, settings.CLIName)
	return jsonFile(map[string]any{"mcpServers": map[string]any{"cairn": mcpServerEntry(cli)}})
}

func jsonFile(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// pluginReadme is the plugin's README.md: what it is and how to install it.
func pluginReadme(ver, goos, goarch string) []byte {
	return []byte(fmt.Sprintf(`# cairn %s — Claude Code plugin for %s/%s

cairn keeps a Claude Code session on its feet across context compaction, /clear and session end: a run
whiteboard, parked open loops, checkpoints, a session registry, and file claims that tell Claude when
another live session is editing the same file. Its hooks are Go binaries in bin/, started directly by
Claude Code (exec form); its state stays in each project (.agents/, .claude/state/, memory/) and in
~/.claude/cairn/, and nothing is kept in the plugin's data directory but caches.

This directory is a plugin and a marketplace that lists it. Install it with

    claude plugin marketplace add /path/to/this/directory
    claude plugin install cairn@cairn --scope user     # or --scope project

or try it for one session with claude --plugin-dir /path/to/this/directory. Do not also wire cairn
into settings.json with cairn install: both would run (cairn doctor reports it). The skills are
/cairn:session, /cairn:context-save, /cairn:context-restore and /cairn:session-continuity; bin/ is on
the Bash tool's PATH, so they call plain cairn. Built for %s/%s only: another platform needs its own
build. The exec form needs Claude Code 2.1.139 or later, unless the plugin's path needs no shell quoting.
`, ver, goos, goarch, goos, goarch))
}

// pluginBinary is one of cairn's binaries found for a plugin build.
type pluginBinary struct {
	name, path   string // "sessionstart", and where it is
	version      string
	goos, goarch string
	file         string // its file name in the plugin's bin/
}

// readPluginBinary finds binary name in bin (name or name.exe) and reads its version, package
// and platform from its build information, without running it (it may be for another platform).
func readPluginBinary(bin, name string) (pluginBinary, error) {
	for _, file := range []string{name, name + ".exe"} {
		path := filepath.Join(bin, file)
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return pluginBinary{}, err
		}
		if !fi.Mode().IsRegular() {
			return pluginBinary{}, fmt.Errorf("%s is not a regular file", path)
		}
		v, pkg, err := Stamp(path)
		if err != nil {
			return pluginBinary{}, err
		}
		if want := "github.com/cairn-hooks/cairn/hooks/" + name; pkg != want {
			return pluginBinary{}, fmt.Errorf("%s was built from %s, not cairn's %s", path, pkg, want)
		}
		bi, err := buildinfo.ReadFile(path)
		if err != nil {
			return pluginBinary{}, fmt.Errorf("%s: %v", path, err)
		}
		b := pluginBinary{name: name, path: path, version: v, file: file}
		for _, s := range bi.Settings {
			switch s.Key {
			case "GOOS":
				b.goos = s.Value
			case "GOARCH":
				b.goarch = s.Value
			}
		}
		if b.goos == "" || b.goarch == "" {
			return pluginBinary{}, fmt.Errorf("%s: its build information names no GOOS/GOARCH", path)
		}
		if file != name+exeSuffix(b.goos) {
			return pluginBinary{}, fmt.Errorf("%s is built for %s/%s, where it must be named %s", path, b.goos, b.goarch, name+exeSuffix(b.goos))
		}
		return b, nil
	}
	return pluginBinary{}, fmt.Errorf("%s holds no %s: build every binary (go build -o DIR ./hooks/...) or pass --bin DIR", bin, name)
}

// Plugin is a plugin BuildPlugin wrote.
type Plugin struct {
	Name, Marketplace     string // install it with claude plugin install <Name>@<Marketplace>
	Version, GOOS, GOARCH string // of the binaries it holds
	Dir                   string // the plugin's directory, which is also the marketplace's
	Hooks, Skills         int    // how many it wires and offers
}

// BuildPlugin builds cairn as a Claude Code plugin, which is also a marketplace serving it, in
// out (absolute, or relative to h.Cwd), from the binaries in bin ("" for those beside this cairn),
// which must be cairn's, of one version and for one platform, any platform. out must not exist, or
// be empty: the plugin is built beside it and renamed into place, so a failure leaves none.
func BuildPlugin(h Host, out, bin string) (Plugin, error) {
	bin, err := h.binDir(bin)
	if err != nil {
		return Plugin{}, err
	}
	dest := out
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(h.Cwd, dest)
	}
	dest = filepath.Clean(dest)

	// Every binary: present, cairn's, one version, one platform.
	var bins []pluginBinary
	for _, name := range append([]string{settings.CLIName, MCPBinary}, hookNames()...) {
		b, err := readPluginBinary(bin, name)
		if err != nil {
			return Plugin{}, err
		}
		if len(bins) > 0 && (b.version != bins[0].version || b.goos != bins[0].goos || b.goarch != bins[0].goarch) {
			return Plugin{}, fmt.Errorf("%s is %s for %s/%s but %s is %s for %s/%s: package the binaries of one build",
				b.path, b.version, b.goos, b.goarch, bins[0].path, bins[0].version, bins[0].goos, bins[0].goarch)
		}
		bins = append(bins, b)
	}
	ver, goos, goarch := bins[0].version, bins[0].goos, bins[0].goarch

	files := map[string][]byte{}
	var err2 error
	add := func(rel string, data []byte, err error) {
		if err != nil && err2 == nil {
			err2 = err
		}
		files[rel] = data
	}
	manifest, err := jsonFile(pluginManifest(ver))
	add(".claude-plugin/plugin.json", manifest, err)
	market, err := jsonFile(marketplaceManifest(ver))
	add(".claude-plugin/marketplace.json", market, err)
	hooks, err := pluginHooks(goos)
	add("hooks/hooks.json", hooks, err)
	mcp, err := pluginMCP(goos)
	add(".mcp.json", mcp, err)
	add("README.md", pluginReadme(ver, goos, goarch), nil)
	for _, name := range skills.Names {
		data, err := skills.Render(name, settings.CLIName, skills.ToolsPlugin)
		add("skills/"+name+"/SKILL.md", data, err)
	}
	if err2 != nil {
		return Plugin{}, err2
	}

	if err := writePlugin(dest, files, bins); err != nil {
		return Plugin{}, err
	}
	return Plugin{Name: pluginName, Marketplace: marketplaceName, Version: ver, GOOS: goos, GOARCH: goarch,
		Dir: dest, Hooks: len(hookSpecs), Skills: len(skills.Names)}, nil
}

// writePlugin creates dest with files and the binaries, all at once: everything is written into
// a temporary directory beside dest, which is renamed to dest at the end, so a failure leaves no
// half-built plugin. dest must not exist, or be an empty directory.
func writePlugin(dest string, files map[string][]byte, bins []pluginBinary) (err error) {
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s exists and is not empty: choose a new directory", dest)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for rel, data := range files {
		p := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(tmp, pluginBin), 0o755); err != nil {
		return err
	}
	for _, b := range bins {
		if err := copyExecutable(b.path, filepath.Join(tmp, pluginBin, b.file)); err != nil {
			return err
		}
	}
	if err := os.Remove(dest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(tmp, dest)
}

// copyExecutable copies a binary, mode 0755, synced before it is closed.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// isPluginHookCommand reports whether command is how a cairn plugin's hooks.json names a hook
// binary: ${CLAUDE_PLUGIN_ROOT}/bin/<name>[.exe].
func isPluginHookCommand(command, name string) bool {
	rest, ok := strings.CutPrefix(command, pluginRoot+"/"+pluginBin+"/")
	return ok && strings.TrimSuffix(rest, ".exe") == name
}
