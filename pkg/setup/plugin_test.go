package setup

import (
	"encoding/json"
	"slices"
	"testing"
)

// hooksJSON is hooks/hooks.json as Claude Code reads it.
type hooksJSON struct {
	Hooks map[string][]struct {
		Matcher *string `json:"matcher"`
		Hooks   []struct {
			Type    string    `json:"type"`
			Command string    `json:"command"`
			Args    *[]string `json:"args"`
			Timeout int       `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// The plugin's hooks.json wires every row of hookSpecs once, in exec form (args present), from
// the plugin's bin/, with a real .exe on Windows, under an empty matcher — PreToolUse under none.
func TestPluginHooks(t *testing.T) {
	for goos, suffix := range map[string]string{"linux": "", "darwin": "", "windows": ".exe"} {
		data, err := pluginHooks(goos)
		if err != nil {
			t.Fatal(err)
		}
		var h hooksJSON
		if err := json.Unmarshal(data, &h); err != nil {
			t.Fatalf("%s: %v\n%s", goos, err, data)
		}
		n := 0
		for _, groups := range h.Hooks {
			for _, g := range groups {
				n += len(g.Hooks)
			}
		}
		if n != len(hookSpecs) {
			t.Errorf("%s: %d handlers for %d rows of hookSpecs\n%s", goos, n, len(hookSpecs), data)
		}
		for _, spec := range hookSpecs {
			groups := h.Hooks[spec.event]
			if len(groups) != 1 || len(groups[0].Hooks) != 1 {
				t.Errorf("%s: %s has %d groups, want 1 with one handler", goos, spec.event, len(groups))
				continue
			}
			g := groups[0]
			hd := g.Hooks[0]
			want := "${CLAUDE_PLUGIN_ROOT}/bin/" + spec.binary + suffix
			if (g.Matcher == nil) != spec.noMatcher || g.Matcher != nil && *g.Matcher != "" {
				t.Errorf("%s: %s's matcher %v; want none: %v, else empty", goos, spec.event, g.Matcher, spec.noMatcher)
			}
			if hd.Type != "command" || hd.Command != want || hd.Args == nil || len(*hd.Args) != 0 || hd.Timeout != spec.timeout {
				t.Errorf("%s: %s handler %+v, want exec form running %s, timeout %d", goos, spec.event, hd, want, spec.timeout)
			}
			if !isPluginHookCommand(hd.Command, spec.binary) {
				t.Errorf("isPluginHookCommand(%q, %q) = false", hd.Command, spec.binary)
			}
		}
	}
	if !slices.ContainsFunc(hookSpecs, func(s hookSpec) bool { return s.event == "PreToolUse" && s.binary == "pretooluse" && s.noMatcher }) {
		t.Errorf("no PreToolUse hook without a matcher in hookSpecs")
	}
	if isPluginHookCommand("/abs/bin/precompact", "precompact") || isPluginHookCommand("${CLAUDE_PLUGIN_ROOT}/bin/precompact", "sessionend") {
		t.Errorf("isPluginHookCommand accepts a command that is not the plugin's binary")
	}
}

// The MCP server entry runs `cairn mcp` from the plugin's bin/ (cairn.exe on Windows).
func TestPluginMCP(t *testing.T) {
	for goos, want := range map[string]string{"linux": "${CLAUDE_PLUGIN_ROOT}/bin/cairn", "windows": "${CLAUDE_PLUGIN_ROOT}/bin/cairn.exe"} {
		data, err := pluginMCP(goos)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		s, ok := m.MCPServers["cairn"]
		if len(m.MCPServers) != 1 || !ok || s.Command != want || len(s.Args) != 1 || s.Args[0] != "mcp" {
			t.Errorf("%s: .mcp.json = %s; want one server cairn running %s mcp", goos, data, want)
		}
	}
	if e := mcpServerEntry("/opt/cairn/bin/cairn"); e.Command != "/opt/cairn/bin/cairn" || len(e.Args) != 1 || e.Args[0] != "mcp" {
		t.Errorf("mcpServerEntry = %+v", e)
	}
}

// The marketplace lists the plugin at its own root, under the name doctor looks for.
func TestMarketplaceManifest(t *testing.T) {
	data, err := jsonFile(marketplaceManifest("v1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name    string            `json:"name"`
		Owner   map[string]string `json:"owner"`
		Plugins []struct{ Name, Source, Version string }
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != marketplaceName || m.Owner["name"] == "" || len(m.Plugins) != 1 || m.Plugins[0].Name != pluginName || m.Plugins[0].Source != "./" || m.Plugins[0].Version != "v1.2.3" {
		t.Errorf("marketplace.json = %s", data)
	}
	var top map[string]any
	json.Unmarshal(data, &top)
	if _, ok := top["description"]; ok {
		t.Errorf("marketplace.json has a top-level description, which Claude Code 2.1.100 refuses")
	}
}
