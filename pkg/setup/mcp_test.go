package setup

import (
	"slices"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/mcpserver"
)

// The CLI does not link the MCP server, so what setup says of the server's tools — doctor's
// count, the read-only tools install allows — is checked here against the server's own list: a
// tool renamed or added there fails this test, not a user's install.
func TestMCPToolsMatchServer(t *testing.T) {
	if mcpToolCount != len(mcpserver.ToolNames) {
		t.Errorf("doctor expects %d tools, the server has %d", mcpToolCount, len(mcpserver.ToolNames))
	}
	for _, n := range mcpReadOnly {
		if !slices.Contains(mcpserver.ToolNames, n) {
			t.Errorf("install allows %q, which the server does not serve", n)
		}
	}
}
