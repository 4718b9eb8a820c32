package testscripts

// Commands of the plugin scripts (plugin-*.txtar), registered apart from the shared ones.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

func init() {
	commands["pluginok"] = cmdPluginOK
	commands["expand"] = cmdExpand
}

// expand SRC DST writes SRC with $VARIABLES replaced by the script's environment to DST,
// creating its directory: for files Claude Code writes with absolute paths in them.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

// pluginok DIR checks a built plugin as Claude Code would load it: every command hook handler of
// hooks/hooks.json and the MCP server of .mcp.json name ${CLAUDE_PLUGIN_ROOT}/bin/<file> in exec
// form, and each such file is an executable in DIR/bin. It prints one line per handler,
// "EVENT bin/FILE", and "mcp bin/FILE ARGS".
func cmdPluginOK(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pluginok DIR")
	}
	dir := ts.MkAbs(args[0])
	var out strings.Builder
	exe := func(command string) string {
		rel, ok := strings.CutPrefix(command, "${CLAUDE_PLUGIN_ROOT}/")
		if !ok || !strings.HasPrefix(rel, "bin/") {
			ts.Fatalf("%q does not run a file of the plugin's bin/", command)
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		ts.Check(err)
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			ts.Fatalf("%s is not an executable file", rel)
		}
		return rel
	}
	hooks, err := os.ReadFile(filepath.Join(dir, "hooks", "hooks.json"))
	ts.Check(err)
	n := 0
	gjson.GetBytes(hooks, "hooks").ForEach(func(event, groups gjson.Result) bool {
		for _, g := range groups.Array() {
			for _, h := range g.Get("hooks").Array() {
				if !h.Get("args").IsArray() {
					ts.Fatalf("%s: %s is not in exec form", event.Str, h.Raw)
				}
				n++
				out.WriteString(event.Str + " " + exe(h.Get("command").String()) + "\n")
			}
		}
		return true
	})
	if n == 0 {
		ts.Fatalf("hooks/hooks.json wires no hook")
	}
	mcp, err := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	ts.Check(err)
	gjson.GetBytes(mcp, "mcpServers").ForEach(func(name, s gjson.Result) bool {
		var a []string
		for _, x := range s.Get("args").Array() {
			a = append(a, x.String())
		}
		out.WriteString("mcp " + exe(s.Get("command").String()) + " " + strings.Join(a, " ") + "\n")
		return true
	})
	ts.Stdout().Write([]byte(out.String()))
}
