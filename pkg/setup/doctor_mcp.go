package setup

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/setup/settings"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// mcpToolCount is how many tools cairn-mcp serves (hooks/cairn-mcp).
const mcpToolCount = 11

// mcpHandshakeTimeout bounds doctor's initialize and tools/list exchange with the server.
const mcpHandshakeTimeout = 10 * time.Second

// checkMCP checks that cairn's MCP server is registered — by a cairn plugin, or in the project's
// .mcp.json and approved, or in the user's ~/.claude.json — once, to this cairn's binaries, and
// that the server beside this cairn answers initialize and lists its tools. Like every other
// check it runs nothing a repository supplies: the registered binaries are read, not run, and
// the only server started is the one installed beside this doctor.
func (d *doctor) checkMCP() {
	const check = "mcp server"
	var where []string
	own := d.owner()
	for _, p := range d.plugins {
		where = append(where, "the "+p.String())
	}
	files := []string{filepath.Join(d.world.Root, ".mcp.json")}
	if f, err := project.ClaudeJSON(d.world.Env); err == nil {
		files = append(files, f)
	}
	var entries []settings.MCPEntry
	inProject := false
	for i, f := range files {
		root := d.world.Root
		if i > 0 {
			root = filepath.Dir(f)
		}
		data, _, err := safefile.ReadFile(root, f, configLimit(f))
		if err != nil {
			continue // missing, or not a file doctor reads: nothing registered there
		}
		raw := gjson.GetBytes(data, "mcpServers."+settings.MCPServer)
		if !raw.Exists() {
			continue
		}
		e, ok := settings.MCPEntryOf(data, own)
		if !ok && d.runsCairnCLI(raw) {
			// cairn's, installed from a bin directory this cairn does not know (go install's).
			e, ok = settings.MCPEntryOf(data, settings.Owner{BinDirs: []string{filepath.Dir(filepath.FromSlash(raw.Get("command").String()))}})
		}
		if !ok {
			d.add(statusFail, check, "%s registers a server named %s that is not cairn's (command %s): Claude Code would offer its tools as cairn's (mcp__%s__*); remove that entry, or run cairn install to replace it with cairn's",
				f, settings.MCPServer, plain.Name(raw.Get("command").String()), settings.MCPServer)
			continue
		}
		if extra := settings.MCPShape(raw); extra != "" {
			d.add(statusFail, check, "cairn's entry in %s has %s, which cairn install does not write (an env or a cwd changes how the server runs): run cairn install to rewrite it", f, plain.Line(extra, 200))
			continue
		}
		entries = append(entries, e)
		where = append(where, f)
		inProject = inProject || i == 0
	}
	switch {
	case len(where) == 0:
		d.add(statusWarn, check, "not registered (no cairn plugin, no cairn entry in %s): run cairn install, which registers it, to let Claude search this project's history without Bash", strings.Join(files, " or "))
		return
	case len(where) > 1:
		d.add(statusWarn, check, "registered %d times (%s): Claude Code starts one server per registration; keep one (the plugin's, or cairn uninstall at the other scope)", len(where), strings.Join(where, ", "))
	}
	for i, e := range entries {
		cmd := filepath.FromSlash(e.Command) // a literal path: OwnsMCP takes no variable
		// The command is what Claude Code runs: it must be cairn's CLI, not only sit in a
		// directory named like cairn's with a cairn-mcp beside it.
		if _, err := installedVersion(cmd, settings.CLIName); err != nil {
			d.add(statusFail, check, "%v (registered in %s): Claude Code would run it as cairn's server; run cairn install to register cairn's", err, where[len(d.plugins)+i])
			continue
		}
		srv := filepath.Join(filepath.Dir(cmd), MCPBinary+exe())
		v, err := installedVersion(srv, MCPBinary)
		if err != nil {
			d.add(statusFail, check, "%v (registered in %s): Claude Code cannot start the server; reinstall with install.sh", err, where[len(d.plugins)+i])
			continue
		}
		if v != version.String() {
			d.add(statusFail, check, "%s is version %s but this cairn is %s: reinstall with install.sh", srv, v, version.String())
			continue
		}
		d.add(statusOK, check, "%s mcp (%s) registered in %s", cmd, v, where[len(d.plugins)+i])
	}
	if inProject && !d.mcpApproved() {
		d.add(statusWarn, check, "the project's .mcp.json names cairn but no settings file approves it (enabledMcpjsonServers): Claude Code asks once; run cairn install to approve it")
	}
	d.checkMCPHandshake()
}

