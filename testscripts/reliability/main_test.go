//go:build linux

// Package reliability tries to break cairn from the outside, through its real binaries: it kills
// writers with SIGKILL at random points and checks that every file still parses and holds the old
// or the new content (crash_test.go); it runs 8 processes of mixed operations on one project and
// checks that the final state is the sum of the operations (concurrency_test.go); and it feeds
// every binary hostile input — bad stdin, hostile payload fields, hostile transcripts, symlinks
// planted where cairn writes, read-only directories and a full disk — and checks that hooks exit
// 0 with protocol-only stdout, that the CLI fails with one clear line, that nothing outside the
// project changes and that nothing inside it is corrupted (hostile_test.go, disk_test.go).
//
// The whole suite takes minutes and kills processes at random points, so it is opt-in:
// `CAIRN_RELIABILITY=1 go test ./testscripts/reliability/` runs it (scripts/check.sh and CI do).
// Without the variable, `go test ./...` runs its smoke pass (see [smoke] and [heavy]): one kill
// per writer, one concurrency round and the cheap deterministic tests, in a few seconds; every
// other test skips by name, with the reason. The binaries are built on first use, so a run in
// which every test skips builds nothing. Counts shrink under -short; CAIRN_RELIABILITY_ITER
// (runs per writer in the kill loop) and CAIRN_RELIABILITY_OPS (operations per concurrent
// process) raise them for longer local runs, and CAIRN_RELIABILITY_SEED replays the kill points
// of a failed run. A summary table of what was tried and what held is printed at the end under
// -v (and written to $CAIRN_RELIABILITY_REPORT when set): docs/RELIABILITY.md is made from it.
// Linux only: the suite uses SIGKILL, mkfifo, chattr and tmpfs.
package reliability

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/cairn-hooks/cairn/testscripts/testbin"
)

// moduleRoot is the module's root, relative to this package's directory (testscripts/reliability).
const moduleRoot = "../.."

// The suite runs at one of three sizes:
//   - go test ./...: the smoke pass. The tests marked smoke run at their smoke counts (one kill
//     per writer, one concurrency round) and the cheap deterministic tests run whole; the tests
//     marked heavy skip by name, with what they cost.
//   - CAIRN_RELIABILITY=1: every test, at full counts (reduced counts under -short).
//   - go test -short without CAIRN_RELIABILITY=1, the inner loop: every test skips by name.
//
// Nothing in the smoke pass asserts a time, so a loaded machine only makes it slower: runs are
// timed only to aim the kills, a run still going after stallLimit (30 s, for processes that take
// milliseconds) fails as stalled, and everything else is counted. The one clock left is the
// hooks' own 2 s stdin deadline (stdinDeadline in pkg/hookio), which the payload a test pipes in meets
// unless the machine stalls a process for seconds.

// wholeSuite is CAIRN_RELIABILITY=1: every test runs, at full counts.
var wholeSuite = os.Getenv("CAIRN_RELIABILITY") == "1"

// smoke starts a test of the smoke pass, which go test ./... runs: it skips t, by name, only
// under -short without CAIRN_RELIABILITY=1. Every test starts with smoke or heavy
// (TestEveryTestIsGated), so `go test -v` lists what it did not run.
func smoke(t *testing.T) {
	t.Helper()
	if !wholeSuite && testing.Short() {
		t.Skip("-short: the reliability smoke pass runs without -short; set CAIRN_RELIABILITY=1 to run the whole suite")
	}
}

// heavy starts a test too costly for go test ./... (cost says why): it skips t, by name, unless
// CAIRN_RELIABILITY=1.
func heavy(t *testing.T, cost string) {
	t.Helper()
	if !wholeSuite {
		t.Skipf("heavy (%s): set CAIRN_RELIABILITY=1 to run it", cost)
	}
}

// binDir holds the built binaries once a test has asked for them (buildOnce).
var (
	binDir     string
	binCleanup func()
	binErr     error
	buildOnce  sync.Once
)

