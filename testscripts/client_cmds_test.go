package testscripts

// Commands of the scripts about Claude Code's versions and how hooks are started
// (install-old-client.txtar and others), registered apart from the shared ones.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

func init() {
	commands["fakeclaude"] = cmdFakeClaude
	commands["hookrun"] = cmdHookRun
}

// fakeclaude DIR VERSION makes DIR/claude a Claude Code of VERSION as npm installs one: a link
// to node_modules/@anthropic-ai/claude-code/cli.js beside that package's package.json, in
// $WORK/npm-VERSION. Its --version answers as the real one does, and every run appends a line
// to $WORK/claude-ran, so a script can tell whether anything ran it. An existing DIR/claude is
// replaced (the client is upgraded).
func cmdFakeClaude(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fakeclaude DIR VERSION")
	}
	pkg := filepath.Join(ts.Getenv("WORK"), "npm-"+args[1], "node_modules", "@anthropic-ai", "claude-code")
	ts.Check(os.MkdirAll(pkg, 0o755))
	ran := filepath.Join(ts.Getenv("WORK"), "claude-ran")
	script := fmt.Sprintf("#!/bin/sh\necho run >> '%s'\necho '%s (Claude Code)'\n", ran, args[1])
	ts.Check(writeExecutable(filepath.Join(pkg, "cli.js"), []byte(script)))
	ts.Check(os.WriteFile(filepath.Join(pkg, "package.json"),
		[]byte(fmt.Sprintf(`{"name": "@anthropic-ai/claude-code", "version": %q, "bin": {"claude": "cli.js"}}`+"\n", args[1])), 0o644))
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	link := filepath.Join(dir, "claude")
	if err := os.Remove(link); err != nil && !errors.Is(err, os.ErrNotExist) {
		ts.Fatalf("%v", err)
	}
	ts.Check(os.Symlink(filepath.Join(pkg, "cli.js"), link))
}

// hookrun [-old] SETTINGS starts every command hook handler of a settings file as Claude Code
// starts it — exec form (the handler has "args") spawned directly, shell form through
// `/bin/sh -c` — or, with -old, as a client before exec form does: every command through
// `/bin/sh -c`, "args" dropped (testscripts/e2e/FINDINGS.md §k). Each gets "{}" on stdin. cairn's hooks exit 0
// whatever their input, so a non-zero exit means the hook could not start (127 not found, 2 a
// shell syntax error). It prints "EVENT: started" or "EVENT: exit N" per handler and fails
// unless every one started.
func cmdHookRun(ts *testscript.TestScript, neg bool, args []string) {
	old := len(args) == 2 && args[0] == "-old"
	if old {
		args = args[1:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: hookrun [-old] SETTINGS")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var out strings.Builder
	failed, n := 0, 0
	gjson.GetBytes(data, "hooks").ForEach(func(event, groups gjson.Result) bool {
		for _, g := range groups.Array() {
			for _, h := range g.Get("hooks").Array() {
				if h.Get("type").String() != "command" {
					continue
				}
				n++
				command := h.Get("command").String()
				var cmd *exec.Cmd
				if a := h.Get("args"); a.IsArray() && !old {
					var argv []string
					for _, x := range a.Array() {
						argv = append(argv, x.String())
					}
					cmd = exec.Command(command, argv...)
				} else {
					cmd = exec.Command("/bin/sh", "-c", command)
				}
				cmd.Dir = ts.Getenv("PWD")
				cmd.Stdin = strings.NewReader("{}")
				for _, k := range []string{"PATH", "HOME", "CLAUDE_CONFIG_DIR", "TZ"} {
					cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
				}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				switch {
				case err == nil:
					fmt.Fprintf(&out, "%s: started\n", event.Str)
				case errors.As(err, &ee):
					failed++
					fmt.Fprintf(&out, "%s: exit %d: %s\n", event.Str, ee.ExitCode(), strings.TrimSpace(stderr.String()))
				default:
					failed++
					fmt.Fprintf(&out, "%s: %v\n", event.Str, err)
				}
			}
		}
		return true
	})
	ts.Stdout().Write([]byte(out.String()))
	switch {
	case n == 0:
		ts.Fatalf("%s has no command hooks", args[0])
	case failed > 0 && !neg:
		ts.Fatalf("%d of %d hooks could not start", failed, n)
	case failed == 0 && neg:
		ts.Fatalf("all %d hooks started", n)
	}
}
