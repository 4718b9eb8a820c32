//go:build unix

package e2e

// Reusable harness for the Claude Code end-to-end tests: finding the
// claude binary, a temp HOME + git project, running `claude -p` with a
// timeout against the mock API, recording hook invocations, and reading
// transcripts.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// moduleRoot is the module's root (install.sh, hooks/, pkg/), relative to this package's
// directory (testscripts/e2e).
const moduleRoot = "../.."

// pinnedClaudeVersion is the Claude Code release the e2e tests are written
// against. Keep in sync with CLAUDE_VERSION in install-claude.sh.
const pinnedClaudeVersion = "2.1.332"

// claudeTimeout bounds one claude invocation (they take about 1 s).
const claudeTimeout = 120 * time.Second

var (
	claudeOnce sync.Once
	claudePath string
	claudeErr  error
)

// requireClaude skips the test unless CAIRN_E2E=1, and returns the claude
// binary: $CAIRN_CLAUDE, or the pinned install in the cache dir used by
// install-claude.sh. With CAIRN_E2E=1 a missing binary is a test failure.
func requireClaude(t testing.TB) string {
	t.Helper()
	if os.Getenv("CAIRN_E2E") != "1" {
		t.Skip("Claude Code e2e test: set CAIRN_E2E=1 to run it (and CAIRN_CLAUDE=$(sh testscripts/e2e/install-claude.sh) if the binary is not in the default cache)")
	}
	claudeOnce.Do(func() { claudePath, claudeErr = findClaude() })
	if claudeErr != nil {
		t.Fatalf("CAIRN_E2E=1 but no usable claude binary: %v\n(install it with: sh testscripts/e2e/install-claude.sh, and/or set CAIRN_CLAUDE)", claudeErr)
	}
	return claudePath
}

func findClaude() (string, error) {
	var cands []string
	if p := os.Getenv("CAIRN_CLAUDE"); p != "" {
		cands = append(cands, p)
	} else {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			cache = filepath.Join(home, ".cache")
		}
		prefix := filepath.Join(cache, "cairn-e2e", "claude-"+pinnedClaudeVersion, "node_modules", "@anthropic-ai")
		cands = append(cands, filepath.Join(prefix, "claude-code", "bin", "claude.exe"))
		more, _ := filepath.Glob(filepath.Join(prefix, "claude-code-*", "claude"))
		cands = append(cands, more...)
	}
	var errs []error
	for _, c := range cands {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, c, "--version").Output()
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s --version: %w", c, err))
			continue
		}
		v := strings.TrimSpace(string(out))
		if !strings.HasPrefix(v, pinnedClaudeVersion+" ") && v != pinnedClaudeVersion {
			// Not fatal: CAIRN_CLAUDE may deliberately point elsewhere.
			fmt.Fprintf(os.Stderr, "e2e: warning: %s is %q, tests are pinned to %s\n", c, v, pinnedClaudeVersion)
		}
		return c, nil
	}
	if len(errs) == 0 {
		return "", errors.New("no candidate paths")
	}
	return "", errors.Join(errs...)
}

// project is a throwaway Claude Code workspace: a temp HOME, a temp TMPDIR
// and a git repository with one commit.
type project struct {
	t      testing.TB
	Claude string   // claude binary
	Root   string   // temp root holding everything below
	Home   string   // $HOME for claude (holds .claude/, .claude.json)
	Tmp    string   // $TMPDIR for claude
	Dir    string   // the git project (claude's cwd, CLAUDE_PROJECT_DIR)
	Env    []string // base environment, without ANTHROPIC_BASE_URL
}

