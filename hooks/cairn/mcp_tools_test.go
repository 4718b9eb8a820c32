package main

import (
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/mcpserver"
)

// The CLI does not link the MCP server, so the help line of cairn mcp is checked here against
// the server's own list of tools (pkg/setup checks doctor's count and install's rules so).
func TestMCPHelpNamesEveryTool(t *testing.T) {
	help := topLevel["mcp"].summary
	for _, n := range mcpserver.ToolNames {
		if !strings.Contains(help, n) {
			t.Errorf("cairn mcp's help does not name %q", n)
		}
	}
}