// runsCairnHook's twin for the MCP server: an entry that Owner does not recognise by its path
// runs cairn's CLI all the same when its absolute command is a binary whose build information
// (read, not run) says it is cairn's, with "mcp" as its first argument.
func (d *doctor) runsCairnCLI(entry gjson.Result) bool {
	cmd := filepath.FromSlash(entry.Get("command").String())
	args := entry.Get("args").Array()
	if !filepath.IsAbs(cmd) || len(args) == 0 || args[0].String() != "mcp" || strings.TrimSuffix(filepath.Base(cmd), ".exe") != settings.CLIName {
		return false
	}
	_, err := installedVersion(cmd, settings.CLIName)
	return err == nil
}

// mcpApproved reports whether a settings file approves the project's cairn server.
func (d *doctor) mcpApproved() bool {
	for _, f := range d.settingsFiles() {
		data, _, err := readConfig(f) // as checkHooks reads them: a linked settings.json counts
		if err != nil {
			continue
		}
		if gjson.GetBytes(data, "enableAllProjectMcpServers").Bool() {
			return true
		}
		for _, s := range gjson.GetBytes(data, "enabledMcpjsonServers").Array() {
			if s.Str == settings.MCPServer {
				return true
			}
		}
	}
	return false
}

// checkMCPHandshake starts the server installed beside this cairn and checks that it answers
// initialize with cairn's name and version, and lists its tools.
func (d *doctor) checkMCPHandshake() {
	const check = "mcp initialize"
	if d.self == "" {
		return
	}
	srv := filepath.Join(filepath.Dir(d.self), MCPBinary+exe())
	if _, err := installedVersion(srv, MCPBinary); err != nil {
		d.add(statusFail, check, "%v: install every binary with install.sh", err)
		return
	}
	name, ver, tools, err := mcpHandshake(d.ctx, d.world.Env, srv, d.world.Root)
	switch {
	case err != nil:
		d.add(statusFail, check, "%s: %v", srv, err)
	case name != "cairn" || ver != version.String():
		d.add(statusFail, check, "%s answered as %s %s, not cairn %s", srv, name, ver, version.String())
	case tools != mcpToolCount:
		d.add(statusFail, check, "%s lists %d tools, not %d", srv, tools, mcpToolCount)
	default:
		d.add(statusOK, check, "%s answered initialize and listed %d tools", srv, tools)
	}
}

// mcpHandshake runs srv in dir with env, sends initialize, the initialized notification and
// tools/list, and returns the server's name and version and the number of its tools.
func mcpHandshake(ctx context.Context, env project.Env, srv, dir string) (name, ver string, tools int, err error) {
	ctx, cancel := context.WithTimeout(ctx, mcpHandshakeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, srv)
	cmd.Dir, cmd.Env = dir, env.List()
	cmd.WaitDelay = time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", "", 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", 0, err
	}
	if err := cmd.Start(); err != nil {
		return "", "", 0, err
	}
	defer func() {
		in.Close()
		cmd.Wait()
	}()
	msgs := []map[string]any{
		{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "cairn doctor", "version": version.String()}}},
		{"jsonrpc": "2.0", "method": "notifications/initialized"},
		{"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
	}
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		if _, err := in.Write(append(b, '\n')); err != nil {
			return "", "", 0, fmt.Errorf("writing to the server: %w", err)
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		r := gjson.ParseBytes(sc.Bytes())
		if e := r.Get("error"); e.Exists() {
			return "", "", 0, fmt.Errorf("error from the server: %s", e.Get("message").String())
		}
		switch r.Get("id").Int() {
		case 1:
			name, ver = r.Get("result.serverInfo.name").String(), r.Get("result.serverInfo.version").String()
		case 2:
			return name, ver, len(r.Get("result.tools").Array()), nil
		}
	}
	if ctx.Err() != nil {
		return "", "", 0, fmt.Errorf("no answer within %v", mcpHandshakeTimeout)
	}
	return "", "", 0, fmt.Errorf("the server closed its output without listing its tools")
}