// newProject makes a temp HOME and a git repo with an initial commit. The
// environment is built from scratch (only PATH is inherited) so that no
// CLAUDE*/ANTHROPIC* variable of the calling shell leaks in. It skips the
// test unless CAIRN_E2E=1.
func newProject(t testing.TB) *project {
	t.Helper()
	bin := requireClaude(t)
	root, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var -> /private/var
	if err != nil {
		t.Fatal(err)
	}
	p := &project{
		t:      t,
		Claude: bin,
		Root:   root,
		Home:   filepath.Join(root, "home"),
		Tmp:    filepath.Join(root, "tmp"),
		Dir:    filepath.Join(root, "proj"),
	}
	for _, d := range []string{p.Home, p.Tmp, filepath.Join(p.Dir, ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + p.Home,
		"TMPDIR=" + p.Tmp,
		"USER=cairn",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"SHELL=/bin/sh",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Cairn E2E", "GIT_AUTHOR_EMAIL=e2e@cairn.invalid",
		"GIT_COMMITTER_NAME=Cairn E2E", "GIT_COMMITTER_EMAIL=e2e@cairn.invalid",
		"ANTHROPIC_API_KEY=sk-ant-mock-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		// The Task* tools are off for current models unless this is set.
		"CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "README.md"), []byte("# e2e project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.git("init", "-q", "-b", "main")
	p.git("add", "README.md")
	p.git("commit", "-q", "-m", "initial commit")
	return p
}

func (p *project) git(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = p.Dir
	cmd.Env = p.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// envFor is the project environment pointed at the mock API.
func (p *project) envFor(api *mockapi.Server, extra ...string) []string {
	env := append([]string{}, p.Env...)
	env = append(env, "ANTHROPIC_BASE_URL="+api.URL())
	return append(env, extra...)
}

// writeSettings writes v as the project's .claude/settings.json.
func (p *project) writeSettings(v any) {
	p.t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir, ".claude", "settings.json"), b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// Hook configuration, as in .claude/settings.json.
type (
	hookCmd struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args,omitempty"`
		Timeout int      `json:"timeout,omitempty"`
	}
	hookGroup struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []hookCmd `json:"hooks"`
	}
	hooksConfig map[string][]hookGroup
)

// shellHook is a shell-form hook (run through sh -c).
func shellHook(command string) hookCmd { return hookCmd{Type: "command", Command: command} }

// execHook is an exec-form hook: the executable is spawned directly with args.
func execHook(path string, args ...string) hookCmd {
	if args == nil {
		args = []string{}
	}
	return hookCmd{Type: "command", Command: path, Args: args}
}

// settingsWithHooks is a settings.json value holding only hooks.
func settingsWithHooks(h hooksConfig) map[string]any { return map[string]any{"hooks": h} }

// claudeRun is one finished claude invocation.
type claudeRun struct {
	Args     []string
	Stdout   string
	Stderr   string
	Duration time.Duration
	Err      error
}

// tryClaude runs claude with env in dir; it kills the whole process group
// after claudeTimeout. It does not fail the test.
func tryClaude(t testing.TB, claude string, env []string, dir string, args ...string) claudeRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), claudeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil // /dev/null: CI has no stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := claudeRun{Args: args, Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start), Err: err}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("timed out after %v: %w", claudeTimeout, err)
	}
	t.Logf("claude %s: %v (err=%v)", shortArgs(args), r.Duration.Round(time.Millisecond), r.Err)
	return r
}

