//go:build unix

package e2e

// End-to-end scenarios with the real cairn: install.sh builds and wires the
// six hooks into a throwaway git project, and a real Claude Code (see
// FINDINGS.md) talks to the loopback mock. Each test checks what reached the
// model's requests, what cairn wrote on disk, that no cairn hook reported an
// error (transcript attachments, .claude/state/cairn.log) and that
// `cairn doctor` is clean afterwards. README.md lists the scenarios.
//
//	CAIRN_E2E=1 go test ./testscripts/e2e/ -run Cairn -v -count=1

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// Texts cairn injects, as written by hooks/sessionstart, hooks/userpromptsubmit and
// pkg/registry. Kept here verbatim: a change in wording should be a deliberate change here.
const (
	runActiveDemo   = `cairn: run "demo" is active (".agents/runs/demo"). Read, in this order:`
	memoryInOrder   = `. ".agents/runs/demo/MEMORY.md"` + "\n"
	whiteboardHead  = `<repository-data source=".agents/runs/demo/MEMORY.md" note="`
	restoreSentence = "Do not resume implementation from the summary alone"
	parkedNotice    = "cairn parked an open loop as `"
	broadcastHeader = "Messages broadcast by other Claude Code sessions of this project"
	snapshotBegin   = "<!-- cairn:snapshot begin"
	snapshotEnd     = "<!-- cairn:snapshot end -->"
)

// cairnProject is a project (see newProject) with cairn installed into it by
// `install.sh --project`.
type cairnProject struct {
	*project
	Src string // the cairn source tree (the module root)
	Bin string // <Dir>/.claude/cairn/bin
}

// cairnGoEnv is the Go environment of the test process as KEY=VALUE pairs. The
// project's environment has a fake HOME and only PATH from outside, so install.sh
// needs these to build from the warm caches instead of downloading modules.
var cairnGoEnv = sync.OnceValues(func() ([]string, error) {
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOTOOLCHAIN", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GOSUMDB"}
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != len(keys) {
		return nil, fmt.Errorf("go env printed %q", out)
	}
	var kv []string
	for i, k := range keys {
		kv = append(kv, k+"="+vals[i])
	}
	return kv, nil
})

