//go:build unix

package e2e

// cairn as a Claude Code plugin, with the real client: the plugin that
// `cairn plugin build` makes passes `claude plugin validate`, runs its hooks,
// skills' CLI and compaction round trip when loaded with --plugin-dir, and
// installs from its own directory as a local marketplace, where doctor finds
// it and fails a settings install beside it. The plugin's MCP server is
// called by the real client in TestPluginE2EMCP (mcp_e2e_test.go).
//
//	CAIRN_E2E=1 go test ./testscripts/e2e/ -run Plugin -v -count=1

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/version"
	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// pluginVersion is the version the e2e builds are stamped with.
const pluginVersion = "e2e-plugin"

// builtCairn builds every binary into a fresh bin directory, as go install or
// the release script would, and the plugin from them; it returns both.
func builtCairn(t *testing.T) (bin, plugin string) {
	t.Helper()
	requireClaude(t)
	if err := touchCairnSources(); err != nil {
		t.Fatal(err)
	}
	goenv, err := cairnGoEnv()
	if err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin, plugin = filepath.Join(root, "bin"), filepath.Join(root, "cairn-plugin")
	start := time.Now()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", version.Flag(pluginVersion), "-o", bin+"/", "./hooks/...")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), goenv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "cairn"), "plugin", "build", "--out", plugin).CombinedOutput()
	if err != nil {
		t.Fatalf("cairn plugin build: %v\n%s", err, out)
	}
	t.Logf("built in %v: %s", time.Since(start).Round(time.Millisecond), bytes.TrimSpace(out))
	return bin, plugin
}

// runCLI runs a cairn binary in dir with env and returns its result.
func runCLI(t *testing.T, env []string, dir, cairn string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(cairn, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := cliResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v", cairn, args, err)
	}
	t.Logf("%s %s → exit %d\n%s%s", filepath.Base(cairn), strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	return r
}

// claudeCmd runs a claude subcommand (plugin validate, plugin install, …) in
// the project and fails the test unless it exits 0. It is pointed at the mock
// like a turn: with an API key set, the plugin subcommands also call the API,
// and an unreachable api.anthropic.com costs them about 17 s each (2.1.332).
func claudeCmd(t *testing.T, p *project, api *mockapi.Server, args ...string) string {
	t.Helper()
	r := tryClaude(t, p.Claude, p.envFor(api), p.Dir, args...)
	if r.Err != nil {
		t.Fatalf("claude %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout + r.Stderr
}

// TestPluginE2EValidate: `claude plugin validate` accepts the plugin, and the
// directory as the marketplace it also is.
func TestPluginE2EValidate(t *testing.T) {
	p := newProject(t)
	_, plugin := builtCairn(t)
	api := newMock(t, replies("", mockapi.Text("ok")))
	for _, target := range []string{plugin, filepath.Join(plugin, ".claude-plugin", "plugin.json")} {
		out := claudeCmd(t, p, api, "plugin", "validate", target)
		t.Logf("claude plugin validate %s:\n%s", target, out)
		if !strings.Contains(out, "Validation passed") || strings.Contains(out, "✘ Found") && !strings.Contains(out, "plugin directory refuses") {
			t.Errorf("claude plugin validate %s did not pass cleanly", target)
		}
	}
}

// TestPluginE2EPluginDir: loaded with --plugin-dir and no settings hooks, the
// plugin's hooks give the read order at startup; bin/ is on the Bash tool's
// PATH, so the skills' plain `cairn` runs; /compact writes one automatic
// checkpoint and the whiteboard comes back; SessionEnd ends the session; the
// plugin's own cairn doctor finds the plugin by its path and is clean.
func TestPluginE2EPluginDir(t *testing.T) {
	p := newProject(t)
	_, plugin := builtCairn(t)
	c := &cairnProject{project: p, Bin: filepath.Join(plugin, "bin")}
	c.mustCairn(nil, "run", "start", "demo", "--issue", "7")
	api := newMock(t, replies("CAIRN-E2E-PLUGIN-SUMMARY", mockapi.Text("ok"),
		mockapi.ToolUse("Bash", js(t, map[string]any{"command": "cairn --version", "description": "the CLI the skills call"})),
		mockapi.Text("cairn is there."),
	))
	s := p.newSession(api, "--plugin-dir", plugin, "--allowedTools", "Bash")

	reqs := turn(s, "start on the demo run")
	wantIn(t, "startup request", reqs[0], runActiveDemo, memoryInOrder)
	if len(reqs) != 2 {
		t.Fatalf("turn 1: %d requests, want the prompt's and the Bash result's", len(reqs))
	}
	var bash string
	for _, tr := range reqs[1].ToolResults() {
		var m mockapi.Message
		m.Content, _ = json.Marshal([]mockapi.ContentBlock{tr})
		bash = m.Text()
	}
	if !strings.Contains(bash, "cairn "+pluginVersion) {
		t.Errorf("the Bash tool ran `cairn --version` as %q: want the plugin's cairn, on PATH", bash)
	}
	turn(s, "second turn") // 2.1.197 compacts only after two turns (FINDINGS.md §k)
	res := s.send("/compact keep the plugin")
	t.Logf("/compact: %+v", res)
	var auto []string
	for _, name := range c.checkpoints() {
		if strings.Contains(c.checkpoint(name), "status: auto") {
			auto = append(auto, name)
		}
	}
	if len(auto) != 1 || !strings.HasSuffix(auto[0], "-before-manual-compaction.md") {
		t.Errorf("automatic checkpoints %v, want one *-before-manual-compaction.md (PreCompact from the plugin)", auto)
	}
	// The whiteboard and the restore protocol come back after the compaction:
	// from SessionStart(compact), or, where a client drops that context
	// (2.1.100, FINDINGS.md §k), from the next SessionStart(resume), which
	// sees the compaction in the transcript.
	reqs = turn(s, "carry on")
	wantIn(t, "request after /compact", reqs[0], "CAIRN-E2E-PLUGIN-SUMMARY", whiteboardHead, restoreSentence)

	if got := c.registry()[s.ID]; got.Status != "ended" || got.EndedBy != "session_end" {
		t.Errorf("session %s in the registry: %+v, want ended by SessionEnd", s.ID, got)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, ".claude", "settings.json")); err == nil {
		t.Errorf("the project has a settings.json: the hooks should come from the plugin only")
	}
	pluginHealthy(t, c, plugin, s)
	r := c.cairn(nil, "doctor")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ok   plugin: plugin cairn (--plugin-dir "+plugin+")") {
		t.Errorf("the plugin's cairn doctor: exit %d, want 0 and the --plugin-dir plugin found", r.Code)
	}
	logTimings(t, s)
}

// TestPluginE2EMarketplace: the plugin's directory is a marketplace: `claude
// plugin marketplace add` + `claude plugin install cairn@cairn --scope
// project` install it offline; its hooks run; doctor finds it through
// Claude Code's files. A settings install beside it makes every hook run
// twice: doctor fails each hook, names the settings install to remove, and
// the command it gives makes doctor clean again.
func TestPluginE2EMarketplace(t *testing.T) {
	p := newProject(t)
	bin, plugin := builtCairn(t)
	api := newMock(t, replies("", mockapi.Text("ok")))
	t.Log(claudeCmd(t, p, api, "plugin", "marketplace", "add", plugin))
	t.Log(claudeCmd(t, p, api, "plugin", "install", "cairn@cairn", "--scope", "project"))
	installed, err := os.ReadFile(filepath.Join(p.Home, ".claude", "plugins", "installed_plugins.json"))
	if err != nil || !bytes.Contains(installed, []byte(`"cairn@cairn"`)) {
		t.Fatalf("installed_plugins.json: %v\n%s", err, installed)
	}
	c := &cairnProject{project: p, Bin: filepath.Join(plugin, "bin")}
	c.mustCairn(nil, "run", "start", "demo")
	s := p.newSession(api)
	reqs := turn(s, "start")
	wantIn(t, "startup request", reqs[0], runActiveDemo)

	r := c.cairn(nil, "doctor")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ok   plugin: plugin cairn@cairn (enabled in "+filepath.Join(p.Dir, ".claude", "settings.json")+")") {
		t.Errorf("doctor with the plugin installed: exit %d, want 0 and the plugin found", r.Code)
	}

	// A settings install beside the plugin.
	runCLI(t, p.Env, p.Dir, filepath.Join(bin, "cairn"), "install")
	turn(s, "both installs run")
	r = c.cairn(nil, "doctor")
	fix := filepath.Join(bin, "cairn") + " uninstall --project " + p.Dir
	want := "FAIL hook SessionStart: wired 2 times, by the plugin cairn@cairn"
	if r.Code != 1 || !strings.Contains(r.Stdout, want) || !strings.Contains(r.Stdout, "(remove it: "+fix+")") {
		t.Errorf("doctor with a plugin and a settings install: exit %d; want 1, %q and the fix %q", r.Code, want, fix)
	}
	runCLI(t, p.Env, p.Dir, filepath.Join(bin, "cairn"), "uninstall", "--project", p.Dir)
	c.doctor()
	pluginHealthy(t, c, plugin, s)
	logTimings(t, s)
}