func shortArgs(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// runClaude runs claude (the binary found by requireClaude) with env in
// dir and a 120 s timeout; it fails the test on a non-zero exit.
func runClaude(t testing.TB, env []string, dir string, args ...string) (stdout, stderr string) {
	t.Helper()
	r := tryClaude(t, requireClaude(t), env, dir, args...)
	if r.Err != nil {
		t.Fatalf("claude %s: %v\nstdout:\n%s\nstderr:\n%s", shortArgs(args), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout, r.Stderr
}

// claudeResult is the subset of `claude -p --output-format json` output
// the tests use.
type claudeResult struct {
	Type         string `json:"type"`
	Subtype      string `json:"subtype"`
	IsError      bool   `json:"is_error"`
	Result       string `json:"result"`
	SessionID    string `json:"session_id"`
	NumTurns     int    `json:"num_turns"`
	StopReason   string `json:"stop_reason"`
	LocalCommand string `json:"local_command"`
}

// session is one Claude Code session in a project, driven turn by turn
// with `claude -p`: the first turn uses --session-id, later ones --resume.
type session struct {
	p     *project
	api   *mockapi.Server
	ID    string
	Args  []string // extra args for every turn
	Env   []string // extra env for every turn
	turns int
	Runs  []claudeRun
}

// newSession prepares a session with a fresh random id.
func (p *project) newSession(api *mockapi.Server, extraArgs ...string) *session {
	return &session{p: p, api: api, ID: newUUID(), Args: extraArgs}
}

// send runs one `claude -p` turn (a prompt or a slash command such as
// "/compact") and returns the parsed JSON result. It fails the test when
// claude exits non-zero or reports an error.
func (s *session) send(prompt string) claudeResult {
	s.p.t.Helper()
	args := []string{"-p", "--output-format", "json", "--permission-mode", "acceptEdits"}
	if s.turns == 0 {
		args = append(args, "--session-id", s.ID)
	} else {
		args = append(args, "--resume", s.ID)
	}
	args = append(args, s.Args...)
	args = append(args, "--", prompt)
	r := tryClaude(s.p.t, s.p.Claude, s.p.envFor(s.api, s.Env...), s.p.Dir, args...)
	s.Runs = append(s.Runs, r)
	s.turns++
	if r.Err != nil {
		s.p.t.Fatalf("claude turn %d (%q): %v\nstdout:\n%s\nstderr:\n%s", s.turns, prompt, r.Err, r.Stdout, r.Stderr)
	}
	var res claudeResult
	if err := json.Unmarshal([]byte(lastLine(r.Stdout)), &res); err != nil {
		s.p.t.Fatalf("claude turn %d: cannot parse JSON result: %v\nstdout:\n%s\nstderr:\n%s", s.turns, err, r.Stdout, r.Stderr)
	}
	if res.IsError {
		s.p.t.Fatalf("claude turn %d (%q) reported an error: %s\nstderr:\n%s", s.turns, prompt, r.Stdout, r.Stderr)
	}
	// /clear ends the session and starts another, whose id the result gives (FINDINGS.md §k).
	if res.SessionID != s.ID && prompt != "/clear" {
		s.p.t.Errorf("claude turn %d: session_id %q, want %q", s.turns, res.SessionID, s.ID)
	}
	return res
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newMock starts a mock API for the test, logging to t and closed at cleanup.
func newMock(t testing.TB, script mockapi.Script) *mockapi.Server {
	t.Helper()
	srv := mockapi.New(script)
	srv.SetLogf(t.Logf)
	t.Cleanup(srv.Close)
	if dir := os.Getenv("CAIRN_E2E_DUMP"); dir != "" {
		// Debugging aid: keep every request body as DIR/<test>/NNN.json.
		t.Cleanup(func() {
			d := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Log(err)
				return
			}
			for _, r := range srv.Requests() {
				name := fmt.Sprintf("%03d-%s%s.json", r.Seq, r.Method, strings.ReplaceAll(r.Path, "/", "_"))
				if err := os.WriteFile(filepath.Join(d, name), r.Body, 0o644); err != nil {
					t.Log(err)
				}
			}
			t.Logf("request bodies dumped to %s", d)
		})
	}
	return srv
}

// replies is a script handing out rs in order, then def; compaction
// requests get a summary containing summaryMarker and don't consume rs.
func replies(summaryMarker string, def mockapi.Reply, rs ...mockapi.Reply) mockapi.Script {
	return mockapi.Compacting("Summary of the conversation. "+summaryMarker, mockapi.NewQueue(def, rs...))
}

// recorderScript is a POSIX sh hook that records every invocation in its
// output dir and prints a label-dependent marker:
//
//	LABEL.jsonl    the stdin payloads, one per line, in order
//	LABEL.N.env    the environment of the Nth invocation (sorted)
//	LABEL.args     one line per invocation: argc=K [arg1] [arg2] ...
//	LABEL.transcript  one line per invocation: "yes SIZE" if the payload's
//	               transcript_path existed when the hook ran, else "no"
//
// Output by label prefix: ss-* prints plain text
// "CAIRN-E2E-SS label=L source=S n=N"; ups-* prints hookSpecificOutput
// JSON with additionalContext "CAIRN-E2E-UPS label=L n=N"; pc-* prints
// "CAIRN-E2E-PC label=L n=N"; anything else prints nothing.
const recorderScript = `#!/bin/sh
out=%s
label=$1
payload=$(cat)
printf '%%s\n' "$payload" >> "$out/$label.jsonl"
n=$(wc -l < "$out/$label.jsonl" | tr -d ' ')
env | LC_ALL=C sort > "$out/$label.$n.env"
{ printf 'argc=%%d' "$#"; for a in "$@"; do printf ' [%%s]' "$a"; done; echo; } >> "$out/$label.args"
src=$(printf '%%s' "$payload" | sed -n 's/.*"source":"\([a-z]*\)".*/\1/p')
tp=$(printf '%%s' "$payload" | sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')
if [ -n "$tp" ] && [ -f "$tp" ]; then echo "yes $(wc -c < "$tp" | tr -d ' ')" >> "$out/$label.transcript"; else echo no >> "$out/$label.transcript"; fi
case $label in
ss-*) echo "CAIRN-E2E-SS label=$label source=$src n=$n" ;;
ups-*) printf '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CAIRN-E2E-UPS label=%%s n=%%s"}}\n' "$label" "$n" ;;
pc-*) echo "CAIRN-E2E-PC label=$label n=$n" ;;
esac
exit 0
`

// recorder is an installed recorderScript.
type recorder struct {
	t      testing.TB
	Script string // absolute path of the hook script
	Out    string // where it records
}

func newRecorder(t testing.TB, p *project) *recorder {
	t.Helper()
	dir := filepath.Join(p.Root, "hooks")
	out := filepath.Join(p.Root, "hook-out")
	for _, d := range []string{dir, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "record.sh")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(recorderScript, shQuote(out))), 0o755); err != nil {
		t.Fatal(err)
	}
	return &recorder{t: t, Script: script, Out: out}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shell is a shell-form hook running the recorder with label and args.
func (r *recorder) shell(label string, args ...string) hookCmd {
	cmd := shQuote(r.Script) + " " + label
	for _, a := range args {
		cmd += " " + a // deliberately unquoted: callers pass shell words
	}
	return shellHook(cmd)
}

// exec is an exec-form hook running the recorder with label and args.
func (r *recorder) exec(label string, args ...string) hookCmd {
	return execHook(r.Script, append([]string{label}, args...)...)
}

// payload is one recorded hook stdin payload.
type payload struct {
	Raw    json.RawMessage
	Fields map[string]any
}

func (p payload) str(key string) string {
	s, _ := p.Fields[key].(string)
	return s
}

// payloads returns the recorded stdin payloads for label, in order.
func (r *recorder) payloads(label string) []payload {
	r.t.Helper()
	f, err := os.Open(filepath.Join(r.Out, label+".jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	var out []payload
	dec := json.NewDecoder(f)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			r.t.Fatalf("hook %s: bad payload: %v", label, err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			r.t.Fatalf("hook %s: payload is not an object: %s", label, raw)
		}
		out = append(out, payload{Raw: raw, Fields: m})
	}
	return out
}

// env returns the environment of the nth (1-based) invocation of label.
func (r *recorder) env(label string, n int) map[string]string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Out, fmt.Sprintf("%s.%d.env", label, n)))
	if err != nil {
		r.t.Fatalf("hook %s invocation %d: %v", label, n, err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// args returns one line per invocation of label: "argc=K [a1] [a2]...".
func (r *recorder) args(label string) []string {
	b, _ := os.ReadFile(filepath.Join(r.Out, label+".args"))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// transcriptSeen returns, per invocation of label, whether the payload's
// transcript_path existed when the hook ran ("yes SIZE" or "no").
func (r *recorder) transcriptSeen(label string) []string {
	b, _ := os.ReadFile(filepath.Join(r.Out, label+".transcript"))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// transcriptLine is one parsed JSONL transcript line.
type transcriptLine struct {
	Raw    json.RawMessage
	Fields map[string]any
}

func (l transcriptLine) str(key string) string {
	s, _ := l.Fields[key].(string)
	return s
}

// readTranscript parses a transcript JSONL file (lines can be huge, so no
// bufio.Scanner).
func readTranscript(t testing.TB, path string) []transcriptLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	var out []transcriptLine
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("transcript %s: bad line: %v", path, err)
		}
		out = append(out, transcriptLine{Raw: append(json.RawMessage{}, line...), Fields: m})
	}
	return out
}

// transcriptPath finds <session>.jsonl under $HOME/.claude/projects/*/.
func (p *project) transcriptPath(sessionID string) string {
	p.t.Helper()
	m, _ := filepath.Glob(filepath.Join(p.Home, ".claude", "projects", "*", sessionID+".jsonl"))
	if len(m) != 1 {
		p.t.Fatalf("transcript for %s: found %v", sessionID, m)
	}
	return m[0]
}

// projectSlug is Claude Code's transcript directory name for a path.
func projectSlug(path string) string {
	var b strings.Builder
	for _, r := range path {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// locate describes where marker occurs in a messages request:
// e.g. "messages[1] (role system)" or "system prompt"; "" if absent.
func locate(req mockapi.Request, marker string) []string {
	var where []string
	if req.Messages == nil {
		return nil
	}
	for i, m := range req.Messages.Messages {
		if bytes.Contains(m.Content, []byte(marker)) {
			where = append(where, fmt.Sprintf("messages[%d] (role %s)", i, m.Role))
		}
	}
	if bytes.Contains(req.Messages.System, []byte(marker)) {
		where = append(where, "system prompt")
	}
	return where
}

// updateTestdata reports whether the tests should rewrite testdata samples.
func updateTestdata() bool { return os.Getenv("CAIRN_E2E_UPDATE") == "1" }

// writeTestdata writes a sample under testdata/ when CAIRN_E2E_UPDATE=1.
func writeTestdata(t testing.TB, rel string, data []byte) {
	t.Helper()
	if !updateTestdata() {
		return
	}
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "testdata", rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", path, len(data))
}
