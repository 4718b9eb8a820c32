//go:build unix

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// toolNamed reports whether a request's tools array declares a tool called name (not a mention
// of it in a message or a deferred-tool list).
func toolNamed(r *mockapi.Request, name string) bool {
	if r.Messages == nil {
		return false
	}
	for _, raw := range r.Messages.Tools {
		var t struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name == name {
			return true
		}
	}
	return false
}

// TestCairnE2EMCP: install.sh wires cairn's MCP server (.mcp.json, its approval and the
// read-only tools' permission rules in .claude/settings.local.json); the real client starts it;
// the mock has the model call mcp__cairn__search, and the parked item it finds comes back in the
// next request, as the tool's result. A tool that writes is asked for, which -p refuses: it does
// not run.
func TestCairnE2EMCP(t *testing.T) {
	c := newCairnProject(t)
	mcpRoundTrip(t, c, "mcp__cairn__", func(api *mockapi.Server) *session { return c.newSession(api) })
}

// TestPluginE2EMCP: the plugin's MCP server, loaded with --plugin-dir, serves the same tools as
// mcp__plugin_cairn_cairn__* (the names the plugin's skills use); a plugin cannot allow its own
// tools, so the read-only one is allowed on the command line, as a person allows it once.
func TestPluginE2EMCP(t *testing.T) {
	p := newProject(t)
	_, plugin := builtCairn(t)
	c := &cairnProject{project: p, Bin: filepath.Join(plugin, "bin")}
	mcpRoundTrip(t, c, "mcp__plugin_cairn_cairn__", func(api *mockapi.Server) *session {
		return p.newSession(api, "--plugin-dir", plugin, "--allowedTools", "mcp__plugin_cairn_cairn__search")
	})
}

// mcpRoundTrip parks an item with the CLI, then has the model call the search tool (prefix +
// "search") — fetching its schema through ToolSearch first on clients that defer MCP tools —
// and then the park tool, which nothing allows. It checks that the search's result, with the
// item, its id and the marked match, reached the next request, and that the park did not run.
func mcpRoundTrip(t *testing.T, c *cairnProject, prefix string, start func(*mockapi.Server) *session) {
	const marker = "MCP-E2E-HIT-7c1"
	c.mustCairn(nil, "session", "park", "deferred", "per-user cache "+marker, "keep one cache per user", "--slug", "cache-idea")
	search, park := prefix+"search", prefix+"park"

	step := 0
	var deferred bool
	api := newMock(t, mockapi.Compacting("x", mockapi.Func(func(r *mockapi.Request) mockapi.Reply {
		step++
		switch {
		case step == 1 && !toolNamed(r, search) && toolNamed(r, "ToolSearch"):
			deferred = true
			return mockapi.ToolUse("ToolSearch", `{"query":"select:`+search+`"}`)
		case step == 1 || step == 2 && deferred:
			return mockapi.ToolUse(search, `{"query":"cache"}`)
		case step == 2 || step == 3 && deferred:
			return mockapi.ToolUse(park, `{"kind":"side","idea":"MCP-E2E-PARKED","detail":"d","slug":"mcp-parked"}`)
		}
		return mockapi.Text("done")
	})))
	s := start(api)
	s.send("what did we park about the cache?")

	reqs := api.MessagesRequests()
	var searchResult, parkResult string
	for _, r := range reqs {
		for _, m := range r.Messages.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type != "tool_result" {
					continue
				}
				switch txt := string(b.Content); {
				case strings.Contains(txt, marker):
					searchResult = txt
				case strings.Contains(txt, park):
					parkResult = txt
				}
			}
		}
	}
	t.Logf("client defers MCP tools behind ToolSearch: %v; %d requests", deferred, len(reqs))
	if searchResult == "" {
		t.Fatalf("no request carried %s's result with %s; the requests' last messages:\n%s", search, marker, lastMessages(reqs))
	}
	for _, want := range []string{"parked", "cache-idea", "«cache»", "id: parked:cache-idea"} {
		if !strings.Contains(searchResult, want) {
			t.Errorf("the search result lacks %q: %s", want, searchResult)
		}
	}
	// park is not among the tools allowed: the client asks, and -p cannot answer.
	if parkResult == "" {
		t.Errorf("no tool result for %s:\n%s", park, lastMessages(reqs))
	}
	if out := c.mustCairn(nil, "session", "resume"); strings.Contains(out, "MCP-E2E-PARKED") {
		t.Errorf("%s ran without the user's permission:\n%s", park, out)
	}
}

// lastMessages is the last message of each request, shortened, for a failure's report.
func lastMessages(reqs []mockapi.Request) string {
	var b strings.Builder
	for _, r := range reqs {
		if r.Messages == nil || len(r.Messages.Messages) == 0 {
			continue
		}
		m := string(r.Messages.Messages[len(r.Messages.Messages)-1].Content)
		if len(m) > 600 {
			m = m[:600] + "…"
		}
		b.WriteString(m + "\n")
	}
	return b.String()
}
