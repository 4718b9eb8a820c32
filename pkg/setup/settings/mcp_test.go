package settings

import (
	"errors"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"
)

func TestInstallMCP(t *testing.T) {
	e := MCPEntry{Type: "stdio", Command: bin + "/cairn", Args: []string{"mcp"}}
	in := "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    }\n  }\n}\n"
	out, err := InstallMCP([]byte(in), e, owner)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    },\n    \"cairn\": {\n      \"type\": \"stdio\",\n      \"command\": \"/p/.claude/cairn/bin/cairn\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
	check(t, "install", string(out), want)
	again, err := InstallMCP(out, e, owner)
	if err != nil || string(again) != string(out) {
		t.Fatalf("install again: %v\n%s", err, again)
	}
	if got, ok := MCPEntryOf(out, owner); !ok || got.Command != e.Command {
		t.Errorf("MCPEntryOf: %+v %v", got, ok)
	}
	// An upgrade moves the entry to the new binary in place.
	e2 := e
	e2.Command = "/q/.claude/cairn/bin/cairn"
	up, err := InstallMCP(out, e2, Owner{BinDirs: []string{bin, "/q/.claude/cairn/bin"}, Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := MCPEntryOf(up, owner); got.Command != e2.Command {
		t.Errorf("upgrade: %s", up)
	}
	// Uninstall restores the bytes; a blank file gets one entry.
	un, removed, err := UninstallMCP(out, owner)
	if err != nil || !removed {
		t.Fatalf("uninstall: %v %v", removed, err)
	}
	check(t, "uninstall", string(un), in)
	fresh, err := InstallMCP(nil, e, owner)
	if err != nil {
		t.Fatal(err)
	}
	un, _, _ = UninstallMCP(fresh, owner)
	check(t, "uninstall of a fresh file", string(un), "{}\n")
	// Someone else's server named cairn is refused and kept.
	foreign := `{"mcpServers": {"cairn": {"command": "/usr/bin/node", "args": ["server.js"]}}}`
	if _, err := InstallMCP([]byte(foreign), e, owner); !errors.Is(err, ErrInvalid) {
		t.Errorf("foreign cairn server: %v", err)
	}
	if out, removed, _ := UninstallMCP([]byte(foreign), owner); removed || string(out) != foreign {
		t.Errorf("uninstall removed a foreign server: %s", out)
	}
	for _, bad := range []string{`{"mcpServers": []}`, `[]`, `{"mcpServers": {"cairn": 1, "cairn": 2}}`} {
		if _, err := InstallMCP([]byte(bad), e, owner); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestApproveMCP(t *testing.T) {
	read := []string{"mcp__cairn__search", "mcp__cairn__show"}
	for _, c := range []struct{ in, approved string }{
		{``, "{\n  \"enabledMcpjsonServers\": [\n    \"cairn\"\n  ],\n  \"permissions\": {\n    \"allow\": [\n      \"mcp__cairn__search\",\n      \"mcp__cairn__show\"\n    ]\n  }\n}\n"},
		{`{"a": 1}`, `{"a": 1, "enabledMcpjsonServers": ["cairn"], "permissions": {"allow": ["mcp__cairn__search", "mcp__cairn__show"]}}`},
		{`{"enabledMcpjsonServers": ["x"], "permissions": {"allow": ["Read"]}}`, `{"enabledMcpjsonServers": ["x", "cairn"], "permissions": {"allow": ["Read", "mcp__cairn__search", "mcp__cairn__show"]}}`},
		// Claude Code's own approval of the server, and a rule it wrote for one tool, are kept
		// as the rules install wants.
		{`{"enabledMcpjsonServers": ["cairn"], "permissions": {"allow": ["mcp__cairn__park"]}}`, `{"enabledMcpjsonServers": ["cairn"], "permissions": {"allow": ["mcp__cairn__search", "mcp__cairn__show"]}}`},
	} {
		out, err := ApproveMCP([]byte(c.in), read)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "approve "+c.in, string(out), c.approved)
		again, err := ApproveMCP(out, read)
		if err != nil || string(again) != string(out) {
			t.Errorf("approve twice %s: %v\n%s", c.in, err, again)
		}
		back, removed, err := WithdrawMCP(out)
		if err != nil || !removed {
			t.Fatalf("withdraw %s: %v %v", c.in, removed, err)
		}
		switch c.in {
		case "":
			check(t, "withdraw of a fresh file", string(back), "{}\n")
		case `{"enabledMcpjsonServers": ["cairn"], "permissions": {"allow": ["mcp__cairn__park"]}}`:
			check(t, "withdraw "+c.in, string(back), "{}")
		default:
			check(t, "withdraw "+c.in, string(back), c.in)
		}
	}
	if out, removed, err := WithdrawMCP([]byte(`{"a": 1}`)); err != nil || removed || string(out) != `{"a": 1}` {
		t.Errorf("withdraw from a file without cairn: %q %v %v", out, removed, err)
	}
	for _, bad := range []string{`{"enabledMcpjsonServers": "cairn"}`, `{"permissions": []}`, `{"enabledMcpjsonServers": [], "enabledMcpjsonServers": []}`} {
		if _, err := ApproveMCP([]byte(bad), read); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// Only cairn's CLI by an absolute path in a cairn bin directory is cairn's server: a repository's
// relative binary named cairn, or one anywhere else, is not.
func TestOwnsMCP(t *testing.T) {
	for cmd, want := range map[string]bool{
		bin + "/cairn":                    true,
		"/home/x/.claude/cairn/bin/cairn": true, // another cairn's bin directory: an upgrade
		"evil/cairn":                      false,
		"./cairn":                         false,
		"cairn":                           false,
		"$CLAUDE_PROJECT_DIR/evil/cairn":  false,
		"$CLAUDE_PROJECT_DIR/.claude/cairn/bin/cairn":   false, // a repository can commit that binary
		"${CLAUDE_PROJECT_DIR}/.claude/cairn/bin/cairn": false,
		"/home/x/a${HOME}/.claude/cairn/bin/cairn":      false,
		"/home/x/my $proj/.claude/cairn/bin/cairn":      true, // a "$" in a literal path
		"/usr/local/bin/cairn":                          false,
		bin + "/cairn-mcp":                              false,
		"${CLAUDE_PLUGIN_ROOT}/bin/cairn":               false,
		`C:\Users\x\.claude\cairn\bin\cairn`:            true,
	} {
		e := gjson.Parse(`{"command": ` + strconv.Quote(cmd) + `, "args": ["mcp"]}`)
		if got := owner.OwnsMCP(e); got != want {
			t.Errorf("OwnsMCP(%s) = %v", cmd, got)
		}
	}
	if owner.OwnsMCP(gjson.Parse(`{"command": "` + bin + `/cairn", "args": ["search"]}`)) {
		t.Error("a cairn entry that does not serve MCP is owned")
	}
	for raw, want := range map[string]string{
		`{"type": "stdio", "command": "/c", "args": ["mcp"]}`:                             "",
		`{"command": "/c", "args": ["mcp"]}`:                                              "",
		`{"type": "stdio", "command": "/c", "args": ["mcp"], "env": {"LD_PRELOAD": "x"}}`: "env",
		`{"type": "http", "command": "/c", "args": ["mcp", "x"], "cwd": "/"}`:             `type "http", args ["mcp", "x"], cwd`,
	} {
		if got := MCPShape(gjson.Parse(raw)); got != want {
			t.Errorf("MCPShape(%s) = %q, want %q", raw, got, want)
		}
	}
}
