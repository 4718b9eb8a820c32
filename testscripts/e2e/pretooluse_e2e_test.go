//go:build unix

package e2e

// What Claude Code does with a PreToolUse hook's output, for each form of output, on the client
// under test: whether it reaches the model (the request after the tool ran, or was refused),
// whether the tool still runs, and what the payload holds. FINDINGS.md §m records it; cairn's
// pretooluse emits the one output that reaches the model on every version of the matrix and
// grants nothing.
//
//	CAIRN_E2E=1 go test ./testscripts/e2e/ -run PreToolUse -v -count=1

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// preToolUseOutputs are the outputs probed: each one's marker, whether it must reach the model,
// and whether the tool must still run. The same on 2.1.100, 2.1.197 and 2.1.332.
var preToolUseOutputs = []struct {
	name, stdout, marker string
	reaches, runs        bool
}{
	{"additional-context", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"PTU-MARK-AC"}}`, "PTU-MARK-AC", true, true},
	{"system-message", `{"systemMessage":"PTU-MARK-SM"}`, "PTU-MARK-SM", false, true},
	{"reason-without-decision", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecisionReason":"PTU-MARK-RS"}}`, "PTU-MARK-RS", false, true},
	{"plain-stdout", `PTU-MARK-PLAIN`, "PTU-MARK-PLAIN", false, true},
	// In -p mode no one can answer "ask": the tool is refused, with the reason as its result.
	{"ask", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"PTU-MARK-ASK"}}`, "PTU-MARK-ASK", true, false},
	{"ask-with-context", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"PTU-MARK-AR","additionalContext":"PTU-MARK-AA"}}`, "PTU-MARK-AA", true, false},
}

// TestE2EPreToolUseOutput runs one Write through a PreToolUse hook — shell form, which every
// version runs, and no matcher — that prints each output in turn.
func TestE2EPreToolUseOutput(t *testing.T) {
	requireClaude(t)
	for _, o := range preToolUseOutputs {
		t.Run(o.name, func(t *testing.T) {
			p := newProject(t)
			dir := filepath.Join(p.Root, "hooks")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			script, rec := filepath.Join(dir, "ptu.sh"), filepath.Join(p.Root, "ptu.jsonl")
			body := fmt.Sprintf("#!/bin/sh\ncat >> %s\necho >> %s\nprintf '%%s\\n' %s\n", shQuote(rec), shQuote(rec), shQuote(o.stdout))
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			p.writeSettings(settingsWithHooks(hooksConfig{"PreToolUse": {{Hooks: []hookCmd{shellHook(shQuote(script))}}}}))
			target := filepath.Join(p.Dir, "notes.txt")
			api := newMock(t, replies("", mockapi.Text("all done"), mockapi.ToolUse("Write", js(t, map[string]any{"file_path": target, "content": "alpha\n"}))))
			s := p.newSession(api)
			s.send("please write notes")

			reqs := api.MessagesRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d messages requests, want the prompt's and the tool result's", len(reqs))
			}
			if reqs[0].Contains(o.marker) {
				t.Errorf("the marker reached the request before the tool call")
			}
			if got := reqs[1].Contains(o.marker); got != o.reaches {
				t.Errorf("marker %s in the request after the tool: %v, want %v", o.marker, got, o.reaches)
			} else if got {
				t.Logf("marker %s at %v", o.marker, locate(reqs[1], o.marker))
			}
			_, err := os.Stat(target)
			if ran := err == nil; ran != o.runs {
				t.Errorf("the Write ran: %v, want %v", ran, o.runs)
			}
			for _, tr := range reqs[1].ToolResults() {
				var m mockapi.Message
				m.Content, _ = json.Marshal([]mockapi.ContentBlock{tr})
				t.Logf("tool_result %q is_error=%v", m.Text(), tr.IsError)
				if tr.IsError == o.runs {
					t.Errorf("tool result is_error=%v with the tool run: %v", tr.IsError, o.runs)
				}
			}

			// The payload: the common fields, the tool's name, its input with the absolute path.
			data, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			var pl map[string]any
			if err := json.Unmarshal([]byte(strings.TrimSpace(string(data))), &pl); err != nil {
				t.Fatalf("one payload expected: %v\n%s", err, data)
			}
			in, _ := pl["tool_input"].(map[string]any)
			if pl["hook_event_name"] != "PreToolUse" || pl["tool_name"] != "Write" || pl["session_id"] != s.ID || pl["cwd"] != p.Dir || in["file_path"] != target {
				t.Errorf("payload: %s", data)
			}
			var keys []string
			for k := range pl {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			t.Logf("payload keys: %v", keys)
		})
	}
}
