//go:build unix

package e2e

// A forked session (--resume ID --fork-session), with cairn installed: the
// fork is a session of its own in cairn's registry, registered at its start.
// Only clients that report the fork as such (source "fork", the new id) can
// do that; older ones report a resume of the original session.
//
//	CAIRN_E2E=1 go test ./testscripts/e2e/ -run Fork -v -count=1

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

func TestCairnE2EFork(t *testing.T) {
	requireCap(t, capForkSource)
	c := newCairnProject(t)
	api := newMock(t, replies("", mockapi.Text("ok")))
	s := c.newSession(api)
	turn(s, "the original session")

	r := tryClaude(t, c.Claude, c.envFor(api), c.Dir, "-p", "--output-format", "json", "--permission-mode", "acceptEdits",
		"--resume", s.ID, "--fork-session", "--", "the fork")
	if r.Err != nil {
		t.Fatalf("fork: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	var res claudeResult
	if err := json.Unmarshal([]byte(lastLine(r.Stdout)), &res); err != nil || res.IsError {
		t.Fatalf("fork result: %v\n%s", err, r.Stdout)
	}
	if res.SessionID == "" || res.SessionID == s.ID {
		t.Fatalf("the fork has session id %q, want a new one (original %s)", res.SessionID, s.ID)
	}
	reg := c.registry()
	t.Logf("session.json: %s", c.read(".claude/state/session.json"))
	for _, id := range []string{s.ID, res.SessionID} {
		if got, ok := reg[id]; !ok || got.Status != "ended" {
			t.Errorf("session %s in the registry: %+v (present %v), want it registered and ended", id, got, ok)
		}
	}
	if tl := c.read("memory/timeline.jsonl"); !strings.Contains(tl, `"session":"`+res.SessionID+`"`) || !strings.Contains(tl, `"source":"fork"`) {
		t.Errorf("memory/timeline.jsonl has no session_start of the fork with source fork:\n%s", tl)
	}
	c.doctor()
	c.checkHealthy(s)
}