// touchCairnSources reads every file install.sh builds from, so that `go test`
// caches a pass only for these exact sources (the test cache is keyed on the
// files the test process opened; install.sh's own reads do not count).
var touchCairnSources = sync.OnceValue(func() error {
	src, err := filepath.Abs(moduleRoot)
	if err != nil {
		return err
	}
	for _, f := range []string{"install.sh", "go.mod", "go.sum"} {
		if _, err := os.ReadFile(filepath.Join(src, f)); err != nil {
			return err
		}
	}
	for _, dir := range []string{"hooks", "pkg", "scripts"} {
		err := filepath.WalkDir(filepath.Join(src, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			_, err = os.ReadFile(p)
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
})

// newCairnProject makes a project and runs the repository's install.sh
// --project on it (a warm build takes 1–2 s).
func newCairnProject(t *testing.T) *cairnProject {
	t.Helper()
	p := newProject(t)
	src, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	if err := touchCairnSources(); err != nil {
		t.Fatal(err)
	}
	goenv, err := cairnGoEnv()
	if err != nil {
		t.Fatal(err)
	}
	c := &cairnProject{project: p, Src: src, Bin: filepath.Join(p.Dir, ".claude", "cairn", "bin")}
	if keep := os.Getenv("CAIRN_E2E_KEEP"); keep != "" {
		// Debugging aid: keep the whole temp root (HOME, project, transcripts)
		// as KEEP/<test>.
		t.Cleanup(func() {
			dst := filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
			os.RemoveAll(dst)
			if out, err := exec.Command("cp", "-a", p.Root, dst).CombinedOutput(); err != nil {
				t.Logf("CAIRN_E2E_KEEP: %v\n%s", err, out)
				return
			}
			t.Logf("temp root kept as %s", dst)
		})
	}
	// A failure against a real client is often about timing: log what cairn left, so that a
	// run on a busy machine can be read afterwards without the temp root.
	t.Cleanup(func() {
		if t.Failed() {
			c.logState(t)
		}
	})
	cmd := exec.Command("sh", filepath.Join(src, "install.sh"), "--project", p.Dir)
	cmd.Dir = p.Dir
	cmd.Env = append(append([]string{}, p.Env...), goenv...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh --project %s: %v\n%s", p.Dir, err, out)
	}
	t.Logf("install.sh --project: %v\n%s", time.Since(start).Round(time.Millisecond), bytes.TrimSpace(out))
	for _, b := range []string{"cairn", "sessionstart", "userpromptsubmit", "precompact", "postcompact", "sessionend", "pretooluse"} {
		if _, err := os.Stat(filepath.Join(c.Bin, b)); err != nil {
			t.Fatalf("install.sh did not install %s: %v", b, err)
		}
	}
	return c
}

// cliResult is one run of the cairn CLI.
type cliResult struct {
	Stdout, Stderr string
	Code           int
}

// cairn runs the installed cairn CLI in the project dir with the project's
// environment (fake HOME) plus extra, as a user at a terminal would.
func (c *cairnProject) cairn(extra []string, args ...string) cliResult {
	c.t.Helper()
	cmd := exec.Command(filepath.Join(c.Bin, "cairn"), args...)
	cmd.Dir = c.Dir
	cmd.Env = append(append([]string{}, c.Env...), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := cliResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		c.t.Fatalf("cairn %v: %v", args, err)
	}
	c.t.Logf("cairn %s → exit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	return r
}

// mustCairn is cairn that fails the test on a non-zero exit.
func (c *cairnProject) mustCairn(extra []string, args ...string) string {
	c.t.Helper()
	r := c.cairn(extra, args...)
	if r.Code != 0 {
		c.t.Fatalf("cairn %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// read returns a file of the project ("" when it does not exist).
func (c *cairnProject) read(rel string) string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.t.Fatal(err)
	}
	return string(b)
}

// registrySession is one entry of .claude/state/session.json.
type registrySession struct {
	ID           string    `json:"id"`
	Started      time.Time `json:"started"`
	LastActivity time.Time `json:"last_activity"`
	Status       string    `json:"status"`
	Ended        time.Time `json:"ended"`
	EndedBy      string    `json:"ended_by"`
	Cursor       int64     `json:"cursor"`
}

// registry parses .claude/state/session.json (nil when it does not exist).
func (c *cairnProject) registry() map[string]registrySession {
	c.t.Helper()
	raw := c.read(".claude/state/session.json")
	if raw == "" {
		return nil
	}
	var doc struct {
		Sessions []registrySession `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		c.t.Fatalf("session.json: %v\n%s", err, raw)
	}
	m := map[string]registrySession{}
	for _, s := range doc.Sessions {
		m[s.ID] = s
	}
	return m
}

// parkedItem is one bullet under ## Parked items.
type parkedItem struct{ Slug, Text string }

var bulletRE = regexp.MustCompile(`^- \*\*([a-z0-9-]+)\*\* — (.*)$`)

// parked returns the bullets under ## Parked items of session-context.md.
func (c *cairnProject) parked() []parkedItem {
	c.t.Helper()
	var out []parkedItem
	in := false
	for _, line := range strings.Split(c.read(".claude/state/session-context.md"), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line) == "## Parked items"
			continue
		}
		if m := bulletRE.FindStringSubmatch(line); in && m != nil {
			out = append(out, parkedItem{Slug: m[1], Text: m[2]})
		}
	}
	return out
}

// checkpoints returns the names of the checkpoint files.
func (c *cairnProject) checkpoints() []string {
	dir := filepath.Join(c.Dir, "memory", "projects", filepath.Base(c.Dir), "checkpoints")
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".md") {
			out = append(out, e.Name())
		}
	}
	return out
}

// logState logs the checkpoints, the catalog, the timeline, cairn.log and the hook runs the
// transcripts recorded (event, command, exit, duration), for a failed test.
func (c *cairnProject) logState(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "state after the failure:\ncheckpoints: %v\n", c.checkpoints())
	for _, rel := range []string{".claude/state/checkpoint-events.json", "memory/timeline.jsonl", ".claude/state/session.json", ".claude/state/cairn.log"} {
		data, err := os.ReadFile(filepath.Join(c.Dir, rel))
		if err != nil {
			fmt.Fprintf(&b, "--- %s: %v\n", rel, err)
			continue
		}
		fmt.Fprintf(&b, "--- %s (%d bytes):\n%s\n", rel, len(data), tail(string(data), 4000))
	}
	trs, _ := filepath.Glob(filepath.Join(c.Home, ".claude", "projects", "*", "*.jsonl"))
	for _, tr := range trs {
		data, err := os.ReadFile(tr)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "--- hook runs in %s (%d bytes):\n", filepath.Base(tr), len(data))
		for _, line := range strings.Split(string(data), "\n") {
			var l struct {
				Timestamp  string         `json:"timestamp"`
				Attachment map[string]any `json:"attachment"`
			}
			if json.Unmarshal([]byte(line), &l) != nil || l.Attachment == nil {
				continue
			}
			if _, ok := l.Attachment["hookName"]; !ok {
				continue
			}
			fmt.Fprintf(&b, "%s %v %v exit=%v %vms stderr=%q\n", l.Timestamp, l.Attachment["type"], l.Attachment["hookName"],
				l.Attachment["exitCode"], l.Attachment["durationMs"], l.Attachment["stderr"])
		}
	}
	t.Log(b.String())
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func (c *cairnProject) checkpoint(name string) string {
	return c.read(filepath.Join("memory", "projects", filepath.Base(c.Dir), "checkpoints", name))
}

// checkHealthy fails the test when a cairn hook reported anything: an error
// attachment or a non-empty stderr / non-zero exit in the sessions'
// transcripts, or any line in .claude/state/cairn.log (hooks log only
// errors and warnings there). It logs what cairn's hooks did per event.
func (c *cairnProject) checkHealthy(sessions ...*session) {
	c.t.Helper()
	runs := map[string]int{}
	for _, s := range sessions {
		for _, l := range readTranscript(c.t, c.transcriptPath(s.ID)) {
			a, ok := l.Fields["attachment"].(map[string]any)
			if !ok {
				continue
			}
			typ, _ := a["type"].(string)
			cmd, _ := a["command"].(string)
			name, _ := a["hookName"].(string)
			ours := strings.HasPrefix(cmd, c.Bin+"/")
			if strings.Contains(typ, "error") || strings.Contains(typ, "cancel") {
				if ours || cmd == "" {
					c.t.Errorf("session %s: hook error attachment: %s", s.ID, l.Raw)
				}
				continue
			}
			if !ours || !strings.HasPrefix(typ, "hook_") {
				continue
			}
			runs[name]++
			stderr, _ := a["stderr"].(string)
			code, _ := a["exitCode"].(float64)
			if stderr != "" || code != 0 {
				c.t.Errorf("session %s: %s (%s) exit %v, stderr %q", s.ID, name, filepath.Base(cmd), code, stderr)
			}
		}
	}
	c.t.Logf("cairn hook runs recorded in the transcripts: %v", runs)
	if log := c.read(".claude/state/cairn.log"); strings.TrimSpace(log) != "" {
		c.t.Errorf("cairn hooks logged problems in .claude/state/cairn.log:\n%s", log)
	}
}

// doctor runs `cairn doctor` as a user would (cwd the project, HOME the fake
// home, no Claude Code variables) and fails the test unless it exits 0.
func (c *cairnProject) doctor() {
	c.t.Helper()
	r := c.cairn(nil, "doctor")
	if r.Code != 0 {
		c.t.Errorf("cairn doctor exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, line := range strings.Split(r.Stdout, "\n") {
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "fail") {
			c.t.Errorf("cairn doctor: %s", line)
		}
	}
}

// sessionEnv is the environment the Bash tool gives a command that Claude runs
// in session s (plus CLAUDE_PROJECT_DIR, which the Bash tool does not set).
func (c *cairnProject) sessionEnv(s *session) []string {
	return []string{"CLAUDE_CODE_SESSION_ID=" + s.ID, "CLAUDE_PROJECT_DIR=" + c.Dir}
}

// turn sends prompt in s and returns the messages requests it made.
func turn(s *session, prompt string) []mockapi.Request {
	s.p.t.Helper()
	n := len(s.api.Requests())
	s.send(prompt)
	reqs := messagesSince(s.api, n)
	if len(reqs) == 0 {
		s.p.t.Fatalf("turn %q made no messages request", prompt)
	}
	return reqs
}

// wantIn fails unless req's body holds every marker, and logs where each is.
func wantIn(t *testing.T, what string, req mockapi.Request, markers ...string) {
	t.Helper()
	for _, m := range markers {
		if !req.Contains(m) {
			t.Errorf("%s (request #%d) lacks %q", what, req.Seq, m)
			continue
		}
		t.Logf("%s (request #%d): %q in %v", what, req.Seq, m, where(req, m))
	}
}

// jsonText is s as it stands inside a JSON string that Claude Code wrote (JSON.stringify leaves
// <, > and & as they are).
func jsonText(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	esc := strings.TrimSuffix(buf.String(), "\n")
	return esc[1 : len(esc)-1]
}

// where is locate for text that may need JSON escaping (quotes, newlines).
func where(req mockapi.Request, marker string) []string {
	if req.Messages == nil {
		return nil
	}
	esc, _ := json.Marshal(marker)
	esc = esc[1 : len(esc)-1]
	var out []string
	for i, m := range req.Messages.Messages {
		if bytes.Contains(m.Content, []byte(marker)) || bytes.Contains(m.Content, esc) {
			out = append(out, fmt.Sprintf("messages[%d] (role %s)", i, m.Role))
		}
	}
	return out
}

// hookContexts returns the additionalContext that cairn's SessionStart printed
// for hookName (e.g. "SessionStart:compact"), as Claude Code recorded it in the
// transcript (hook_success attachments carry the hook's stdout).
func (c *cairnProject) hookContexts(s *session, hookName string) []string {
	c.t.Helper()
	var out []string
	for _, l := range readTranscript(c.t, c.transcriptPath(s.ID)) {
		a, _ := l.Fields["attachment"].(map[string]any)
		if a["type"] != "hook_success" || a["hookName"] != hookName || a["command"] != filepath.Join(c.Bin, "sessionstart") {
			continue
		}
		var o struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		stdout, _ := a["stdout"].(string)
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			c.t.Errorf("%s stdout is not hook JSON: %v\n%s", hookName, err, stdout)
			continue
		}
		out = append(out, o.HookSpecificOutput.AdditionalContext)
	}
	return out
}

// injected returns the text of the role "system" entries of req that hold
// marker (hook output lands there, see FINDINGS.md §d), for the log.
func injected(req mockapi.Request, marker string) string {
	if req.Messages == nil {
		return ""
	}
	var out []string
	for _, m := range req.Messages.Messages {
		if t := m.Text(); strings.Contains(t, marker) {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n---\n")
}

// excerpt is the line of s holding marker, plus a few after it.
func excerpt(s, marker string, after int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.Contains(l, marker) {
			return strings.Join(lines[i:min(len(lines), i+1+after)], "\n")
		}
	}
	return ""
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCairnE2ERunCompact: an active run's read order reaches the model at
// startup; Write + TaskCreate, then /compact refreshes MEMORY.md's snapshot
// once and writes one automatic checkpoint, and the next request carries the
// whiteboard and the restore protocol; SessionEnd marks the session ended in
// the registry; cairn doctor is clean.
func TestCairnE2ERunCompact(t *testing.T) {
	requireCap(t, capTaskTools) // its snapshot checks Claude Code's task files
	c := newCairnProject(t)
	c.mustCairn(nil, "run", "start", "demo", "--issue", "42")
	c.mustCairn(nil, "run", "set", "phase=implement", "plan_open=3")

	parser := filepath.Join(c.Dir, "src", "parser.go")
	api := newMock(t, replies("CAIRN-E2E-SUMMARY", mockapi.Text("ok"),
		// Turn 1: a Write and a TaskCreate in one reply, then a text.
		mockapi.Combine(
			mockapi.Text("Writing the parser and noting the follow-up."),
			mockapi.ToolUse("Write", js(t, map[string]any{"file_path": parser, "content": "package src\n\nfunc Parse() {}\n"})),
			mockapi.ToolUse("TaskCreate", js(t, map[string]any{"subject": "Handle trailing commas", "description": "The parser rejects them"})),
		),
		mockapi.Text("Wrote src/parser.go and created a task."),
		// Turn 2.
		mockapi.Text("The parser compiles."),
	))
	s := c.newSession(api)

	t.Run("1-startup-read-order", func(t *testing.T) {
		reqs := turn(s, "start on the demo run")
		wantIn(t, "startup request", reqs[0], runActiveDemo, memoryInOrder, ".agents/runs/demo/state.json")
		t.Logf("SessionStart(startup) injection:\n%s", excerpt(injected(reqs[0], runActiveDemo), "cairn:", 4))
		if reqs[0].Contains(whiteboardHead) {
			t.Errorf("startup request carries the whiteboard itself; only source=compact should")
		}
		if len(reqs) != 2 || len(reqs[1].ToolResults()) != 2 {
			t.Errorf("turn 1: %d requests, want 2 (the second with 2 tool results)", len(reqs))
		}
		for _, tr := range reqs[len(reqs)-1].ToolResults() {
			if tr.IsError {
				t.Errorf("tool %s failed: %s", tr.ToolUseID, tr.Content)
			}
		}
		if _, err := os.Stat(parser); err != nil {
			t.Errorf("Write did not create %s: %v", parser, err)
		}
	})
	turn(s, "does it compile?")

	memBefore := c.read(".agents/runs/demo/MEMORY.md")
	if n := strings.Count(memBefore, snapshotBegin); n != 0 {
		t.Errorf("MEMORY.md has %d snapshot blocks before any compaction:\n%s", n, memBefore)
	}

	t.Run("2-manual-compact", func(t *testing.T) {
		n0 := len(api.Requests())
		res := s.send("/compact keep the tests")
		if res.LocalCommand != "compact" && supports(t, capLocalCommand) {
			t.Errorf("/compact result: %+v", res)
		}
		if reqs := messagesSince(api, n0); len(reqs) != 1 || !reqs[0].IsCompaction() {
			t.Errorf("/compact made %d messages requests, want one summarisation request", len(reqs))
		}

		mem := c.read(".agents/runs/demo/MEMORY.md")
		t.Logf("MEMORY.md after /compact:\n%s", mem)
		if n := strings.Count(mem, snapshotBegin); n != 1 {
			t.Errorf("MEMORY.md has %d snapshot begin markers, want 1", n)
		}
		if n := strings.Count(mem, snapshotEnd); n != 1 {
			t.Errorf("MEMORY.md has %d snapshot end markers, want 1", n)
		}
		// PreCompact's block is keyed by its event: session/trigger/transcript length.
		if begin := excerpt(mem, snapshotBegin, 0); !strings.Contains(begin, "event="+s.ID+"/manual/") {
			t.Errorf("snapshot begin marker %q: want PreCompact's manual event for this session", begin)
		}
		compaction := excerpt(mem, "- Compaction: ", 0)
		if !strings.Contains(compaction, ", manual") || !strings.Contains(compaction, `instructions: "keep the tests"`) {
			t.Errorf("compaction line %q: want trigger manual and the instructions", compaction)
		}
		if strings.Contains(mem, "recorded late") {
			t.Errorf("MEMORY.md: SessionStart(compact) recorded the compaction again although PreCompact ran")
		}
		for _, want := range []string{
			"- Run: demo · issue: 42 · phase: implement",
			"[pending] Handle trailing commas",
			"src/parser.go",
			"## Current state", "## In progress", "## Next", "## Decisions", "## Blockers",
		} {
			if !strings.Contains(mem, want) {
				t.Errorf("MEMORY.md lacks %q", want)
			}
		}

		var auto []string
		for _, name := range c.checkpoints() {
			if strings.Contains(c.checkpoint(name), "status: auto") {
				auto = append(auto, name)
			}
		}
		if len(auto) != 1 || !strings.HasSuffix(auto[0], "-before-manual-compaction.md") {
			t.Errorf("automatic checkpoints %v (all: %v), want exactly one *-before-manual-compaction.md", auto, c.checkpoints())
		} else {
			t.Logf("checkpoint %s:\n%s", auto[0], c.checkpoint(auto[0]))
		}

		sc := c.read(".claude/state/session-context.md")
		t.Logf("session-context.md after /compact:\n%s", sc)
		for _, want := range []string{s.ID, "manual", "Handle trailing commas", "src/parser.go"} {
			if !strings.Contains(sc, want) {
				t.Errorf("session-context.md snapshot lacks %q", want)
			}
		}

		// The turn after the compaction: SessionStart(compact) re-injected the
		// whiteboard and the restore protocol.
		reqs := turn(s, "carry on")
		wantIn(t, "request after /compact", reqs[0],
			"CAIRN-E2E-SUMMARY", runActiveDemo, restoreSentence, whiteboardHead,
			"[pending] Handle trailing commas", `instructions: "keep the tests"`)
		t.Logf("SessionStart(compact) injection (start):\n%s", excerpt(injected(reqs[0], whiteboardHead), restoreSentence, 6))
		if n := strings.Count(string(reqs[0].Body), jsonText(whiteboardHead)); n != 1 {
			t.Errorf("request after /compact holds the whiteboard %d times, want 1", n)
		}
		// Attribute it: the SessionStart(compact) run recorded in the transcript
		// printed the whiteboard and the restore protocol, and that very text
		// reached the request.
		ctxs := c.hookContexts(s, "SessionStart:compact")
		if len(ctxs) != 1 {
			t.Errorf("transcript: %d runs of cairn's SessionStart:compact with output, want 1", len(ctxs))
		}
		for _, ctx := range ctxs {
			if !strings.Contains(ctx, whiteboardHead) || !strings.Contains(ctx, restoreSentence) {
				t.Errorf("SessionStart(compact) printed no whiteboard or restore protocol:\n%s", ctx)
			}
			if !reqs[0].Contains(strings.TrimSpace(ctx)) {
				t.Errorf("SessionStart(compact)'s output (%d chars) is not in the request after /compact", len(ctx))
			}
		}
		// PreCompact prints nothing (its stdout would join the compaction
		// instructions), nor does PostCompact (its stdout would be shown to the
		// user): /compact's output lists each with no text after it, in the order
		// Claude Code ran them (FINDINGS.md §i).
		wantIn(t, "request after /compact", reqs[0], "cairn/bin/precompact] completed successfully\\nPostCompact [",
			"cairn/bin/postcompact] completed successfully</local-command-stdout>")
		if mem2 := c.read(".agents/runs/demo/MEMORY.md"); mem2 != mem {
			t.Errorf("MEMORY.md changed after the compaction without a new one:\n%s", mem2)
		}
		// The /compact run's SessionEnd left the session's hand-off (it compacted); the turn
		// after, with nothing new, adds nothing.
		if n := len(c.checkpoints()); n != len(auto)+1 {
			t.Errorf("%d checkpoints after the next turn, want %d automatic and one hand-off: %v", n, len(auto), c.checkpoints())
		}
	})

	t.Run("6-session-end-registry", func(t *testing.T) {
		reg := c.registry()
		t.Logf("session.json: %s", c.read(".claude/state/session.json"))
		got, ok := reg[s.ID]
		if !ok {
			t.Fatalf("session %s is not in .claude/state/session.json (SessionStart should register it)", s.ID)
		}
		if got.Status != "ended" || got.EndedBy != "session_end" || got.Ended.IsZero() {
			t.Errorf("session after `claude -p` exited: status %q, ended_by %q, ended %v; want ended by session_end", got.Status, got.EndedBy, got.Ended)
		}
		if got.Started.IsZero() || got.Started.After(got.Ended) {
			t.Errorf("session started %v, ended %v", got.Started, got.Ended)
		}
		if !strings.Contains(c.read(".claude/state/session.events.jsonl"), `"from":"`+s.ID+`","type":"session_end"`) {
			t.Errorf("the event log has no session_end for the session")
		}
		// SessionEnd's reason in -p mode is "other" (FINDINGS.md §b); cairn logs it.
		if tl := c.read("memory/timeline.jsonl"); !strings.Contains(tl, `"event":"session_end","session":"`+s.ID+`","reason":"other"`) {
			t.Errorf("memory/timeline.jsonl has no session_end with reason other:\n%s", tl)
		}
	})

	t.Run("7-doctor", func(t *testing.T) { c.doctor() })
	c.checkHealthy(s)
	logTimings(t, s)
}

// TestCairnE2EAutoCompact: a reply reporting a nearly full context makes the
// next turn auto-compact; PreCompact(auto) writes a *-before-auto-compaction checkpoint and
// SessionStart(compact) re-injects the whiteboard into the prompt's request.
func TestCairnE2EAutoCompact(t *testing.T) {
	requireCap(t, capUsageAutoCompact)
	c := newCairnProject(t)
	c.mustCairn(nil, "run", "start", "demo")
	full := mockapi.Text("the context is nearly full")
	full.InputTokens = 990000
	api := newMock(t, replies("CAIRN-E2E-AUTO-SUMMARY", mockapi.Text("ok"), full))
	s := c.newSession(api)

	turn(s, "fill the context")
	if cps := c.checkpoints(); len(cps) != 0 {
		t.Errorf("checkpoints before any compaction: %v", cps)
	}
	reqs := turn(s, "next step")
	if len(reqs) != 2 || !reqs[0].IsCompaction() || reqs[1].IsCompaction() {
		t.Fatalf("auto-compacting turn: %d messages requests, want summarisation then the prompt", len(reqs))
	}
	wantIn(t, "request after auto-compaction", reqs[1],
		"CAIRN-E2E-AUTO-SUMMARY", runActiveDemo, restoreSentence, whiteboardHead, "- Compaction: ")
	t.Logf("SessionStart(compact) injection (whiteboard):\n%s", excerpt(injected(reqs[1], whiteboardHead), whiteboardHead, 6))

	// The turn compacted, so its SessionEnd also left the session's hand-off.
	var cps []string
	for _, n := range c.checkpoints() {
		if !strings.Contains(n, "-handoff-") {
			cps = append(cps, n)
		}
	}
	if len(cps) != 1 || !strings.HasSuffix(cps[0], "-before-auto-compaction.md") || len(c.checkpoints()) != 2 {
		t.Fatalf("checkpoints %v, want exactly one *-before-auto-compaction.md and one hand-off", c.checkpoints())
	}
	cp := c.checkpoint(cps[0])
	t.Logf("checkpoint %s:\n%s", cps[0], cp)
	if !strings.Contains(cp, "status: auto") {
		t.Errorf("checkpoint %s is not status: auto", cps[0])
	}
	mem := c.read(".agents/runs/demo/MEMORY.md")
	if n := strings.Count(mem, snapshotBegin); n != 1 {
		t.Errorf("MEMORY.md has %d snapshot blocks, want 1:\n%s", n, mem)
	}
	if line := excerpt(mem, "- Compaction: ", 0); !strings.HasSuffix(line, ", auto") {
		t.Errorf("compaction line %q: want trigger auto and no instructions", line)
	}
	ctxs := c.hookContexts(s, "SessionStart:compact")
	if len(ctxs) != 1 || !strings.Contains(ctxs[0], whiteboardHead) || !reqs[1].Contains(strings.TrimSpace(ctxs[0])) {
		t.Errorf("SessionStart(compact) output recorded in the transcript: %d runs; want one, with the whiteboard, in the prompt's request", len(ctxs))
	}
	c.doctor()
	c.checkHealthy(s)
	logTimings(t, s)
}

// TestCairnE2EParking: a deferral prompt parks the idea, and a new request
// while Claude's question is unanswered parks the request; each time the
// one-line notice reaches the model with the prompt. A short answer parks
// nothing.
func TestCairnE2EParking(t *testing.T) {
	c := newCairnProject(t)
	api := newMock(t, replies("", mockapi.Text("ok"),
		// Session 1, turn 1.
		mockapi.Text("Fixing the parser."),
		// Session 2, turn 1: ends with a question.
		mockapi.Text("I can add a cache for parse results.\n\nShould the cache be per-user or global?"),
		// Session 2, turn 2: another question, answered in turn 3.
		mockapi.Text("Added the flag. Which level should it log at, debug or trace?"),
		mockapi.Text("Using debug."),
	))

	s1 := c.newSession(api)
	t.Run("3-deferral", func(t *testing.T) {
		reqs := turn(s1, "let's come back to the caching idea later, for now fix the parser")
		items := c.parked()
		t.Logf("session-context.md:\n%s", c.read(".claude/state/session-context.md"))
		if len(items) != 1 {
			t.Fatalf("parked items %v, want 1", items)
		}
		it := items[0]
		if !strings.HasPrefix(it.Text, "Deferred: ") || !strings.Contains(it.Text, "caching idea") {
			t.Errorf("parked item %q: want a Deferred: item about the caching idea", it.Text)
		}
		wantIn(t, "deferral prompt's request", reqs[0],
			parkedNotice+it.Slug+"`: Deferred: ", "cairn session archive "+it.Slug,
			"let's come back to the caching idea later")
		t.Logf("UserPromptSubmit injection: %s", excerpt(injected(reqs[0], parkedNotice), parkedNotice, 0))
	})

	s2 := c.newSession(api)
	t.Run("4-question-then-new-request", func(t *testing.T) {
		reqs := turn(s2, "How should we cache the parse results?")
		if reqs[0].Contains(parkedNotice) {
			t.Errorf("a plain first prompt got a parking notice")
		}
		before := c.parked()
		reqs = turn(s2, "Add a --verbose flag to the CLI")
		items := c.parked()
		t.Logf("session-context.md:\n%s", c.read(".claude/state/session-context.md"))
		if len(items) != len(before)+1 {
			t.Fatalf("parked items %v, want one more than %v", items, before)
		}
		it := items[len(items)-1]
		want := "User raised: Add a --verbose flag to the CLI. Pending: Should the cache be per-user or global?"
		if !strings.HasPrefix(it.Text, want) {
			t.Errorf("parked item %q, want it to start with %q", it.Text, want)
		}
		wantIn(t, "new request's request", reqs[0], parkedNotice+it.Slug+"`: User raised: ", "cairn session archive "+it.Slug)
		t.Logf("UserPromptSubmit injection: %s", excerpt(injected(reqs[0], parkedNotice+it.Slug), parkedNotice, 0))

		// A short answer to the next question parks nothing.
		reqs = turn(s2, "debug")
		if n := len(c.parked()); n != len(items) {
			t.Errorf("an answer parked something: %d items, want %d", n, len(items))
		}
		if last := reqs[0].LastMessage(); strings.Contains(last.Text(), parkedNotice) {
			t.Errorf("the answer's request got a new parking notice: %s", last.Text())
		}
	})

	out := c.mustCairn(c.sessionEnv(s2), "session", "resume")
	for _, it := range c.parked() {
		if !strings.Contains(out, it.Slug) {
			t.Errorf("cairn session resume does not list %s", it.Slug)
		}
	}
	c.doctor()
	c.checkHealthy(s1, s2)
	logTimings(t, s1)
	logTimings(t, s2)
}

// TestCairnE2EBroadcast: a broadcast from session A (the CLI run as Claude's
// Bash tool would run it) reaches B's next request once, and never A's.
func TestCairnE2EBroadcast(t *testing.T) {
	c := newCairnProject(t)
	api := newMock(t, replies("", mockapi.Text("ok")))
	a, b := c.newSession(api), c.newSession(api)
	turn(a, "session A starts")
	turn(b, "session B starts")
	reg := c.registry()
	t.Logf("session.json: %s", c.read(".claude/state/session.json"))
	for _, s := range []*session{a, b} {
		if _, ok := reg[s.ID]; !ok {
			t.Errorf("session %s is not registered after its SessionStart", s.ID)
		}
	}

	const msg = "CAIRN-E2E-BROADCAST: main is frozen until 5pm, do not push"
	c.mustCairn(c.sessionEnv(a), "session", "broadcast", msg)
	t.Logf("session.events.jsonl:\n%s", c.read(".claude/state/session.events.jsonl"))

	reqs := turn(b, "session B, next prompt")
	wantIn(t, "B's next request", reqs[0], broadcastHeader, msg, "["+a.ID[:8]+", ")
	t.Logf("UserPromptSubmit injection in B: %s", excerpt(injected(reqs[0], msg), broadcastHeader, 2))

	for _, r := range turn(a, "session A, next prompt") {
		if r.Contains(msg) {
			t.Errorf("A's own broadcast reached A's request #%d in %v", r.Seq, locate(r, msg))
		}
	}
	// Delivered once: B's following prompt carries it only as history.
	reqs = turn(b, "session B, third prompt")
	if last := reqs[0].LastMessage(); strings.Contains(last.Text(), msg) {
		t.Errorf("the broadcast was delivered to B a second time: %s", last.Text())
	}
	c.doctor()
	c.checkHealthy(a, b)
	logTimings(t, a)
	logTimings(t, b)
}
