//go:build unix

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	checkNoted(t, c, s, "lexer_test.go:9")

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

// toolUseID finds the id of a tool use block in a transcript line.
var toolUseID = regexp.MustCompile(`"id":"(toolu_[A-Za-z0-9_-]+)"`)

// checkNoted checks what PreToolUse noted before the session's shell command: the transcript's
// length then (0 when it did not exist yet) and the call's id, in the session's notes under
// <config>/cairn/claims/; and that a compaction finds the command from that note as
// transcript.File.CommandsAt does: the first line at or after the length that holds the id lies
// within 4 MiB of it, and the command's tool use and its result (the line holding marker) within
// the stretch read around that line (32 KiB before it, 224 KiB after). How far the lines lagged
// behind the hook is logged (FINDINGS.md).
func checkNoted(t *testing.T, c *cairnProject, s *session, marker string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(c.Home, ".claude", "cairn", "claims", "*", "commands", s.ID))
	if len(m) != 1 {
		t.Errorf("no note of the session's commands: %v", m)
		return
	}
	data, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	tr, err := os.ReadFile(c.transcriptPath(s.ID))
	if err != nil {
		t.Fatal(err)
	}
	use, res, id := -1, -1, ""
	for off := 0; off < len(tr); {
		end := bytes.IndexByte(tr[off:], '\n')
		if end < 0 {
			end = len(tr) - off
		}
		l := tr[off : off+end]
		switch {
		case use < 0 && bytes.Contains(l, []byte(`"name":"Bash"`)) && bytes.Contains(l, []byte(`"type":"tool_use"`)) && toolUseID.Match(l):
			use, id = off, string(toolUseID.FindSubmatch(l)[1])
		case use >= 0 && res < 0 && bytes.Contains(l, []byte("tool_result")) && bytes.Contains(l, []byte(marker)):
			res = off
		}
		off += end + 1
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		at, noted, _ := strings.Cut(l, " ")
		n, err := strconv.Atoi(at)
		if err != nil || noted != id || id == "" {
			continue
		}
		hold := bytes.Index(tr[n:], []byte(`"`+id+`"`))
		if hold < 0 || hold >= 4<<20 {
			t.Errorf("noted %q: the id is not within 4 MiB after it", l)
			return
		}
		line := n + bytes.LastIndexByte(tr[n:n+hold], '\n') + 1
		if use < line-32<<10 || res < 0 || res >= line+224<<10 {
			t.Errorf("noted %q: the command's tool use (line at %d) and result (line at %d) lie outside what a compaction reads around the line at %d", l, use, res, line)
		}
		t.Logf("noted at %d; the Bash tool use's line starts at %d (%d bytes after the note), its result's at %d", n, use, use-n, res)
		return
	}
	t.Errorf("no note names the Bash call %q: %q", id, data)
}