// buildBinaries builds every binary into binDir on first use, and fails t if that failed.
func buildBinaries(t testing.TB) {
	t.Helper()
	buildOnce.Do(func() { binDir, binCleanup, binErr = testbin.Build(moduleRoot, "cairn-reliability-bin-") })
	if binErr != nil {
		t.Fatal(binErr)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binCleanup != nil {
		binCleanup()
	}
	writeReport()
	os.Exit(code)
}

// touchSources keeps go test's cache honest about the binaries (see testbin.TouchSources).
var touchSources = sync.OnceFunc(func() { testbin.TouchSources(moduleRoot) })

// envInt reads a positive count from the environment, else full for the whole suite (short
// under -short), else smoke for the smoke pass.
func envInt(name string, full, short, smoke int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	switch {
	case !wholeSuite:
		return smoke
	case testing.Short():
		return short
	}
	return full
}

// ---- The report: what was tried, how many times, what held ----

type row struct {
	Test, Tried string
	Times       int
	Held        string
}

var (
	reportMu sync.Mutex
	report   []row
)

// record adds a row to the summary table.
func record(test, tried string, times int, held string) {
	reportMu.Lock()
	defer reportMu.Unlock()
	report = append(report, row{test, tried, times, held})
}

func writeReport() {
	reportMu.Lock()
	defer reportMu.Unlock()
	if len(report) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("| test | what it tried | times | what held |\n|---|---|---:|---|\n")
	for _, r := range report {
		fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", r.Test, strings.ReplaceAll(r.Tried, "|", `\|`), r.Times, strings.ReplaceAll(r.Held, "|", `\|`))
	}
	if p := os.Getenv("CAIRN_RELIABILITY_REPORT"); p != "" {
		os.WriteFile(p, []byte(b.String()), 0o644)
	}
	if testing.Verbose() {
		fmt.Print("\nreliability summary\n" + b.String())
	}
}

// ---- The fake machine ----

// machine is a fake user machine under one directory: a HOME with a Claude config dir, a project
// (a git repository unless asked otherwise), a directory "outside" that cairn must never change,
// and a directory for transcripts (outside the project, as Claude Code keeps them).
type machine struct {
	t                                             testing.TB
	dir, home, config, proj, outside, transcripts string
	cache                                         string // the user's cache directory (XDG_CACHE_HOME): cairn's search index only
	projEnv                                       bool   // CLAUDE_PROJECT_DIR is set to proj
}

type machineOpt struct {
	proj  string // the project directory ("" = <dir>/proj)
	noGit bool
}

func newMachine(t testing.TB, opts ...machineOpt) *machine {
	t.Helper()
	touchSources()
	buildBinaries(t)
	var o machineOpt
	if len(opts) > 0 {
		o = opts[0]
	}
	dir := t.TempDir()
	m := &machine{
		t: t, dir: dir, home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj"),
		outside: filepath.Join(dir, "outside"), transcripts: filepath.Join(dir, "transcripts"), projEnv: true,
		cache: filepath.Join(dir, "cache"),
	}
	if o.proj != "" {
		m.proj = o.proj
	}
	m.config = filepath.Join(m.home, ".claude")
	for _, d := range []string{m.home, m.config, m.proj, m.outside, m.transcripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Something to protect outside: a file and a directory with a file.
	m.write(filepath.Join(m.outside, "keep.txt"), "outside: must never change\n")
	m.write(filepath.Join(m.outside, "dir", "keep.md"), "# outside\n")
	if !o.noGit {
		for _, args := range [][]string{
			{"init", "-q", "-b", "main"},
			{"commit", "-q", "--allow-empty", "-m", "initial commit"},
		} {
			cmd := exec.Command("git", args...)
			cmd.Dir = m.proj
			cmd.Env = m.env()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	return m
}

// env is the binaries' environment, built from nothing so that the caller's Claude Code session
// (CLAUDE_CODE_SESSION_ID, CLAUDE_PROJECT_DIR) never leaks in.
func (m *machine) env(extra ...string) []string {
	e := []string{
		"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + m.home,
		"XDG_CACHE_HOME=" + m.cache,
		"CLAUDE_CONFIG_DIR=" + m.config,
		"TZ=UTC",
		"LANG=C.UTF-8",
		"GIT_AUTHOR_NAME=cairn test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=cairn test", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(m.home, ".gitconfig"),
	}
	if m.projEnv {
		e = append(e, "CLAUDE_PROJECT_DIR="+m.proj)
	}
	return append(e, extra...)
}

func (m *machine) write(path, content string) {
	m.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// p joins a project-relative path.
func (m *machine) p(rel string) string { return filepath.Join(m.proj, filepath.FromSlash(rel)) }

// ---- Running the binaries ----

// result is how one process ended.
type result struct {
	name           string
	args           []string
	code           int // -1 when killed by a signal
	killed         bool
	stdout, stderr string
	dur            time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("%s %q: exit %d after %v\nstdout: %q\nstderr: %q", r.name, r.args, r.code, r.dur.Round(time.Millisecond), clipText(r.stdout, 2000), clipText(r.stderr, 2000))
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}

// stallLimit is far above any normal run (milliseconds) and above the hooks' 2 s stdin deadline:
// a process still running after it is stalled.
const stallLimit = 30 * time.Second

// spec describes one process to run.
type spec struct {
	name  string   // binary in binDir
	args  []string // arguments
	stdin io.Reader
	env   []string // extra environment
	dir   string   // working directory ("" = the project)
}

func (m *machine) start(s spec) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	m.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, s.name), s.args...)
	cmd.Dir = s.dir
	if cmd.Dir == "" {
		cmd.Dir = m.proj
	}
	cmd.Env = m.env(s.env...)
	cmd.Stdin = s.stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		m.t.Fatalf("starting %s: %v", s.name, err)
	}
	return cmd, &stdout, &stderr
}

func finish(s spec, cmd *exec.Cmd, stdout, stderr *bytes.Buffer, began time.Time, err error) result {
	r := result{name: s.name, args: s.args, stdout: stdout.String(), stderr: stderr.String(), dur: time.Since(began)}
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code, r.killed = -1, true
			return r
		}
		r.code = ps.ExitCode()
	} else if err != nil {
		r.code = -1
	}
	return r
}

