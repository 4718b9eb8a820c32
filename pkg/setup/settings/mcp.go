package settings

import (
	"strings"

	"github.com/tidwall/gjson"
)

// MCPEntry is a stdio server's entry in an "mcpServers" object (.mcp.json, ~/.claude.json).
type MCPEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// obj is e as the document writer writes it, keys in this order.
func (e MCPEntry) obj() obj {
	return obj{{"type", e.Type}, {"command", e.Command}, {"args", e.Args}}
}

// OwnsMCP reports whether an "mcpServers" entry is cairn's: a stdio server whose command is the
// cairn CLI by an absolute path in one of the owner's bin directories (as Owns recognises a hook),
// run with "mcp" as its first argument. A relative command, or a binary named cairn anywhere else,
// is a repository's or someone else's: doctor does not vouch for it and uninstall leaves it.
func (o Owner) OwnsMCP(entry gjson.Result) bool {
	if !entry.IsObject() {
		return false
	}
	args := entry.Get("args").Array()
	if len(args) == 0 || args[0].String() != "mcp" {
		return false
	}
	cmd := entry.Get("command").String()
	if strings.HasPrefix(cmd, "$") || strings.Contains(cmd, "${") {
		// install writes a literal path (which may hold a "$"); a variable, which Claude Code
		// expands in .mcp.json as ${VAR}, names a binary the repository may supply.
		return false
	}
	return o.owns(cmd, CLIName)
}

// MCPShape says what an entry of cairn's has beyond what cairn install writes (type stdio, the
// command, args ["mcp"]): "" when nothing. An env or a cwd changes how the server runs (an
// LD_PRELOAD in env runs code of someone else's in it).
func MCPShape(entry gjson.Result) string {
	var extra []string
	entry.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "command":
		case "type":
			if v.Str != "stdio" {
				extra = append(extra, "type "+v.Raw)
			}
		case "args":
			if a := v.Array(); len(a) != 1 || a[0].Str != "mcp" {
				extra = append(extra, "args "+v.Raw)
			}
		default:
			extra = append(extra, k.Str)
		}
		return true
	})
	return strings.Join(extra, ", ")
}

// InstallMCP returns data (a .mcp.json or ~/.claude.json) with mcpServers.cairn set to e, and
// whether it changed. An entry named cairn that is not cairn's is refused (ErrInvalid): it is
// someone else's server. Every other byte is kept.
func InstallMCP(data []byte, e MCPEntry, o Owner) ([]byte, error) {
	d, err := load(data)
	if err != nil {
		return nil, err
	}
	r := d.root()
	rits := items(r)
	si, n := lookup(rits, "mcpServers")
	switch {
	case n > 1:
		return nil, invalid(`the key "mcpServers" appears %d times: merge them by hand`, n)
	case si < 0:
		d.add(r, rits, "mcpServers", obj{{MCPServer, e.obj()}})
		return d.b, nil
	case !rits[si].val.IsObject():
		return nil, invalid(`"mcpServers" is not an object`)
	}
	servers := rits[si].val
	sits := items(servers)
	ci, n := lookup(sits, MCPServer)
	switch {
	case n > 1:
		return nil, invalid(`"mcpServers" has the key %q %d times: merge them by hand`, MCPServer, n)
	case ci < 0:
		d.add(servers, sits, MCPServer, e.obj())
		return d.b, nil
	case !o.OwnsMCP(sits[ci].val):
		return nil, invalid(`"mcpServers.%s" is a server that is not cairn's: rename or remove it, then install again`, MCPServer)
	}
	cur := sits[ci].val
	if cur.Get("type").String() == e.Type && cur.Get("command").String() == e.Command && sameArgs(cur.Get("args").Array(), e.Args) {
		return d.b, nil
	}
	d.replace(sits[ci], e.obj())
	return d.b, nil
}

func sameArgs(a []gjson.Result, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != gjson.String || a[i].Str != b[i] {
			return false
		}
	}
	return true
}

