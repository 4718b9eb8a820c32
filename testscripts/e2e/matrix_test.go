//go:build unix

package e2e

// The Claude Code version matrix: .ci/run runs this suite once per version in
// matrixVersions, each with CAIRN_CLAUDE pointing at that version's install
// (install-claude.sh with CAIRN_E2E_CLAUDE_VERSION). What a version cannot do
// is declared here, once, with the evidence; a test or a check that needs it
// skips by name with requireCap or supports, so a scenario a version lacks is
// reported as skipped, never passed in silence. FINDINGS.md §k records the
// differences.

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// matrixVersions are the Claude Code releases CI runs the suite against: the
// oldest supported, a middle one, and the pinned newest.
var matrixVersions = []string{"2.1.100", "2.1.197", pinnedClaudeVersion}

// capability is something a scenario needs from Claude Code that not every
// version in the matrix has.
type capability string

const (
	// capExecForm: a hook handler with "args" is spawned directly with them.
	// Before 2.1.139 "command" runs through /bin/sh and "args" is dropped
	// (FINDINGS.md §k: 2.1.100's schema has no args).
	capExecForm capability = "exec-form"
	// capTaskTools: TaskCreate/TaskUpdate run and write
	// ~/.claude/tasks/<session>/<n>.json. 2.1.100 answers "No such tool
	// available: TaskCreate" (e2e, 2026-12-01).
	capTaskTools capability = "task-tools"
	// capBashSessionID: the Bash tool's environment has CLAUDE_CODE_SESSION_ID.
	// 2.1.100 sets it neither there nor in hooks (FINDINGS.md §k; e2e).
	capBashSessionID capability = "bash-session-id"
	// capLocalCommand: the -p result of /compact says "local_command":"compact".
	// Absent in 2.1.100 and 2.1.197 (FINDINGS.md §k; e2e).
	capLocalCommand capability = "local-command"
	// capUsageAutoCompact: a reply reporting 990000 input tokens makes the next
	// turn auto-compact first. 2.1.197 compacts only reactively, after a 400
	// "prompt is too long" (FINDINGS.md §k; e2e).
	capUsageAutoCompact capability = "usage-auto-compact"
	// capMessagesOnly: a -p run makes no request but POST /v1/messages; 2.1.100
	// and 2.1.197 send a HEAD / first (FINDINGS.md §k; e2e).
	capMessagesOnly capability = "messages-only"
	// capForkSource: --fork-session fires SessionStart with source "fork" and
	// the new session's id; before 2.1.214 it is source "resume" with the
	// original id (FINDINGS.md §k).
	capForkSource capability = "fork-source"
	// capClearInPrint: `claude -p --resume ID /clear` ends the session (SessionEnd "clear") and
	// starts a new one (SessionStart "clear", a new id in the result), whose resume carries
	// that SessionStart's context. 2.1.100 answers "Unknown skill: clear" (FINDINGS.md §k; e2e).
	capClearInPrint capability = "clear-in-print"
)

// capabilities declares, for each version of the matrix, what it has. A
// version outside the matrix (CAIRN_CLAUDE pointing elsewhere) is judged by
// the newest matrix version not newer than it.
var capabilities = map[string][]capability{
	"2.1.100": {capUsageAutoCompact},
	"2.1.197": {capExecForm, capTaskTools, capBashSessionID, capClearInPrint},
	"2.1.332": {capExecForm, capTaskTools, capBashSessionID, capLocalCommand, capUsageAutoCompact, capMessagesOnly, capForkSource, capClearInPrint},
}

var clientVersionOnce = sync.OnceValues(func() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, claudePath, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", claudePath, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v, nil
})

// clientVersion is the version of the claude under test ("2.1.332"); it
// skips the test like requireClaude does.
func clientVersion(t testing.TB) string {
	t.Helper()
	requireClaude(t)
	v, err := clientVersionOnce()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// versionLess compares dotted release numbers numerically.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		var x, y int
		fmt.Sscan(pa[i], &x)
		fmt.Sscan(pb[i], &y)
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// declaredFor returns the matrix version whose declaration applies to v.
func declaredFor(v string) string {
	vs := slices.Clone(matrixVersions)
	slices.SortFunc(vs, func(a, b string) int {
		if versionLess(a, b) {
			return -1
		}
		return 1
	})
	best := vs[0]
	for _, m := range vs {
		if !versionLess(v, m) {
			best = m
		}
	}
	return best
}

// missing returns the capabilities of caps the client under test lacks.
func missing(t testing.TB, caps ...capability) (version string, lacks []capability) {
	t.Helper()
	v := clientVersion(t)
	have := capabilities[declaredFor(v)]
	for _, c := range caps {
		if !slices.Contains(have, c) {
			lacks = append(lacks, c)
		}
	}
	return v, lacks
}

// requireCap skips the test unless the client under test has every one of
// caps, naming what it lacks.
func requireCap(t testing.TB, caps ...capability) {
	t.Helper()
	if v, lacks := missing(t, caps...); len(lacks) > 0 {
		t.Skipf("Claude Code %s lacks %v (declared in testscripts/e2e/matrix_test.go, as %s)", v, lacks, declaredFor(v))
	}
}

// supports reports whether the client under test has c. When it does not, it
// records a skipped subtest named after c, so the check it guards shows as
// "--- SKIP: …/needs-<c>" in the test output instead of passing unseen.
func supports(t *testing.T, c capability) bool {
	t.Helper()
	v, lacks := missing(t, c)
	if len(lacks) == 0 {
		return true
	}
	t.Run("needs-"+string(c), func(t *testing.T) {
		t.Skipf("Claude Code %s lacks %s (declared in testscripts/e2e/matrix_test.go, as %s): check skipped", v, c, declaredFor(v))
	})
	return false
}

// TestMatrixDeclared: the client under test is a version of the matrix (or
// is judged by one, said in the log), and the declaration of exec form, the
// capability cairn's install chooses its wiring by, matches what the client
// does: an exec-form hook with args gets them.
func TestMatrixDeclared(t *testing.T) {
	v := clientVersion(t)
	if d := declaredFor(v); d != v {
		t.Logf("Claude Code %s is not in the matrix %v: judged as %s", v, matrixVersions, d)
	} else {
		t.Logf("Claude Code %s: capabilities %v", v, capabilities[v])
	}
	for _, m := range matrixVersions {
		if _, ok := capabilities[m]; !ok {
			t.Errorf("matrix version %s has no declaration", m)
		}
	}

	p := newProject(t)
	rec := newRecorder(t, p)
	p.writeSettings(settingsWithHooks(hooksConfig{"SessionStart": {{Hooks: []hookCmd{rec.exec("ss-probe", "two words")}}}}))
	api := newMock(t, replies("", mockapi.Text("ok")))
	p.newSession(api).send("probe")
	got := rec.args("ss-probe")
	_, lacks := missing(t, capExecForm)
	want := []string{"argc=2 [ss-probe] [two words]"}
	if len(lacks) > 0 {
		want = nil // run through /bin/sh with no args: the recorder's label is empty
	}
	if !slices.Equal(got, want) {
		t.Errorf("exec-form probe on Claude Code %s recorded %q, want %q: the declaration of %s is wrong", v, got, want, capExecForm)
	}
}