// run runs one process to its end; a process that outlives stallLimit is killed and fails the test.
func (m *machine) run(s spec) result {
	m.t.Helper()
	r, timedOut := m.runFor(s, stallLimit)
	if timedOut {
		m.t.Errorf("stalled: %s %q did not exit within %v", s.name, s.args, stallLimit)
	}
	return r
}

// runKilled starts a process, sends it SIGKILL after delay and waits for it. killed is false when
// the process had already exited.
func (m *machine) runKilled(s spec, delay time.Duration) result {
	m.t.Helper()
	r, _ := m.runFor(s, delay)
	return r
}

// runFor runs one process and sends it SIGKILL if it is still running after limit.
func (m *machine) runFor(s spec, limit time.Duration) (r result, timedOut bool) {
	began := time.Now()
	cmd, stdout, stderr := m.start(s)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return finish(s, cmd, stdout, stderr, began, err), false
	case <-time.After(limit):
		syscall.Kill(cmd.Process.Pid, syscall.SIGKILL) // the pid is ours: it has not been waited for yet
		err := <-done
		return finish(s, cmd, stdout, stderr, began, err), true
	}
}

// hook runs a hook binary with payload on stdin and checks its contract: exit 0, stdout empty
// or exactly one protocol JSON object, stderr lines all its own.
func (m *machine) hook(name string, payload []byte, env ...string) result {
	m.t.Helper()
	r := m.run(spec{name: name, stdin: bytes.NewReader(payload), env: env})
	checkHook(m.t, r)
	return r
}

// cairn runs the CLI in the project and checks its contract: exit 0, 1 or 2, and on failure one
// clear line on stderr.
func (m *machine) cairn(args ...string) result {
	m.t.Helper()
	r := m.run(spec{name: "cairn", args: args})
	checkCLI(m.t, r)
	return r
}

// cairnEnv is cairn with extra environment.
func (m *machine) cairnEnv(env []string, args ...string) result {
	m.t.Helper()
	r := m.run(spec{name: "cairn", args: args, env: env})
	checkCLI(m.t, r)
	return r
}

