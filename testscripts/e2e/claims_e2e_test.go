//go:build unix

package e2e

// File claims with the real client: two live sessions of one project write the same file, and the
// second one's next request carries cairn's warning — which session, on which branch, what its
// user asked — while the first one's carries nothing; once both have ended, a third session's edit
// of the file carries nothing either.
//
//	CAIRN_E2E=1 go test ./testscripts/e2e/ -run Claims -v -count=1

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// claimWarning is the start of what cairn's pretooluse tells Claude (pkg/brief, ClaimWarning).
const claimWarning = `cairn: another live Claude Code session of this project is editing "src/shared.go" too:`

// sessionOf is the session a messages request comes from: Claude Code sends it in
// metadata.user_id, a JSON string holding session_id (FINDINGS.md, Setup).
func sessionOf(req *mockapi.Request) string {
	if req.Messages == nil {
		return ""
	}
	var uid string
	if json.Unmarshal(req.Messages.Metadata, &struct {
		UserID *string `json:"user_id"`
	}{&uid}) != nil {
		return ""
	}
	var m struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(uid), &m)
	return m.SessionID
}

func TestCairnE2EClaims(t *testing.T) {
	c := newCairnProject(t)
	file := filepath.Join(c.Dir, "src", "shared.go")
	write := func(text string) mockapi.Reply {
		return mockapi.ToolUse("Write", js(t, map[string]any{"file_path": file, "content": text}))
	}
	var (
		mu       sync.Mutex
		turns    = map[string]int{}
		aWaiting = make(chan struct{}) // A's request after its Write has arrived
		release  = make(chan struct{}) // B is done: A may finish
		aID      string
		once     sync.Once
	)
	api := newMock(t, mockapi.Func(func(req *mockapi.Request) mockapi.Reply {
		sid := sessionOf(req)
		mu.Lock()
		turns[sid]++
		n := turns[sid]
		mu.Unlock()
		switch {
		case sid == aID && n == 1:
			return write("package shared // by A\n") // a new file
		case sid == aID:
			once.Do(func() { close(aWaiting) })
			select {
			case <-release:
			case <-time.After(90 * time.Second):
			}
		case n == 1:
			// Clients before 2.1.332 refuse a Write of a file the session has not read, before
			// PreToolUse runs: the others read it first.
			return mockapi.ToolUse("Read", js(t, map[string]any{"file_path": file}))
		case n == 2:
			return write("package shared // by " + sid[:8] + "\n")
		}
		return mockapi.Text("written")
	}))
	a, b := c.newSession(api), c.newSession(api)
	aID = a.ID

	// A writes the file and, before it answers, stays live (its SessionEnd has not run) while B
	// writes the same file.
	const aPrompt = "CLAIMS-E2E rotate the signing key in shared.go"
	var aRun claudeRun
	done := make(chan struct{})
	go func() {
		defer close(done)
		aRun = tryClaude(t, c.Claude, c.envFor(api), c.Dir, "-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--session-id", a.ID, "--", aPrompt)
	}()
	select {
	case <-aWaiting:
	case <-done:
		t.Fatalf("session A ended before its second request: %v\n%s%s", aRun.Err, aRun.Stdout, aRun.Stderr)
	case <-time.After(90 * time.Second):
		t.Fatal("session A's second request never came")
	}
	reqs := turn(b, "CLAIMS-E2E add logging to shared.go")
	close(release)
	<-done
	if aRun.Err != nil {
		t.Fatalf("session A: %v\n%s%s", aRun.Err, aRun.Stdout, aRun.Stderr)
	}
	a.turns = 1

	if len(reqs) < 3 {
		t.Fatalf("B made %d requests, want its prompt's, its Read's and its Write's results'", len(reqs))
	}
	wantIn(t, "B's request after its Write", reqs[2], claimWarning, "- session "+a.ID[:8]+`, on branch "main"`, `its user last asked: "`+aPrompt+`"`)
	t.Logf("the warning as the model sees it:\n%s", excerpt(injected(reqs[2], "cairn: another live"), "cairn: another live", 3))
	if reqs[1].Contains("cairn: another live") {
		t.Errorf("B was warned on a Read")
	}
	for _, tr := range reqs[2].ToolResults() {
		if tr.IsError {
			t.Errorf("B's Write failed: the warning must never block it")
		}
	}
	for _, r := range api.MessagesRequests() {
		if sessionOf(&r) == a.ID && r.Contains("cairn: another live") {
			t.Errorf("A, which wrote first, was warned (request #%d)", r.Seq)
		}
	}

	// Both sessions ended (-p runs end with SessionEnd): a third session's write of the file is
	// told nothing, and no claim is left.
	s3 := c.newSession(api)
	for _, r := range turn(s3, "CLAIMS-E2E a third session writes it") {
		if r.Contains("cairn: another live") {
			t.Errorf("after A and B ended, the third session was warned (request #%d)", r.Seq)
		}
	}
	if out := c.mustCairn(nil, "claims"); !strings.HasPrefix(out, "No live file claims") {
		t.Errorf("claims left after every session ended:\n%s", out)
	}
	c.doctor()
	c.checkHealthy(a, b, s3)
}
