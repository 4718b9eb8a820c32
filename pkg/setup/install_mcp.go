package setup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/setup/settings"
)

// cairn's MCP server is registered where Claude Code looks for the install's scope: a project's
// .mcp.json, or, at user scope, the user's ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json when
// set), where `claude mcp add --scope user` puts servers.
//
// Claude Code asks before it starts a project's .mcp.json server, and before each MCP tool call
// unless a permission rule allows it (in -p, where nobody can answer, the call is refused). At
// project scope both the approval ("enabledMcpjsonServers") and the rules go in the project's
// .claude/settings.local.json — the personal file Claude Code writes its own approvals to, never
// committed — because Claude Code ignores a rule for a .mcp.json server's tools in the committed
// settings.json (testscripts/e2e/FINDINGS.md). At user scope the rules go in the user's settings.json. The
// read-only tools are allowed; the tools that write (save_checkpoint, park, archive, broadcast)
// ask, unless --allow-bash allows the whole server as it allows the CLI.

// mcpReadOnly are the tools that write nothing a person wrote (list_parked deletes what expired,
// as every SessionStart does).
var mcpReadOnly = []string{"search", "show", "list_checkpoints", "list_parked", "list_sessions", "claims"}

// mcpRules are the permission rules install writes: the read-only tools, or the whole server.
func mcpRules(all bool) []string {
	if all {
		return []string{"mcp__" + settings.MCPServer}
	}
	var out []string
	for _, t := range mcpReadOnly {
		out = append(out, "mcp__"+settings.MCPServer+"__"+t)
	}
	return out
}

// mcpPlan is what install writes for the MCP server: its entry, the file that registers it, the
// file of its approval (project scope only) and the permission rules for its tools.
type mcpPlan struct {
	entry            settings.MCPEntry
	server, approval string
	rules            []string
}

// planMCP plans the MCP wiring for an install of cli and checks, before anything is written, that
// every file it edits can be edited. settingsData is the scope's settings.json as read. Without
// --allow-bash, a rule for the whole server that is there already is kept.
func planMCP(h Host, s scope, cli string, own settings.Owner, allow *bool, settingsData []byte, dryRun bool) (mcpPlan, error) {
	mp := mcpPlan{entry: settings.MCPEntry{Type: "stdio", Command: filepath.ToSlash(cli), Args: []string{"mcp"}}}
	var err error
	if mp.server, mp.approval, err = s.mcpFiles(h.Env); err != nil {
		return mp, err
	}
	var approvalData []byte
	if mp.approval != "" {
		if approvalData, err = readSettings(mp.approval, dryRun); err != nil {
			return mp, err
		}
	}
	all := allow != nil && *allow
	if allow == nil {
		rulesIn := settingsData
		if mp.approval != "" {
			rulesIn = approvalData
		}
		all = slices.ContainsFunc(gjson.GetBytes(rulesIn, "permissions.allow").Array(), func(r gjson.Result) bool { return r.Str == "mcp__"+settings.MCPServer })
	}
	mp.rules = mcpRules(all)
	serverData, err := readSettings(mp.server, dryRun)
	if err != nil {
		return mp, err
	}
	if _, err := settings.InstallMCP(serverData, mp.entry, own); err != nil {
		return mp, settingsError(mp.server, err)
	}
	if mp.approval != "" {
		if _, err := settings.ApproveMCP(approvalData, mp.rules); err != nil {
			return mp, settingsError(mp.approval, err)
		}
	}
	return mp, nil
}

// mcpFiles are the scope's server file and, at project scope, the file of its approval.
func (s scope) mcpFiles(env project.Env) (server, approval string, err error) {
	if !s.user {
		return filepath.Join(s.root, ".mcp.json"), filepath.Join(s.root, ".claude", "settings.local.json"), nil
	}
	server, err = project.ClaudeJSON(env)
	return server, "", err
}

// mcpWriter writes the server files: the scope's writer, with the directory of ~/.claude.json
// as a second root at user scope.
func (s scope) mcpWriter(out io.Writer, server string, dryRun bool) files {
	roots := []string{s.root, filepath.Dir(server)}
	if dryRun {
		return safefile.DryRun{Out: out, Roots: roots}
	}
	return configFiles{roots: roots}
}

// wire registers the server and, at project scope, approves it and allows its tools.
func (mp mcpPlan) wire(h Host, s scope, own settings.Owner, dryRun bool) error {
	w := s.mcpWriter(h.Out, mp.server, dryRun)
	existed := fileExists(mp.server)
	changed, err := w.Update(mp.server, 0o644, func(old []byte, _ bool) ([]byte, error) {
		return settings.InstallMCP(old, mp.entry, own)
	}, safefile.Limit(configLimit(mp.server)))
	if err != nil {
		return settingsError(mp.server, err)
	}
	if !dryRun {
		fmt.Fprintf(h.Out, "mcp server: %s %s\n", outcome(changed, existed), mp.server)
	}
	if mp.approval == "" {
		return nil
	}
	existed = fileExists(mp.approval)
	changed, err = w.Update(mp.approval, 0o644, func(old []byte, _ bool) ([]byte, error) {
		return settings.ApproveMCP(old, mp.rules)
	})
	if err != nil {
		return settingsError(mp.approval, err)
	}
	if !dryRun {
		fmt.Fprintf(h.Out, "mcp approval: %s %s\n", outcome(changed, existed), mp.approval)
	}
	return nil
}

// unwireMCP removes the server's entry, its approval and its tools' rules; files that then hold
// nothing are removed when cairn's entries were all they held.
func unwireMCP(h Host, s scope, own settings.Owner, dryRun bool) error {
	server, approval, err := s.mcpFiles(h.Env)
	if err != nil {
		return err
	}
	w := s.mcpWriter(h.Out, server, dryRun)
	// A server named cairn that is not cairn's (a repository's own, say) is left, and so is the
	// approval beside it: uninstall takes back only what install wrote.
	if data, _, err := readConfig(server); err == nil {
		if e := gjson.GetBytes(data, "mcpServers."+settings.MCPServer); e.Exists() && !own.OwnsMCP(e) {
			h.Warn("%s registers a server named %s that is not cairn's: it and its approval are left as they are", server, settings.MCPServer)
			approval = ""
		}
	}
	for _, f := range []struct {
		path string
		edit func([]byte) ([]byte, bool, error)
		what string
	}{
		{server, func(old []byte) ([]byte, bool, error) { return settings.UninstallMCP(old, own) }, "mcp server"},
		{approval, settings.WithdrawMCP, "mcp approval"},
	} {
		if f.path == "" || !fileExists(f.path) {
			continue
		}
		removed, empty := false, false
		_, err := w.Update(f.path, 0o644, func(old []byte, _ bool) ([]byte, error) {
			out, r, err := f.edit(old)
			if err != nil {
				return nil, err
			}
			if removed = r; !r {
				return nil, safefile.ErrNoChange
			}
			empty = settings.Empty(out)
			return out, nil
		}, safefile.Limit(configLimit(f.path)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return settingsError(f.path, err)
		}
		if !removed {
			continue
		}
		// A file that held nothing but cairn's entry was cairn's to create: it goes.
		if empty {
			if err := w.Remove(f.path); err != nil {
				return err
			}
		}
		if !dryRun {
			fmt.Fprintf(h.Out, "%s: removed cairn from %s%s\n", f.what, f.path, map[bool]string{true: ", which held nothing else and is removed"}[empty])
		}
	}
	return nil
}