// addProse writes proseSentinel into run's whiteboard, outside cairn's block, as a person would:
// every writer must keep it.
func (m *machine) addProse(run string) {
	m.t.Helper()
	mem := m.p(".agents/runs/" + run + "/MEMORY.md")
	data, err := os.ReadFile(mem)
	if err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(mem, bytes.Replace(data, []byte("## Decisions\n"), []byte("## Decisions\n"+proseSentinel+"\n"), 1), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// mustCairn runs the CLI and fails unless it exits 0.
func (m *machine) mustCairn(args ...string) result {
	m.t.Helper()
	r := m.cairn(args...)
	if r.code != 0 {
		m.t.Fatalf("want exit 0: %v", r)
	}
	return r
}

var hookEvents = map[string]string{
	"precompact":       "PreCompact",
	"postcompact":      "PostCompact",
	"sessionstart":     "SessionStart",
	"sessionend":       "SessionEnd",
	"userpromptsubmit": "UserPromptSubmit",
	"pretooluse":       "PreToolUse",
}

// hooks lists the hook binaries, in a fixed order.
var hooks = []string{"precompact", "postcompact", "sessionstart", "sessionend", "userpromptsubmit", "pretooluse"}

// checkHook checks a finished hook against the hook contract (docs/DESIGN.md, Facts about Claude
// Code, and Invariants): exit 0; stderr only lines of its own; nothing on stdout for PreCompact
// and SessionEnd; otherwise one hookSpecificOutput object for the event whose additionalContext
// fits Claude Code's 10,000 characters.
func checkHook(t testing.TB, r result) {
	t.Helper()
	if err := hookProblem(r); err != "" {
		t.Errorf("%s\n%v", err, r)
	}
}

func hookProblem(r result) string {
	event := hookEvents[r.name]
	if r.code != 0 {
		return fmt.Sprintf("hook exited %d (hooks always exit 0)", r.code)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		return "hook panicked"
	}
	for _, l := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, r.name+": ") {
			return fmt.Sprintf("stray stderr line %q", l)
		}
	}
	if r.stdout == "" {
		return ""
	}
	if event == "PreCompact" || event == "SessionEnd" {
		return "stdout must stay empty for " + event
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var out struct {
		HookSpecificOutput *struct {
			HookEventName     string  `json:"hookEventName"`
			AdditionalContext *string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := dec.Decode(&out); err != nil {
		return fmt.Sprintf("stdout is not one JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "stdout holds more than one JSON value"
	}
	if out.HookSpecificOutput == nil || out.HookSpecificOutput.HookEventName != event || out.HookSpecificOutput.AdditionalContext == nil {
		return "stdout is not a hookSpecificOutput for " + event
	}
	if n := len(utf16.Encode([]rune(*out.HookSpecificOutput.AdditionalContext))); n == 0 || n > 10000 {
		return fmt.Sprintf("additionalContext is %d characters (want 1..10000)", n)
	}
	return ""
}

// checkCLI checks the CLI's contract (README.md, Manual commands): exit 0, 1 or 2; on failure a
// clear message — exactly one "cairn: error|usage|refused: …" line — and every stderr line
// cairn's own.
func checkCLI(t testing.TB, r result) {
	t.Helper()
	if err := cliProblem(r); err != "" {
		t.Errorf("%s\n%v", err, r)
	}
}

func cliProblem(r result) string {
	if r.code < 0 || r.code > 2 {
		return fmt.Sprintf("cairn exited %d", r.code)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		return "cairn panicked"
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	verdicts := 0
	for _, l := range lines {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "cairn: ") {
			return fmt.Sprintf("stray stderr line %q", l)
		}
		for _, p := range []string{"cairn: error: ", "cairn: usage: ", "cairn: refused: "} {
			if strings.HasPrefix(l, p) {
				verdicts++
			}
		}
	}
	if r.code != 0 && verdicts != 1 {
		return fmt.Sprintf("exit %d with %d error lines on stderr (want exactly one)", r.code, verdicts)
	}
	if r.code == 0 && verdicts != 0 {
		return "exit 0 with an error line"
	}
	return ""
}

// payload builds a hook payload: hook_event_name plus fields.
func payload(event string, fields map[string]any) []byte {
	obj := map[string]any{"hook_event_name": event}
	for k, v := range fields {
		obj[k] = v
	}
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// ---- Snapshots of directories cairn must not change ----

// tree is a snapshot of a directory: relative path → type, mode, size and content hash (or the
// link target).
type tree map[string]string

func snapshot(t testing.TB, dirs ...string) tree {
	t.Helper()
	out := tree{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				out[p] = "unreadable: " + err.Error()
				return nil
			}
			if d.IsDir() && d.Name() == "cairn" && filepath.Base(filepath.Dir(p)) == ".claude" {
				return nil // <config>/cairn itself: made for the records below; what else it holds is walked
			}
			if d.IsDir() && (d.Name() == "runs" || d.Name() == "parked" || d.Name() == "repairs" || d.Name() == "claims") && filepath.Base(filepath.Dir(p)) == "cairn" {
				// <config>/cairn/runs, parked, repairs and claims: cairn's records of the runs
				// started, the items parked, the repairs made and the files being edited on this
				// machine (docs/RELIABILITY.md, the trust boundary), the one place outside the
				// project it writes to on purpose.
				return filepath.SkipDir
			}
			fi, err := os.Lstat(p)
			if err != nil {
				out[p] = "gone"
				return nil
			}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				out[p] = "link " + target
			case fi.IsDir():
				out[p] = fmt.Sprintf("dir %v", fi.Mode().Perm())
			case fi.Mode().IsRegular():
				data, _ := os.ReadFile(p)
				h := sha256.Sum256(data)
				out[p] = fmt.Sprintf("file %v %d %s", fi.Mode().Perm(), fi.Size(), hex.EncodeToString(h[:8]))
			default:
				out[p] = fmt.Sprintf("special %v", fi.Mode())
			}
			return nil
		})
	}
	return out
}

// diff lists what changed between two snapshots.
func (a tree) diff(b tree) []string {
	var out []string
	for p, v := range a {
		if w, ok := b[p]; !ok {
			out = append(out, "removed "+p)
		} else if v != w {
			out = append(out, fmt.Sprintf("changed %s: %s → %s", p, v, w))
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, "created "+p)
		}
	}
	sort.Strings(out)
	return out
}

