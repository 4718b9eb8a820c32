//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// cairn's hand-back wording, as pkg/brief and pkg/checkpoint/catalog write it.
const (
	handbackHead   = "cairn hand-back after this compaction: the details a summary tends to lose."
	pointerHead    = "and left a hand-off checkpoint"
	summaryLabel   = "Claude Code's own summary of the conversation, written at this compaction (compact_summary; secrets redacted):"
	handoffSummary = "Hand-off written by cairn when session "
)

// TestCairnE2EHandBack: without a run, a session writes a file and creates a task, the user
// saves a checkpoint, and /compact runs. PostCompact keeps the mock's distinctive summary in
// the compaction's checkpoint; the request after /compact carries the exact path edited, the
// task and the checkpoint's name; the session leaves a hand-off; a new session's first request
// points to it; /context-restore without an argument still gives the user's save; and with
// CAIRN_HANDBACK=off in settings.json's env none of it reaches the model.
func TestCairnE2EHandBack(t *testing.T) {
	c := newCairnProject(t)
	lexer := filepath.Join(c.Dir, "src", "deep", "lexer_state.go")
	const summary = "HANDBACK-E2E-SUMMARY-42: the lexer keeps its state in a struct"
	api := newMock(t, replies(summary, mockapi.Text("ok"),
		mockapi.Combine(
			mockapi.Text("Writing the lexer state and noting the follow-up."),
			mockapi.ToolUse("Write", js(t, map[string]any{"file_path": lexer, "content": "package deep\n\ntype state struct{}\n"})),
			mockapi.ToolUse("TaskCreate", js(t, map[string]any{"subject": "Wire the lexer into the parser", "description": "next step"})),
		),
		mockapi.Text("Wrote the lexer state."),
		mockapi.Text("It compiles."),
	))
	s := c.newSession(api)
	turn(s, "write the lexer state")
	turn(s, "does it compile?")
	c.mustCairn(c.sessionEnv(s), "context", "save", "my own save", "--", "USER-SAVE-MARKER: the lexer is half done")

	var auto string
	t.Run("1-postcompact-keeps-summary", func(t *testing.T) {
		res := s.send("/compact")
		if res.LocalCommand != "" && res.LocalCommand != "compact" {
			t.Errorf("/compact result: %+v", res)
		}
		for _, n := range c.checkpoints() {
			if strings.HasSuffix(n, "-before-manual-compaction.md") {
				auto = n
			}
		}
		if auto == "" {
			t.Fatalf("no automatic checkpoint: %v", c.checkpoints())
		}
		body := c.checkpoint(auto)
		t.Logf("%s:\n%s", auto, body)
		for _, want := range []string{"kind: auto", summaryLabel + "\n\n", summary, "src/deep/lexer_state.go"} {
			if !strings.Contains(body, want) {
				t.Errorf("checkpoint lacks %q", want)
			}
		}
		if strings.Contains(body, "mock analysis") {
			t.Errorf("the summary's <analysis> block was kept")
		}
	})

	t.Run("2-handback-after-compact", func(t *testing.T) {
		reqs := turn(s, "carry on")
		name := strings.TrimSuffix(auto, ".md")
		wants := []string{summary, handbackHead, `(exact paths): "src/deep/lexer_state.go"`, "/context-restore " + name}
		if supports(t, capTaskTools) {
			wants = append(wants, "Wire the lexer into the parser (task 1)")
		}
		wantIn(t, "request after /compact", reqs[0], wants...)
		// Handed back by SessionStart(compact), or by the resume after it on a client that drops
		// the first (2.1.100): either way once in the request.
		if n := strings.Count(string(reqs[0].Body), handbackHead); n != 1 {
			t.Errorf("the hand-back is in the request %d times, want once", n)
		}
		t.Logf("hand-back:\n%s", excerpt(injected(reqs[0], handbackHead), handbackHead, 8))
		for _, ctx := range c.hookContexts(s, "SessionStart:compact") {
			if len([]rune(ctx)) > 1500 {
				t.Errorf("the hand-back is %d characters, over 1,500", len([]rune(ctx)))
			}
		}
	})

	var handoff string
	// The /compact run's SessionEnd left it (the session compacted); "carry on" did no new work.
	t.Run("3-handoff-at-session-end", func(t *testing.T) {
		for _, n := range c.checkpoints() {
			if strings.Contains(n, "-handoff-") {
				if handoff != "" {
					t.Errorf("two hand-offs for one session: %s and %s", handoff, n)
				}
				handoff = n
			}
		}
		if handoff == "" {
			t.Fatalf("no hand-off checkpoint: %v", c.checkpoints())
		}
		body := c.checkpoint(handoff)
		t.Logf("%s:\n%s", handoff, body)
		wants := []string{"kind: handoff", handoffSummary + s.ID, summary, "src/deep/lexer_state.go", "- does it compile?"}
		if supports(t, capTaskTools) {
			wants = append(wants, "Wire the lexer into the parser")
		}
		for _, want := range wants {
			if !strings.Contains(body, want) {
				t.Errorf("hand-off lacks %q", want)
			}
		}
	})

	t.Run("4-pointer-in-next-session", func(t *testing.T) {
		s2 := c.newSession(api)
		reqs := turn(s2, "hello again")
		// The pointer names the hand-off by its date, time and first title word, which
		// /context-restore finds it by.
		short := strings.Join(strings.SplitN(strings.TrimSuffix(handoff, ".md"), "-", 4)[:3], "-")
		wantIn(t, "new session's first request", reqs[0], pointerHead, "/context-restore "+short+"`")
		t.Logf("pointer: %s", excerpt(injected(reqs[0], pointerHead), "cairn:", 0))
		if reqs[0].Contains(summary) {
			t.Errorf("the pointer carried the hand-off itself")
		}
		c.checkHealthy(s, s2)
	})

	t.Run("5-restore-prefers-the-users-save", func(t *testing.T) {
		out := c.mustCairn(nil, "context", "restore")
		if !strings.Contains(out, "USER-SAVE-MARKER") || strings.Contains(out, handoffSummary) || strings.Contains(out, summaryLabel) {
			t.Errorf("cairn context restore did not give the user's save:\n%s", out)
		}
	})

	t.Run("6-handback-off", func(t *testing.T) {
		path := filepath.Join(c.Dir, ".claude", "settings.json")
		var settings map[string]any
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &settings); err != nil {
			t.Fatal(err)
		}
		settings["env"] = map[string]any{"CAIRN_HANDBACK": "off"}
		c.writeSettings(settings)
		api.SetScript(replies(summary, mockapi.Text("ok"),
			mockapi.ToolUse("Write", js(t, map[string]any{"file_path": filepath.Join(c.Dir, "src", "other.go"), "content": "package src\n"})),
			mockapi.Text("done"),
		))
		s3 := c.newSession(api)
		reqs := turn(s3, "write other.go")
		turn(s3, "and now?")
		s3.send("/compact")
		reqs = append(reqs, turn(s3, "carry on")...)
		for _, r := range reqs {
			for _, m := range []string{handbackHead, pointerHead} {
				if r.Contains(m) {
					t.Errorf("request #%d carries %q with CAIRN_HANDBACK=off", r.Seq, m)
				}
			}
		}
		c.checkHealthy(s3)
	})
	c.doctor()
}