// pluginHealthy fails the test when a hook of the plugin reported trouble in
// the sessions' transcripts (an error or cancel attachment, stderr, a non-zero
// exit) or cairn logged a problem. That the hooks ran at all is checked by
// what they wrote (registry, checkpoints, context). Claude Code records a plugin hook's command as hooks.json
// spells it, ${CLAUDE_PLUGIN_ROOT} unsubstituted (on the versions that record
// a command at all), or with the plugin's directory substituted.
func pluginHealthy(t *testing.T, c *cairnProject, plugin string, sessions ...*session) {
	t.Helper()
	ours := func(cmd string) bool {
		return strings.HasPrefix(cmd, "${CLAUDE_PLUGIN_ROOT}/bin/") || strings.HasPrefix(cmd, plugin+"/bin/")
	}
	runs := map[string]int{}
	commands := map[string]bool{}
	for _, s := range sessions {
		for _, l := range readTranscript(t, c.transcriptPath(s.ID)) {
			a, _ := l.Fields["attachment"].(map[string]any)
			typ, _ := a["type"].(string)
			cmd, _ := a["command"].(string)
			name, _ := a["hookName"].(string)
			if cmd != "" && !commands[cmd] {
				commands[cmd] = true
				t.Logf("transcript: %s %s records the command %q", typ, name, cmd)
			}
			if strings.Contains(typ, "error") || strings.Contains(typ, "cancel") {
				if ours(cmd) || cmd == "" {
					t.Errorf("session %s: hook error attachment: %s", s.ID, l.Raw)
				}
				continue
			}
			if !ours(cmd) || !strings.HasPrefix(typ, "hook_") {
				continue
			}
			runs[name]++
			stderr, _ := a["stderr"].(string)
			code, _ := a["exitCode"].(float64)
			if stderr != "" || code != 0 {
				t.Errorf("session %s: %s exit %v, stderr %q", s.ID, name, code, stderr)
			}
		}
	}
	t.Logf("the plugin's hook runs recorded in the transcripts: %v", runs)
	if log := c.read(".claude/state/cairn.log"); strings.TrimSpace(log) != "" {
		t.Errorf("cairn hooks logged problems in .claude/state/cairn.log:\n%s", log)
	}
}