// outsideDirs are the directories of the machine that are not the project.
func (m *machine) outsideDirs() []string { return []string{m.outside, m.home, m.transcripts} }

// checkUnchanged fails if anything under the directories outside the project changed since
// before was taken, or if the user's cache directory holds anything but cairn's search index:
// the one place outside the project that cairn writes, by design (README, "Search").
func (m *machine) checkUnchanged(t testing.TB, what string, before tree) {
	t.Helper()
	if d := before.diff(snapshot(t, m.outsideDirs()...)); len(d) > 0 {
		t.Errorf("%s: written outside the project:\n%s", what, strings.Join(d, "\n"))
	}
	index := filepath.Join(m.cache, "cairn", "search")
	var stray []string
	for p, kind := range snapshot(t, m.cache) {
		switch {
		case p == m.cache || p == filepath.Dir(index) || p == index:
		case strings.HasPrefix(p, index+string(filepath.Separator)) && (strings.HasPrefix(kind, "dir ") || strings.HasPrefix(kind, "file ")):
		default:
			stray = append(stray, p+": "+kind)
		}
	}
	if len(stray) > 0 {
		sort.Strings(stray)
		t.Errorf("%s: written into the user's cache outside cairn's search index:\n%s", what, strings.Join(stray, "\n"))
	}
}

// ---- Small helpers ----

func numCPU() int { return runtime.NumCPU() }

// TestEveryTestIsGated reads the package's sources: every test starts by calling smoke or heavy,
// so that none runs (or builds the binaries) unless it is meant to, and none skips without its
// name.
func TestEveryTestIsGated(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files here: %v", err)
	}
	fset := token.NewFileSet()
	n := 0
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" || fn.Name.Name == "TestEveryTestIsGated" {
				continue
			}
			n++
			if !startsWithGate(fn) {
				t.Errorf("%s: %s does not start with smoke(t) or heavy(t, …)", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
	if n < 10 {
		t.Fatalf("found %d tests: the parse is wrong", n)
	}
}

func startsWithGate(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	es, ok := fn.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && (id.Name == "smoke" || id.Name == "heavy")
}
