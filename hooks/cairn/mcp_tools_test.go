package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/mcpserver"
)

// The CLI does not link the MCP server, so what it says of the server's tools — doctor's count,
// the read-only tools install allows, the help line — is checked here against the server's own
// list: a tool renamed or added there fails this test, not a user's install.
func TestMCPToolsMatchServer(t *testing.T) {
	if mcpToolCount != len(mcpserver.ToolNames) {
		t.Errorf("doctor expects %d tools, the server has %d", mcpToolCount, len(mcpserver.ToolNames))
	}
	for _, n := range mcpReadOnly {
		if !slices.Contains(mcpserver.ToolNames, n) {
			t.Errorf("install allows %q, which the server does not serve", n)
		}
	}
	help := topLevel["mcp"].summary
	for _, n := range mcpserver.ToolNames {
		if !strings.Contains(help, n) {
			t.Errorf("cairn mcp's help does not name %q", n)
		}
	}
}