// UninstallMCP returns data without cairn's mcpServers entry (and without an "mcpServers" that
// this left empty), and whether there was one. Someone else's server named cairn is kept.
func UninstallMCP(data []byte, o Owner) ([]byte, bool, error) {
	if isBlank(data) {
		return data, false, nil
	}
	d, err := load(data)
	if err != nil {
		return nil, false, err
	}
	r := d.root()
	rits := items(r)
	si, _ := lookup(rits, "mcpServers")
	if si < 0 || !rits[si].val.IsObject() {
		return data, false, nil
	}
	servers := rits[si].val
	sits := items(servers)
	for i, it := range sits {
		if it.key.Str == MCPServer && o.OwnsMCP(it.val) {
			d.removeChain([]step{{r, rits, si}, {servers, sits, i}})
			return d.b, true, nil
		}
	}
	return data, false, nil
}

// MCPEntryOf returns mcpServers.cairn of data and whether it is there and cairn's.
func MCPEntryOf(data []byte, o Owner) (MCPEntry, bool) {
	e := gjson.GetBytes(data, "mcpServers."+MCPServer)
	if !e.Exists() || !o.OwnsMCP(e) {
		return MCPEntry{}, false
	}
	var args []string
	for _, a := range e.Get("args").Array() {
		args = append(args, a.String())
	}
	return MCPEntry{Type: e.Get("type").String(), Command: e.Get("command").String(), Args: args}, true
}

// ApproveMCP returns data (the project's .claude/settings.local.json) with "cairn" in
// enabledMcpjsonServers — the approval Claude Code otherwise asks for the first time it meets the
// project's .mcp.json — and cairn's MCP permission rules exactly rules (see Plan.MCPRules). Claude
// Code does not take a permission rule for a .mcp.json server's tools from the project's
// committed settings.json (testscripts/e2e/FINDINGS.md): a cloned repository could otherwise both define a
// server and allow it. The personal settings.local.json is where a person's own approval goes.
func ApproveMCP(data []byte, rules []string) ([]byte, error) {
	d, err := load(data)
	if err != nil {
		return nil, err
	}
	if err := d.approve(true); err != nil {
		return nil, err
	}
	if err := d.mcpRules(rules); err != nil {
		return nil, err
	}
	return d.b, nil
}

// WithdrawMCP returns data without cairn's approval and MCP permission rules (and without a
// container this left empty), and whether there was anything to remove.
func WithdrawMCP(data []byte) ([]byte, bool, error) {
	if isBlank(data) {
		return data, false, nil
	}
	d, err := load(data)
	if err != nil {
		return nil, false, err
	}
	if err := d.approve(false); err != nil {
		return nil, false, err
	}
	if err := d.mcpRules(nil); err != nil {
		return nil, false, err
	}
	if string(d.b) == string(data) {
		return data, false, nil
	}
	return d.b, true, nil
}

// approve puts "cairn" in enabledMcpjsonServers, or takes it out.
func (d *doc) approve(approve bool) error {
	r := d.root()
	rits := items(r)
	ei, n := lookup(rits, "enabledMcpjsonServers")
	switch {
	case n > 1:
		return invalid(`the key "enabledMcpjsonServers" appears %d times: merge them by hand`, n)
	case ei < 0 && approve:
		d.add(r, rits, "enabledMcpjsonServers", []string{MCPServer})
		return nil
	case ei < 0:
		return nil
	case !rits[ei].val.IsArray():
		return invalid(`"enabledMcpjsonServers" is not an array`)
	}
	arr := rits[ei].val
	aits := items(arr)
	for i, it := range aits {
		if it.val.Type == gjson.String && it.val.Str == MCPServer {
			if !approve {
				d.removeChain([]step{{r, rits, ei}, {arr, aits, i}})
			}
			return nil
		}
	}
	if approve {
		d.add(arr, aits, "", MCPServer)
	}
	return nil
}
