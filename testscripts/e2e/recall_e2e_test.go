//go:build unix

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// TestCairnE2ERecall: planted facts of a session — the exact path it wrote, the failing test a
// real command printed, that command's exit status, Claude's open question — reach the first
// request the mock receives after /compact, after /clear (in the cleared session) and at a new
// session's start, and cairn's share of each request stays within its budget (1,500 characters
// after a compaction, 1,000 at startup and after /clear). The mock's compaction summary names
// none of them, as Claude Code's summaries drop commands and asides: what arrives is cairn's.
func TestCairnE2ERecall(t *testing.T) {
	c := newCairnProject(t)
	lexer := filepath.Join(c.Dir, "src", "deep", "lexer_state.go")
	const (
		failing  = "--- FAIL: TestLexState (0.00s)"
		question = "Shall I change the expected value in lexer_test.go?"
	)
	// The command really runs: it prints a Go test failure and exits 1.
	cmd := `printf '%s\n' '--- FAIL: TestLexState (0.00s)' '    lexer_test.go:9: want 3, got 4' FAIL; exit 1`
	api := newMock(t, replies("RECALL-E2E-SUMMARY: the user wants the lexer's state kept in a struct", mockapi.Text("ok"),
		mockapi.Combine(
			mockapi.Text("Writing the lexer state, then running its test."),
			mockapi.ToolUse("Write", js(t, map[string]any{"file_path": lexer, "content": "package deep\n\ntype state struct{}\n"})),
		),
		mockapi.ToolUse("Bash", js(t, map[string]any{"command": cmd, "description": "Run the lexer test"})),
		mockapi.Text("TestLexState still fails: it wants 3 and gets 4. "+question),
	))
	s := c.newSession(api, "--allowedTools", "Bash")
	turn(s, "write the lexer state and run its test")

	facts := map[string]string{
		"edited path":      "src/deep/lexer_state.go",
		"failing test":     "TestLexState",
		"exit status":      "exit 1",
		"pending question": question,
	}
	check := func(t *testing.T, moment string, req mockapi.Request, ctxs []string, budget int, want ...string) {
		t.Helper()
		found := 0
		for _, name := range want {
			if req.Contains(facts[name]) {
				found++
			} else {
				t.Errorf("%s: the first request lacks the %s %q", moment, name, facts[name])
			}
		}
		size := 0
		for _, x := range ctxs {
			size = max(size, len([]rune(x)))
			if len([]rune(x)) > budget {
				t.Errorf("%s: cairn injected %d characters, over %d", moment, len([]rune(x)), budget)
			}
		}
		if len(ctxs) == 0 {
			t.Errorf("%s: no SessionStart context of cairn's in the transcript", moment)
		}
		t.Logf("%s: %d of %d planted facts in the first request; cairn's context %d characters (budget %d)", moment, found, len(want), size, budget)
	}

	t.Run("after-compact", func(t *testing.T) {
		s.send("/compact")
		reqs := turn(s, "carry on")
		if !reqs[0].Contains(failing) {
			t.Logf("the failure's line %q is not in the request whole", failing)
		}
		check(t, "after /compact", reqs[0], c.hookContexts(s, "SessionStart:compact"), 1500,
			"edited path", "failing test", "exit status", "pending question")
	})

	t.Run("after-clear", func(t *testing.T) {
		if !supports(t, capClearInPrint) {
			t.Skip("this client's -p /clear does not start a new session (FINDINGS.md)")
		}
		res := s.send("/clear")
		if res.SessionID == "" || res.SessionID == s.ID {
			t.Fatalf("/clear kept the session id: %+v", res)
		}
		cleared := &session{p: s.p, api: api, ID: res.SessionID, Args: s.Args, turns: 1}
		reqs := turn(cleared, "where were we?")
		check(t, "after /clear", reqs[0], c.hookContexts(cleared, "SessionStart:clear"), 1000,
			"edited path", "failing test", "pending question")
	})

	t.Run("next-session", func(t *testing.T) {
		s2 := c.newSession(api)
		reqs := turn(s2, "hello again")
		check(t, "next session", reqs[0], c.hookContexts(s2, "SessionStart:startup"), 1000,
			"edited path", "failing test", "pending question")
	})
}
