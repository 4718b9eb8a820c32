//go:build linux

package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairn-hooks/cairn/pkg/project"
)

// The hostile-repository suite: a repository is untrusted input. It can commit symlinks to
// devices, FIFOs, directories and files outside the project, FIFOs and huge files at the paths
// cairn reads and writes, a settings.json naming its own binaries, and it can swap a directory
// for a symlink while cairn works in it. On such a project every hook must exit 0 with
// protocol-only stdout within 1 s and 64 MiB (docs/DESIGN.md, Budgets), the CLI must exit 0 or
// refuse with one line, never hang and stay within 64 MiB, and nothing outside the project may be
// created, changed or removed — checked by hashing a sentinel tree outside before and after.

// Budgets of a process on a hostile project. The time budget is CPU time (user + system, the
// process and its children): wall-clock time measures the machine's load as much as the hook, so
// a test that asserted it would fail on a busy CI machine; a hang is caught by hostileLimit.
const (
	hostileCPU = time.Second
	hostileRSS = 64 << 10 // KiB
	// hostileLimit is when a hook counts as hung: far above its budget, so that a machine under
	// heavy load (CI has met a load of 40 on 2 cores) is not taken for a hang.
	hostileLimit = 30 * time.Second
	// cliLimit is when the CLI counts as hung: above the 10 s for which cairn lets a git child
	// run (context save runs git status, session summary git log), since git itself blocks on
	// a FIFO in .git.
	cliLimit = 60 * time.Second
	// hugeSize is the huge regular file planted at a state path: sparse, made at test time.
	hugeSize = 300 << 20
)

// outsideSecret is the content of the files outside the project that symlinks point at: it must
// never reach a hook's or the CLI's output, nor any file in the project.
const outsideSecret = "cairn-outside-secret-7f3a: read through a symlink out of the project"

// gnuTime is GNU time, which measures a child's peak RSS from a 1 MiB process; "" when absent.
// The rusage os/exec returns cannot be used: Go starts a child as a vfork of the test process,
// and Linux carries the RSS of the image before exec into ru_maxrss (docs/BENCHMARKS.md).
var gnuTime = sync.OnceValue(func() string {
	out, err := exec.Command("/usr/bin/time", "--version").CombinedOutput()
	if err == nil && strings.Contains(string(out), "GNU") {
		return "/usr/bin/time"
	}
	return ""
})

// measured is a finished process with its peak RSS.
type measured struct {
	result
	rssKiB   int64         // -1 when not measured
	cpu      time.Duration // user + system time of the process and what it waited for
	timedOut bool
}

// runMeasured runs s under GNU time, in a process group of its own so that a process still
// running after limit is killed with everything it started.
func (m *machine) runMeasured(s spec, limit time.Duration) measured {
	m.t.Helper()
	return m.runArgv(append([]string{filepath.Join(binDir, s.name)}, s.args...), s, limit)
}

// runArgv is runMeasured for any program: argv[0] is its path; s gives the rest.
func (m *machine) runArgv(argv []string, s spec, limit time.Duration) measured {
	m.t.Helper()
	rusage := filepath.Join(m.dir, "rusage")
	os.Remove(rusage)
	if gnuTime() != "" {
		argv = append([]string{gnuTime(), "-q", "-f", "%M", "-o", rusage}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	if cmd.Dir == "" {
		cmd.Dir = m.proj
	}
	cmd.Env = m.env(s.env...)
	cmd.Stdin = s.stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		m.t.Fatalf("starting %s: %v", s.name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var out measured
	select {
	case <-done:
	case <-time.After(limit):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group is ours: its leader is not yet waited for
		<-done
		out.timedOut = true
	}
	out.result = result{name: s.name, args: s.args, stdout: stdout.String(), stderr: stderr.String(), dur: time.Since(began)}
	out.code = cmd.ProcessState.ExitCode()
	out.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() // GNU time's include its child's
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() || out.code > 128 && gnuTime() != "" {
		out.code, out.killed = -1, true // GNU time exits 128+n for a child killed by signal n
	}
	out.rssKiB = -1
	if data, err := os.ReadFile(rusage); err == nil {
		if f := strings.Fields(string(data)); len(f) > 0 {
			out.rssKiB, _ = strconv.ParseInt(f[len(f)-1], 10, 64)
		}
	}
	return out
}

func (r measured) String() string {
	return fmt.Sprintf("%v\npeak RSS %d KiB, timed out %v", r.result, r.rssKiB, r.timedOut)
}

// budgetProblem checks a process against the hostile-project budget: no hang, 64 MiB, and for
// a hook 1 s.
func budgetProblem(r measured, hook bool) string {
	switch {
	case r.timedOut:
		return fmt.Sprintf("HANG: still running after %v, killed", r.dur.Round(time.Second))
	case r.rssKiB > hostileRSS:
		return fmt.Sprintf("peak RSS %d KiB, over the %d KiB budget", r.rssKiB, hostileRSS)
	case hook && r.cpu > hostileCPU:
		return fmt.Sprintf("used %v of CPU, over the %v budget", r.cpu.Round(time.Millisecond), hostileCPU)
	}
	return ""
}

// peaks keeps the slowest run and the largest peak RSS of each kind of process, for the report.
type peaks struct {
	mu    sync.Mutex
	order []string
	m     map[string]*peak
}

type peak struct {
	runs           int
	wall           time.Duration
	wallCase       string
	rssKiB         int64
	rssCase        string
	sumWall        time.Duration
	overWallRepeat int
}

func (p *peaks) add(label, cse string, r measured) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]*peak{}
	}
	k, ok := p.m[label]
	if !ok {
		k = &peak{}
		p.m[label] = k
		p.order = append(p.order, label)
	}
	k.runs++
	k.sumWall += r.dur
	if r.dur > k.wall {
		k.wall, k.wallCase = r.dur, cse
	}
	if r.rssKiB > k.rssKiB {
		k.rssKiB, k.rssCase = r.rssKiB, cse
	}
}

// table is the figures as a markdown table.
func (p *peaks) table() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	b.WriteString("| process | runs | mean wall | max wall (case) | max RSS (case) |\n|---|---:|---:|---|---|\n")
	for _, l := range p.order {
		k := p.m[l]
		fmt.Fprintf(&b, "| %s | %d | %.1f ms | %.1f ms (%s) | %.1f MiB (%s) |\n", l, k.runs,
			float64(k.sumWall.Microseconds())/1000/float64(k.runs), float64(k.wall.Microseconds())/1000, k.wallCase,
			float64(k.rssKiB)/1024, k.rssCase)
	}
	return b.String()
}

// maxOf returns the largest wall time and RSS over labels matching keep.
func (p *peaks) maxOf(keep func(string) bool) (time.Duration, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var w time.Duration
	var r int64
	for l, k := range p.m {
		if keep(l) {
			w, r = max(w, k.wall), max(r, k.rssKiB)
		}
	}
	return w, r
}

// hostileOutside makes the sentinel tree outside the project that the shapes point at: a file
// and a directory holding the secret, a FIFO, and a directory where dangling links point (so
// that a write through one would create a file there and show in the snapshot).
func hostileOutside(m *machine) {
	m.t.Helper()
	m.write(filepath.Join(m.outside, "secret.txt"), outsideSecret+"\n")
	m.write(filepath.Join(m.outside, "dir", "secret.md"), outsideSecret+"\n")
	if err := os.MkdirAll(filepath.Join(m.outside, "dangling"), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(m.outside, "fifo"), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// hostileShape is one thing a repository can put at a path.
type hostileShape struct {
	name  string
	plant func(m *machine, p, flat string) error
}

var hostileShapes = []hostileShape{
	{"symlink to /dev/zero", func(m *machine, p, _ string) error { return os.Symlink("/dev/zero", p) }},
	{"symlink to a FIFO outside", func(m *machine, p, _ string) error { return os.Symlink(filepath.Join(m.outside, "fifo"), p) }},
	{"FIFO", func(m *machine, p, _ string) error { return syscall.Mkfifo(p, 0o644) }},
	{"symlink to a directory inside", func(m *machine, p, _ string) error {
		dir := m.p(".hostile/dir")
		m.write(filepath.Join(dir, "inside.md"), "# a directory inside the project\n")
		rel, err := filepath.Rel(filepath.Dir(p), dir)
		if err != nil {
			return err
		}
		return os.Symlink(rel, p)
	}},
	{"symlink to a file outside", func(m *machine, p, _ string) error { return os.Symlink(filepath.Join(m.outside, "secret.txt"), p) }},
	{"symlink to a directory outside", func(m *machine, p, _ string) error { return os.Symlink(filepath.Join(m.outside, "dir"), p) }},
	{"huge sparse file", func(m *machine, p, _ string) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		// A line at the start, so that a reader that does read it finds something to parse.
		f.WriteString("{\"huge\":\"" + strings.Repeat("x", 100) + "\"}\n")
		return f.Truncate(hugeSize)
	}},
	{"huge sparse file of 1 MiB lines", func(m *machine, p, _ string) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		// Lines longer than any reader's window that do end, so that a reader that skips a
		// line finds its end, and then the next one, and so on through 300 MB.
		for off := int64(1 << 20); off < hugeSize; off += 1 << 20 {
			if _, err := f.WriteAt([]byte{'\n'}, off-1); err != nil {
				return err
			}
		}
		return f.Truncate(hugeSize)
	}},
	{"dangling symlink", func(m *machine, p, flat string) error {
		return os.Symlink(filepath.Join(m.outside, "dangling", flat), p)
	}},
}

// statePath is a path cairn reads or writes: relative to the project, or (config) to Claude's
// config directory, where {slug} is the project's slug and {session} the session id.
type statePath struct {
	rel    string
	config bool
}

func (sp statePath) abs(m *machine) string {
	if !sp.config {
		return m.p(sp.rel)
	}
	rel := strings.NewReplacer("{slug}", project.Slug(m.proj), "{session}", hostSession).Replace(sp.rel)
	return filepath.Join(m.config, filepath.FromSlash(rel))
}

func (sp statePath) String() string {
	if sp.config {
		return "<config>/" + sp.rel
	}
	return sp.rel
}

// hostileStatePaths are the paths cairn reads or writes (docs/DESIGN.md, Where state lives),
// files and the directories above them; locks are added from what the writers create.
func hostileStatePaths() []statePath {
	var out []statePath
	for _, rel := range []string{
		".agents/runs/active", ".agents/runs/r1/state.json", ".agents/runs/r1/MEMORY.md",
		"AGENTS.md", ".agents/rules/style.md", ".agents/lessons-learned.md",
		fileContext, fileSessions, fileEvents, fileCkptIndex, fileLog,
		fileAudit, ".claude/logs/session-archive.jsonl",
		fileTimeline, "memory/context.md", "memory/learnings.jsonl",
		"memory/projects/proj/checkpoints/{checkpoint}",
		".temp/output-session-summary-{today}.md", ".git/HEAD",
		".claude/settings.json", ".claude/settings.local.json", ".claude/skills/session/SKILL.md",
		// Directories.
		".claude", ".claude/state", ".claude/state/locks", ".claude/logs", ".claude/skills",
		".agents", ".agents/runs", ".agents/runs/r1", ".agents/rules",
		".notes", ".notes/logs", "memory", "memory/projects/proj/checkpoints", ".temp", ".git",
	} {
		out = append(out, statePath{rel: rel})
	}
	for _, rel := range []string{
		"projects/{slug}/memory/session-open-legacy.md", "projects/{slug}/memory", "projects/{slug}",
		"tasks/{session}/1.json", "tasks/{session}",
	} {
		out = append(out, statePath{rel: rel, config: true})
	}
	return out
}

// seedHostileProbe is the project every case starts from: seedForDisk's (an active run, parked,
// archived and legacy-audited items, a broadcast, checkpoints, a registered session), the files
// of the read order, the memory files and the summary directory, and every lock file the writers
// take.
func seedHostileProbe(t *testing.T) *machine {
	t.Helper()
	probe := newMachine(t)
	seedForDisk(t, probe)
	allWriters(probe, "pre")
	probe.write(probe.p("AGENTS.md"), "# Agents\n")
	probe.write(probe.p(".agents/rules/style.md"), "# Style\n")
	probe.write(probe.p(".agents/lessons-learned.md"), "# Lessons\n")
	probe.write(probe.p("memory/context.md"), "# Context\n")
	probe.write(probe.p("memory/learnings.jsonl"), `{"learning":"seeded"}`+"\n")
	probe.write(probe.p(".claude/logs/session-archive.jsonl"), `{"ts":"2026-01-01T00:00:00Z","item":"legacy","action":"archived","text":"legacy"}`+"\n")
	probe.write(probe.p(".claude/settings.json"), "{}\n")
	probe.write(probe.p(".claude/settings.local.json"), "{}\n")
	probe.write(probe.p(".claude/skills/session/SKILL.md"), "# not cairn's skill\n")
	if err := os.MkdirAll(probe.p(".temp"), 0o755); err != nil {
		t.Fatal(err)
	}
	return probe
}

// seedHostileConfig writes what Claude Code keeps for m's project in the config directory: a
// legacy parked item and a task list of the session (the config directory is not cloned).
func seedHostileConfig(m *machine) {
	m.t.Helper()
	mem := filepath.Join(m.config, "projects", project.Slug(m.proj), "memory")
	m.write(filepath.Join(mem, "session-open-legacy.md"), "---\nname: legacy\ndescription: a legacy parked item\ntype: project\n---\nlegacy body\n")
	m.write(filepath.Join(m.config, "tasks", hostSession, "1.json"), `{"id":"1","subject":"a task","status":"in_progress"}`+"\n")
}

// hostileRun is one process of a case.
type hostileRun struct {
	label string
	hook  string         // a hook binary, or "" for the CLI
	args  []string       // the CLI's arguments
	set   map[string]any // payload fields over basePayload
}

// hostileSummary is the compaction summary the hostile cases' PostCompact keeps: where cairn's
// own state is what was planted (the catalog, the lock directory), the case checks that it is
// kept all the same — the hooks heal that state and do their job, not only exit 0.
const hostileSummary = "HOSTILE-CASE-SUMMARY: the hooks kept working"

// healedPaths are the state paths a hook repairs when a clone planted something there.
var healedPaths = map[string]bool{fileCkptIndex: true, safefileLockDir: true}

// hostileRuns are every hook (sessionstart from each source, userpromptsubmit with a deferral
// and with an answer) and every CLI command that reads the state paths.
func hostileRuns() []hostileRun {
	return []hostileRun{
		{label: "sessionstart startup", hook: "sessionstart", set: map[string]any{"source": "startup"}},
		{label: "sessionstart compact", hook: "sessionstart", set: map[string]any{"source": "compact"}},
		{label: "sessionstart resume", hook: "sessionstart", set: map[string]any{"source": "resume"}},
		{label: "userpromptsubmit deferral", hook: "userpromptsubmit", set: map[string]any{"prompt": "let's come back to the hostile idea later"}},
		{label: "userpromptsubmit answer", hook: "userpromptsubmit", set: map[string]any{"prompt": "yes, go ahead with that"}},
		{label: "precompact", hook: "precompact"},
		{label: "postcompact", hook: "postcompact", set: map[string]any{"compact_summary": hostileSummary}},
		{label: "sessionend", hook: "sessionend", set: map[string]any{"reason": "other"}},
		{label: "cairn session resume", args: []string{"session", "resume"}},
		{label: "cairn session archive", args: []string{"session", "archive", "keep-one"}},
		{label: "cairn session summary", args: []string{"session", "summary"}},
		{label: "cairn session park", args: []string{"session", "park", "deferred", "a hostile idea", "planted by the suite", "--slug", "hostile-park"}},
		{label: "cairn context save", args: []string{"context", "save", "hostile-save", "--summary", "s"}},
		{label: "cairn context list", args: []string{"context", "list", "--all"}},
		{label: "cairn context restore", args: []string{"context", "restore"}},
		{label: "cairn search", args: []string{"search", "hostile"}},
		{label: "cairn search --kind saved", args: []string{"search", "--kind", "saved", "cache"}},
		{label: "cairn run show", args: []string{"run", "show"}},
		{label: "cairn run set", args: []string{"run", "set", "hostile_key=v"}},
		{label: "cairn doctor", args: []string{"doctor"}},
	}
}

// runHostile runs one process of a case and checks it: the hook or CLI contract, the budget, and
// that the outside secret reaches no output. It returns the failure, or "".
func (m *machine) runHostile(hr hostileRun, tr string) (measured, string) {
	m.t.Helper()
	s := spec{env: []string{"CLAUDE_CODE_SESSION_ID=" + hostSession}}
	if hr.hook != "" {
		f := basePayload(m, hr.hook, tr)
		for k, v := range hr.set {
			f[k] = v
		}
		s = spec{name: hr.hook, stdin: bytes.NewReader(payload(hookEvents[hr.hook], f))}
	} else {
		s.name, s.args = "cairn", hr.args
	}
	limit := hostileLimit
	if hr.hook == "" {
		limit = cliLimit
	}
	r := m.runMeasured(s, limit)
	var p string
	if hr.hook != "" {
		p = hookProblem(r.result)
	} else {
		p = cliProblem(r.result)
		if p == "" && r.code > 1 {
			p = fmt.Sprintf("exit %d: want 0, or 1 for a refusal", r.code)
		}
	}
	if r.timedOut || r.killed {
		p = "" // the budget says why
	}
	if b := budgetProblem(r, hr.hook != ""); b != "" {
		p = strings.TrimPrefix(p+"; "+b, "; ")
	}
	if strings.Contains(r.stdout+r.stderr, "cairn-outside-secret") {
		p = strings.TrimPrefix(p+"; the content of a file outside the project reached the output", "; ")
	}
	return r, p
}

// secretInProject lists the project's files (up to 1 MiB each, .git and the huge file left out)
// that hold the outside secret: something copied it in through a link.
func secretInProject(m *machine) []string {
	var out []string
	filepath.WalkDir(m.proj, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 1<<20 {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte("cairn-outside-secret")) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestHostileRepo plants each hostile shape — a symlink to /dev/zero, to a FIFO outside, a FIFO,
// a symlink to a directory inside, to a file outside, to a directory outside, a 300 MB sparse
// file, a dangling symlink — at each path cairn reads or writes (state files, logs, locks, the
// read order, checkpoints, the summary file, .git/HEAD, settings and skills, every directory
// above them, and Claude's legacy items and task lists), then runs every hook and every CLI
// command that reads those paths. Each process: exit 0 (the CLI 0 or 1 with one line), protocol-
// only stdout, no hang, within 64 MiB and, for a hook, 1 s. Each case: the sentinel tree outside
// hashes the same, and nothing read through a link reaches an output or a project file.
func TestHostileRepo(t *testing.T) {
	heavy(t, "300 MB sparse files and links to /dev/zero at every path cairn reads: about 10,000 processes")
	if gnuTime() == "" {
		t.Log("GNU time (/usr/bin/time) not found: peak memory is not measured")
	}
	probe := seedHostileProbe(t)
	paths := hostileStatePaths()
	// Every lock file the writers took, and one checkpoint standing for all.
	locks, _ := os.ReadDir(probe.p(safefileLockDir))
	for _, e := range locks {
		paths = append(paths, statePath{rel: safefileLockDir + "/" + e.Name()})
	}
	ckpts, _ := filepath.Glob(probe.p("memory/projects/proj/checkpoints/*.md"))
	if len(ckpts) == 0 {
		t.Fatal("the probe has no checkpoint")
	}
	today := time.Now().UTC().Format("2006-01-02")
	for i, sp := range paths {
		paths[i].rel = strings.NewReplacer("{checkpoint}", filepath.Base(ckpts[0]), "{today}", today).Replace(sp.rel)
	}
	runs := hostileRuns()
	var stats peaks
	total, refused, cases := 0, 0, 0
	var failures []string
	for _, sp := range paths {
		for _, sh := range hostileShapes {
			name := sp.String() + " = " + sh.name
			t.Run(strings.NewReplacer("/", "_", " ", "_").Replace(name), func(t *testing.T) {
				m := probe.clone(t)
				hostileOutside(m)
				seedHostileConfig(m)
				p := sp.abs(m)
				flat := strings.NewReplacer("/", "_", "{", "", "}", "").Replace(sp.rel)
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := sh.plant(m, p, flat); err != nil {
					t.Fatalf("planting %s at %s: %v", sh.name, sp, err)
				}
				cases++
				outside := snapshot(t, m.outsideDirs()...)
				tr := filepath.Join(m.transcripts, "seed.jsonl")
				for _, hr := range runs {
					r, problem := m.runHostile(hr, tr)
					total++
					if hr.hook == "" && r.code == 1 {
						refused++
					}
					stats.add(hr.label, name, r)
					if problem != "" {
						t.Errorf("%s at %s: %s: %s\n%v", sh.name, sp, hr.label, problem, r)
						failures = append(failures, fmt.Sprintf("%s at %s: %s: %s", sh.name, sp, hr.label, problem))
					}
				}
				if healedPaths[sp.rel] && !summaryKept(m) {
					t.Errorf("%s at %s: no automatic checkpoint keeps PostCompact's summary: the planted state turned checkpoints off", sh.name, sp)
					failures = append(failures, fmt.Sprintf("%s at %s: summary not kept", sh.name, sp))
				}
				if d := outside.diff(snapshot(t, m.outsideDirs()...)); len(d) > 0 {
					t.Errorf("%s at %s: written outside the project:\n%s", sh.name, sp, strings.Join(d, "\n"))
					failures = append(failures, fmt.Sprintf("%s at %s: written outside: %s", sh.name, sp, strings.Join(d, ", ")))
				}
				if leaked := secretInProject(m); len(leaked) > 0 {
					t.Errorf("%s at %s: the content of a file outside was copied into the project: %s", sh.name, sp, strings.Join(leaked, " "))
					failures = append(failures, fmt.Sprintf("%s at %s: outside content copied into %s", sh.name, sp, strings.Join(leaked, " ")))
				}
			})
		}
	}
	t.Logf("figures on the hostile project (%d cases, %d processes):\n%s", cases, total, stats.table())
	hw, hr := stats.maxOf(func(l string) bool { return !strings.HasPrefix(l, "cairn ") })
	cw, cr := stats.maxOf(func(l string) bool { return strings.HasPrefix(l, "cairn ") })
	shapes := make([]string, len(hostileShapes))
	for i, s := range hostileShapes {
		shapes[i] = s.name
	}
	where := make([]string, len(paths))
	for i, sp := range paths {
		where[i] = sp.String()
	}
	held := fmt.Sprintf("hooks exit 0 with protocol-only stdout, slowest %v, largest %.1f MiB (budget 1 s of CPU, 64 MiB); the CLI exits 0 or refuses with one line (%d refusals), never hangs, slowest %v, largest %.1f MiB; the sentinel tree outside hashes the same after every case; nothing read through a link reaches an output or a project file",
		hw.Round(time.Millisecond), float64(hr)/1024, refused, cw.Round(time.Millisecond), float64(cr)/1024)
	if gnuTime() == "" {
		held += " (peak memory not measured: GNU time missing)"
	}
	if len(failures) > 0 {
		sort.Strings(failures)
		held = fmt.Sprintf("**FAILED** %d times: %s. Everything else held: %s", len(failures), strings.Join(clip(failures, 12), "; "), held)
	}
	record("TestHostileRepo", fmt.Sprintf("each of %d shapes (%s) planted at each of %d paths (%s); in each of the %d cases all %d processes: sessionstart (startup, compact, resume), userpromptsubmit (a deferral, an answer), precompact, sessionend, and cairn session resume/archive/summary/park, context save/list/restore, run show/set, doctor, each under GNU time",
		len(hostileShapes), strings.Join(shapes, ", "), len(paths), strings.Join(where, ", "), cases, len(runs)), total, held)
}

// TestHostileRepoHugeLogs commits an audit log and a timeline of 40 MB each, well-formed lines
// of random words — the worst case for a search index, whose memory grows with distinct words —
// and runs every process, the first search on an empty index cache: each keeps the hostile
// project's budget (the CLI: no hang, 64 MiB).
func TestHostileRepoHugeLogs(t *testing.T) {
	heavy(t, "40 MB logs, indexed from an empty cache")
	m := seedHostileProbe(t).clone(t)
	hostileOutside(m)
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(b []byte) []byte {
		for range 8 {
			b = append(b, byte('a'+rng.IntN(26)))
		}
		return append(b, ' ')
	}
	for _, log := range []struct{ rel, line string }{
		{".notes/logs/session-archive.jsonl", `{"ts":"2026-11-01T10:00:00Z","item":"item-%d","action":"archived","text":"- **item-%d** — Deferred: %s."}`},
		{"memory/timeline.jsonl", `{"ts":"2026-11-01T10:00:00Z","event":"session_start","session":"s%d","branch":"b%d %s","source":"startup"}`},
	} {
		var buf bytes.Buffer
		for i := 0; buf.Len() < 40<<20; i++ {
			var words []byte
			for range 20 {
				words = word(words)
			}
			fmt.Fprintf(&buf, log.line+"\n", i, i, bytes.TrimSpace(words))
		}
		if err := os.MkdirAll(filepath.Dir(m.p(log.rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m.p(log.rel), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(m.cache); err != nil {
		t.Fatal(err)
	}
	outside := snapshot(t, m.outsideDirs()...)
	tr := filepath.Join(m.transcripts, "seed.jsonl")
	var stats peaks
	runs := append([]hostileRun{{label: "cairn search (cold)", args: []string{"search", "zzz"}}}, hostileRuns()...)
	for _, hr := range runs {
		r, problem := m.runHostile(hr, tr)
		stats.add(hr.label, "huge logs", r)
		if problem != "" {
			t.Errorf("%s: %s\n%v", hr.label, problem, r)
		}
	}
	if d := outside.diff(snapshot(t, m.outsideDirs()...)); len(d) > 0 {
		t.Errorf("written outside the project:\n%s", strings.Join(d, "\n"))
	}
	t.Logf("figures with two 40 MB logs of random words:\n%s", stats.table())
	cw, cr := stats.maxOf(func(l string) bool { return strings.HasPrefix(l, "cairn ") })
	record("TestHostileRepoHugeLogs", "an audit log and a timeline of 40 MB each, lines of random words, committed; every hook and CLI command run once, the first a search on an empty index cache", len(runs),
		verdict(t, fmt.Sprintf("every process within the hostile budget; the CLI's slowest %v, largest %.1f MiB", cw.Round(time.Millisecond), float64(cr)/1024)))
}

// safefileLockDir is safefile.LockDir with forward slashes.
const safefileLockDir = ".claude/state/locks"

func clip(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("… %d more", len(s)-n))
}

// TestHostileRepoSwappedSymlinks swaps a state directory or file between the real thing and a
// symlink to a copy of it outside the project, atomically (renameat2 RENAME_EXCHANGE) and in a
// loop, while every writer runs: a check made before a write proves nothing here, so only
// confinement at the moment of use keeps the writes in. Nothing outside may change.
func TestHostileRepoSwappedSymlinks(t *testing.T) {
	heavy(t, "directories swapped for symlinks in a loop while the writers run")
	probe := seedHostileProbe(t)
	tries := envInt("CAIRN_RELIABILITY_SWAPS", 10, 3, 3)
	targets := []string{
		".claude/state", ".claude/state/locks", ".notes/logs", ".agents/runs/r1",
		"memory/projects/proj/checkpoints", "memory",
		fileContext, fileEvents, fileAudit, fileTimeline, ".agents/runs/r1/state.json",
	}
	runs, swaps := 0, int64(0)
	for _, rel := range targets {
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			m := probe.clone(t)
			p := m.p(rel)
			copy := filepath.Join(m.outside, "swapped", strings.ReplaceAll(rel, "/", "_"))
			if err := os.MkdirAll(filepath.Dir(copy), 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("cp", "-a", p, copy).CombinedOutput(); err != nil {
				t.Fatalf("cp -a %s %s: %v: %s", p, copy, err, out)
			}
			link := p + ".swap"
			if err := os.Symlink(copy, link); err != nil {
				t.Fatal(err)
			}
			outside := snapshot(t, m.outsideDirs()...)
			stop := make(chan struct{})
			var n atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					err := unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
					if errors.Is(err, unix.ENOENT) {
						// A lock directory found to be a link out is moved aside and made again
						// (safefile's repair): for a moment there is nothing to swap.
						time.Sleep(100 * time.Microsecond)
						continue
					}
					if err != nil {
						t.Errorf("renameat2 RENAME_EXCHANGE: %v", err)
						return
					}
					n.Add(1)
					time.Sleep(100 * time.Microsecond) // the machine is shared: no busy loop
				}
			}()
			for i := 0; i < tries; i++ {
				runs += len(allWriters(m, fmt.Sprintf("swap%d", i)))
			}
			close(stop)
			wg.Wait()
			if n.Load()%2 == 1 { // the link has the real name: swap back
				unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
			}
			swaps += n.Load()
			t.Logf("%s: %d swaps during %d rounds of the writers", rel, n.Load(), tries)
			if n.Load() < int64(tries) {
				t.Errorf("only %d swaps: the race was not exercised", n.Load())
			}
			m.checkUnchanged(t, rel+" swapped with a symlink out", outside)
		})
	}
	record("TestHostileRepoSwappedSymlinks", fmt.Sprintf("each of %d paths (%s) swapped atomically (renameat2 RENAME_EXCHANGE, every 0.1 ms) between the real directory or file and a symlink to a copy of it outside, while all 19 writers and readers ran %d times; %d swaps in all", len(targets), strings.Join(targets, ", "), tries, swaps), runs,
		verdict(t, "nothing outside changed: no write, create, rename or remove followed a swapped-in link (confinement at the moment of use); hooks exit 0 with protocol-only stdout; the CLI refuses with one line"))
}

// executedSentinel is the file a repository's fake binary creates outside when it runs.
func executedSentinel(m *machine, name string) string {
	return filepath.Join(m.outside, "EXECUTED-"+strings.ReplaceAll(name, "/", "_"))
}

// TestHostileRepoDoctor commits a settings.json and a settings.local.json whose hooks and
// permission rule name binaries inside the repository — by $CLAUDE_PROJECT_DIR, by an absolute
// path into the repository, relatively, in exec and in shell form — that would create a file
// outside if executed, then runs doctor and everything else: the file never appears. The same
// binaries as FIFOs, links to /dev/zero and Go binaries padded to 300 MB must not stall doctor
// or take it over 64 MiB.
func TestHostileRepoDoctor(t *testing.T) {
	heavy(t, "binaries padded to 300 MB, FIFOs and links to /dev/zero for doctor")
	names := []string{"sessionstart", "userpromptsubmit", "precompact", "sessionend", "cairn"}
	dirs := []string{".claude/cairn/bin", "tools/cairn/bin", "bin"}
	kinds := []struct {
		name  string
		plant func(m *machine, p, rel string) error
	}{
		{"scripts that record their execution", func(m *machine, p, rel string) error {
			return os.WriteFile(p, []byte("#!/bin/sh\necho executed > '"+executedSentinel(m, rel)+"'\n"), 0o755)
		}},
		{"FIFOs", func(m *machine, p, _ string) error { return syscall.Mkfifo(p, 0o755) }},
		{"symlinks to /dev/zero", func(m *machine, p, _ string) error { return os.Symlink("/dev/zero", p) }},
		{"cairn's own binaries padded to 300 MB", func(m *machine, p, _ string) error {
			src := filepath.Join(binDir, filepath.Base(p))
			if out, err := exec.Command("cp", src, p).CombinedOutput(); err != nil {
				return fmt.Errorf("cp: %v: %s", err, out)
			}
			return os.Truncate(p, hugeSize)
		}},
	}
	var stats peaks
	runs := 0
	for _, k := range kinds {
		t.Run(strings.ReplaceAll(k.name, " ", "_"), func(t *testing.T) {
			m := newMachine(t)
			seedProject(t, m)
			hostileOutside(m)
			for _, d := range dirs {
				for _, n := range names {
					rel := d + "/" + n
					if err := os.MkdirAll(m.p(d), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := k.plant(m, m.p(rel), rel); err != nil {
						t.Fatal(err)
					}
				}
			}
			abs := m.proj + "/.claude/cairn/bin/"
			hook := func(cmd string, exec bool) string {
				if exec {
					return fmt.Sprintf(`[{"matcher":"","hooks":[{"type":"command","command":%q,"args":[]}]}]`, cmd)
				}
				return fmt.Sprintf(`[{"matcher":"","hooks":[{"type":"command","command":%q}]}]`, cmd)
			}
			m.write(m.p(".claude/settings.json"), fmt.Sprintf(`{
  "permissions": {"allow": ["Bash(%scairn:*)", "Bash(./bin/cairn:*)"]},
  "statusLine": {"type": "command", "command": "bin/cairn"},
  "hooks": {
    "SessionStart": %s,
    "UserPromptSubmit": %s,
    "PreCompact": %s,
    "SessionEnd": %s
  }
}
`, abs, hook("$CLAUDE_PROJECT_DIR/.claude/cairn/bin/sessionstart", true), hook(abs+"userpromptsubmit", true),
				hook(".claude/cairn/bin/precompact", false), hook(`"$CLAUDE_PROJECT_DIR"/tools/cairn/bin/sessionend --flag`, false)))
			m.write(m.p(".claude/settings.local.json"), fmt.Sprintf(`{"hooks": {"SessionStart": %s, "PreCompact": %s, "SessionEnd": %s}}
`, hook("./tools/cairn/bin/sessionstart", true), hook("${CLAUDE_PROJECT_DIR}/bin/precompact", false), hook(m.proj+"/tools/cairn/bin/sessionend", true)))
			outside := snapshot(t, m.outsideDirs()...)
			tr := filepath.Join(m.transcripts, "seed.jsonl")
			all := append([]hostileRun{{label: "cairn doctor --json", args: []string{"doctor", "--json"}}}, hostileRuns()...)
			for _, hr := range all {
				r, problem := m.runHostile(hr, tr)
				runs++
				stats.add(hr.label, k.name, r)
				if problem != "" {
					t.Errorf("repository binaries as %s: %s: %s\n%v", k.name, hr.label, problem, r)
				}
				if hr.label == "cairn doctor" && !strings.Contains(r.stdout, "hook SessionStart") {
					t.Errorf("doctor did not check the wiring:\n%v", r)
				}
			}
			for _, d := range dirs {
				for _, n := range names {
					if _, err := os.Stat(executedSentinel(m, d+"/"+n)); err == nil {
						t.Errorf("EXECUTED: the repository's %s/%s ran", d, n)
					}
				}
			}
			m.checkUnchanged(t, "repository binaries as "+k.name, outside)
		})
	}
	t.Logf("figures:\n%s", stats.table())
	dw, dr := stats.maxOf(func(l string) bool { return strings.HasPrefix(l, "cairn doctor") })
	record("TestHostileRepoDoctor", fmt.Sprintf("a committed settings.json and settings.local.json whose hooks, permission rules and status line name the repository's own binaries (%s in %s) by $CLAUDE_PROJECT_DIR, an absolute path into the repository and relative paths, in exec and shell form; the binaries as %d kinds: scripts that create a file outside when run, FIFOs, links to /dev/zero, cairn's own binaries padded to 300 MB; doctor, doctor --json and every hook and CLI command", strings.Join(names, ", "), strings.Join(dirs, ", "), len(kinds)), runs,
		verdict(t, fmt.Sprintf("no repository binary ever ran (the sentinel never appeared); doctor checked the wiring from the build information without executing anything, slowest %v, largest %.1f MiB; nothing outside changed", dw.Round(time.Millisecond), float64(dr)/1024)))
}

// installGoEnv is the test process's Go environment: install.sh builds with the same caches
// although its HOME is the fake one (as testscripts' goEnv does).
var installGoEnv = sync.OnceValues(func() ([]string, error) {
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOTOOLCHAIN", "GOFLAGS", "GOPROXY"}
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	if err != nil {
		return nil, err
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

// installSH runs the repository's install.sh with args in m's project.
func (m *machine) installSH(limit time.Duration, args ...string) measured {
	m.t.Helper()
	env, err := installGoEnv()
	if err != nil {
		m.t.Fatal(err)
	}
	src, err := filepath.Abs(moduleRoot)
	if err != nil {
		m.t.Fatal(err)
	}
	// go build keeps telemetry counters under the user's config directory: that is the Go
	// toolchain's doing, not install.sh's, so it goes outside the sentinel tree.
	env = append(env, "XDG_CONFIG_HOME="+filepath.Join(m.dir, "xdg"))
	return m.runArgv(append([]string{"/bin/sh", filepath.Join(src, "install.sh")}, args...), spec{name: "install.sh", args: args, env: env}, limit)
}

// userInstall gives m's user a cairn installed at user scope, as install.sh --user leaves it —
// binaries in <config>/cairn/bin, hooks in <config>/settings.json, skills in <config>/skills —
// and another project outside with a project-scope install: what an install or uninstall
// through a committed symlink would overwrite or delete.
func userInstall(m *machine) (other string) {
	m.t.Helper()
	other = filepath.Join(m.outside, "other")
	for _, dir := range []string{filepath.Join(m.config, "cairn", "bin"), filepath.Join(other, ".claude", "cairn", "bin")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			m.t.Fatal(err)
		}
		if out, err := exec.Command("sh", "-c", `cp "$0"/* "$1"/`, binDir, dir).CombinedOutput(); err != nil {
			m.t.Fatalf("copying the binaries: %v: %s", err, out)
		}
	}
	m.write(filepath.Join(other, ".claude", "cairn", "bin", ".gitignore"), "*\n")
	for _, args := range [][]string{
		{"install", "--user", "--bin", filepath.Join(m.config, "cairn", "bin")},
		{"install", "--project", other, "--bin", filepath.Join(other, ".claude", "cairn", "bin")},
	} {
		if r := m.run(spec{name: "cairn", args: args}); r.code != 0 {
			m.t.Fatalf("setting up: %v", r)
		}
	}
	return other
}

// TestHostileRepoInstall runs install.sh and install.sh --uninstall on projects whose .claude,
// .claude/cairn or .claude/cairn/bin is a committed symlink — to the user's own ~/.claude, where
// cairn is installed at user scope, and to another project's .claude outside — and with --user
// when the config directory's cairn or bin is one: each is refused before anything is written,
// and nothing outside changes. Then the files a repository can commit inside a real bin
// directory (links where install.sh writes its .gitignore and its temporary copies, a cairn of
// its own that --uninstall would run), and cairn install and uninstall, which install.sh runs,
// against a hostile settings.json, settings.local.json and skill.
func TestHostileRepoInstall(t *testing.T) {
	heavy(t, "install.sh, which builds cairn, on every hostile project")
	runs, refused, cliRefused := 0, 0, 0
	var slowest time.Duration
	check := func(t *testing.T, what string, m *machine, r measured, wantRefused bool) {
		t.Helper()
		runs++
		if wantRefused {
			slowest = max(slowest, r.dur)
		}
		switch {
		case r.timedOut:
			t.Errorf("%s: HANG: %v", what, r)
		case wantRefused && r.code == 0:
			t.Errorf("%s: not refused: %v", what, r)
		case wantRefused && !strings.Contains(r.stderr, "install.sh: error: "):
			t.Errorf("%s: refused without a clear line: %v", what, r)
		case wantRefused:
			refused++
		case r.code != 0:
			t.Errorf("%s: %v", what, r)
		}
	}

	// Links at .claude, .claude/cairn and the bin directory.
	type linkCase struct {
		name   string
		link   string // in the project ("" with --user)
		target func(m *machine, other string) string
	}
	links := []linkCase{
		{".claude → the user's ~/.claude", ".claude", func(m *machine, _ string) string { return m.config }},
		{".claude → another project's .claude", ".claude", func(_ *machine, o string) string { return filepath.Join(o, ".claude") }},
		{".claude/cairn → the user's ~/.claude/cairn", ".claude/cairn", func(m *machine, _ string) string { return filepath.Join(m.config, "cairn") }},
		{".claude/cairn → another project's", ".claude/cairn", func(_ *machine, o string) string { return filepath.Join(o, ".claude", "cairn") }},
		{".claude/cairn/bin → the user's ~/.claude/cairn/bin", ".claude/cairn/bin", func(m *machine, _ string) string { return filepath.Join(m.config, "cairn", "bin") }},
		{".claude/cairn/bin → another project's", ".claude/cairn/bin", func(_ *machine, o string) string { return filepath.Join(o, ".claude", "cairn", "bin") }},
	}
	for _, lc := range links {
		for _, uninstall := range []bool{false, true} {
			args := []string{"--project", "PROJ"}
			if uninstall {
				args = append(args, "--uninstall")
			}
			name := lc.name + map[bool]string{false: ", install", true: ", uninstall"}[uninstall]
			t.Run(strings.NewReplacer("/", "_", " ", "_").Replace(name), func(t *testing.T) {
				m := newMachine(t)
				other := userInstall(m)
				if err := os.MkdirAll(filepath.Dir(m.p(lc.link)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(lc.target(m, other), m.p(lc.link)); err != nil {
					t.Fatal(err)
				}
				args[1] = m.proj
				outside, proj := snapshot(t, m.outsideDirs()...), snapshot(t, m.proj)
				r := m.installSH(stallLimit, args...)
				check(t, name, m, r, true)
				m.checkUnchanged(t, name, outside)
				if d := proj.diff(snapshot(t, m.proj)); len(d) > 0 {
					t.Errorf("%s: refused, but the project changed:\n%s", name, strings.Join(d, "\n"))
				}
			})
		}
	}
	// --user, with the config directory's cairn or bin a link to another project's.
	for _, rel := range []string{"cairn", "cairn/bin"} {
		for _, uninstall := range []bool{false, true} {
			args := []string{"--user"}
			if uninstall {
				args = append(args, "--uninstall")
			}
			name := "--user, <config>/" + rel + " → another project's" + map[bool]string{false: ", install", true: ", uninstall"}[uninstall]
			t.Run(strings.NewReplacer("/", "_", " ", "_").Replace(name), func(t *testing.T) {
				m := newMachine(t)
				other := filepath.Join(m.outside, "other", ".claude", rel)
				m.write(filepath.Join(other, "keep"), "another project's\n")
				if err := os.MkdirAll(filepath.Dir(filepath.Join(m.config, rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, filepath.Join(m.config, rel)); err != nil {
					t.Fatal(err)
				}
				outside := snapshot(t, m.outsideDirs()...)
				check(t, name, m, m.installSH(stallLimit, args...), true)
				m.checkUnchanged(t, name, outside)
			})
		}
	}

	// Inside a real bin directory: links where install.sh writes its .gitignore and the
	// temporary copies of the binaries (".NAME.new"). One build. (A link where a binary goes is
	// refused before anything is built: below.)
	t.Run("links_inside_the_bin_directory", func(t *testing.T) {
		m := newMachine(t)
		hostileOutside(m)
		bin := m.p(".claude/cairn/bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, target := range map[string]string{
			".gitignore":        filepath.Join(m.outside, "dangling", "gitignore"),
			".cairn.new":        filepath.Join(m.outside, "secret.txt"),
			".sessionstart.new": filepath.Join(m.outside, "dangling", "sessionstart"),
		} {
			if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
		}
		outside := snapshot(t, m.outsideDirs()...)
		r := m.installSH(10*time.Minute, "--project", m.proj)
		t.Logf("install.sh with links inside the bin directory: exit %d in %v", r.code, r.dur.Round(time.Millisecond))
		check(t, "links inside the bin directory", m, r, false)
		if d := outside.diff(snapshot(t, m.outsideDirs()...)); len(d) > 0 {
			bug(t, "install.sh writes through links committed inside the bin directory (its .gitignore and its .NAME.new copies): cp, chmod and > follow them out of the project",
				"install.sh --project wrote outside the project through links inside .claude/cairn/bin:\n%s", strings.Join(d, "\n"))
		}
	})

	// A link where a binary goes: refused with one line before anything is built or written.
	t.Run("a_link_where_a_binary_goes", func(t *testing.T) {
		m := newMachine(t)
		hostileOutside(m)
		bin := m.p(".claude/cairn/bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(m.outside, "dir"), filepath.Join(bin, "precompact")); err != nil {
			t.Fatal(err)
		}
		outside := snapshot(t, m.outsideDirs()...)
		r := m.installSH(10*time.Minute, "--project", m.proj)
		check(t, "a link where a binary goes", m, r, true)
		if d := outside.diff(snapshot(t, m.outsideDirs()...)); len(d) > 0 {
			t.Errorf("install.sh wrote outside the project through a link where a binary goes:\n%s", strings.Join(d, "\n"))
		}
		if _, err := os.Stat(m.p(".claude/settings.json")); err == nil {
			t.Errorf("install.sh refused but wired the hooks")
		}
	})

	// A repository that commits a cairn of its own in the bin directory: --uninstall must not
	// run it.
	t.Run("uninstall_with_the_repository's_own_cairn", func(t *testing.T) {
		m := newMachine(t)
		bin := m.p(".claude/cairn/bin")
		m.write(filepath.Join(bin, "cairn"), "#!/bin/sh\necho executed > '"+executedSentinel(m, "bin/cairn")+"'\n")
		os.Chmod(filepath.Join(bin, "cairn"), 0o755)
		outside := snapshot(t, m.outsideDirs()...)
		r := m.installSH(10*time.Minute, "--project", m.proj, "--uninstall")
		runs++
		if _, err := os.Stat(executedSentinel(m, "bin/cairn")); err == nil {
			bug(t, "install.sh --uninstall runs the cairn it finds in the project's bin directory, which a repository can commit",
				"install.sh --uninstall executed the repository's .claude/cairn/bin/cairn (exit %d): %v", r.code, r)
		}
		if d := outside.diff(snapshot(t, m.outsideDirs()...)); len(d) > 0 && !t.Failed() {
			t.Errorf("uninstall wrote outside:\n%s", strings.Join(d, "\n"))
		}
	})

	// cairn install and uninstall — what install.sh runs once it has built — against hostile
	// settings files and skills.
	t.Run("cairn_install_and_uninstall", func(t *testing.T) {
		var stats peaks
		for _, rel := range []string{".claude/settings.json", ".claude/settings.local.json", ".claude/skills/session/SKILL.md", ".claude/skills"} {
			for _, sh := range hostileShapes {
				m := newMachine(t)
				hostileOutside(m)
				m.write(m.p(".claude/skills/session/SKILL.md"), "# a skill of the repository's\n")
				p := m.p(rel)
				os.RemoveAll(p)
				if err := sh.plant(m, p, strings.ReplaceAll(rel, "/", "_")); err != nil {
					t.Fatal(err)
				}
				outside := snapshot(t, m.outsideDirs()...)
				for _, cmd := range []string{"install", "uninstall"} {
					hr := hostileRun{label: "cairn " + cmd, args: []string{cmd, "--project", m.proj, "--bin", binDir}}
					r, problem := m.runHostile(hr, "")
					runs++
					stats.add(hr.label, rel+" = "+sh.name, r)
					if r.code == 1 {
						cliRefused++
					}
					if problem != "" {
						bug(t, fmt.Sprintf("cairn %s reads settings and skills with os.ReadFile: a FIFO there blocks it, /dev/zero or a huge file takes it past 64 MiB", cmd),
							"%s at %s: cairn %s: %s\n%v", sh.name, rel, cmd, problem, r)
					}
				}
				m.checkUnchanged(t, sh.name+" at "+rel, outside)
			}
		}
		// Links into the user's own install, where an uninstall that followed them would delete
		// cairn's skills and hooks for every project.
		for _, rel := range []string{".claude/skills", ".claude/skills/session", ".claude/settings.json"} {
			m := newMachine(t)
			userInstall(m)
			p := m.p(rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(filepath.Join(m.config, strings.TrimPrefix(rel, ".claude/")), p); err != nil {
				t.Fatal(err)
			}
			outside := snapshot(t, m.outsideDirs()...)
			for _, cmd := range []string{"install", "uninstall"} {
				hr := hostileRun{label: "cairn " + cmd, args: []string{cmd, "--project", m.proj, "--bin", binDir}}
				r, problem := m.runHostile(hr, "")
				runs++
				stats.add(hr.label, rel+" → the user's", r)
				if r.code == 1 {
					cliRefused++
				}
				if problem != "" {
					t.Errorf("%s a link into the user's install: cairn %s: %s\n%v", rel, cmd, problem, r)
				}
			}
			m.checkUnchanged(t, rel+" → the user's install", outside)
		}
		t.Logf("figures:\n%s", stats.table())
	})
	record("TestHostileRepoInstall", "install.sh and install.sh --uninstall on projects whose .claude, .claude/cairn or .claude/cairn/bin is a symlink to the user's ~/.claude (cairn installed there at user scope) or to another project's; --user with <config>/cairn or <config>/cairn/bin a symlink; links committed inside a real bin directory (.gitignore, .cairn.new, .sessionstart.new, a binary); a repository's own bin/cairn before --uninstall; cairn install and uninstall with settings.json, settings.local.json, a skill and the skills directory as each hostile shape, and with .claude/skills, a skill directory and settings.json linked into the user's own install", runs,
		verdict(t, fmt.Sprintf("every symlinked .claude, .claude/cairn and bin directory refused before anything was written (%d refusals with one install.sh: error line, the slowest after %v; project and outside unchanged); cairn install and uninstall exit 0 or refuse with one line (%d refusals), never hang, within 64 MiB; nothing outside changed", refused, slowest.Round(time.Millisecond), cliRefused)))
}

// summaryKept reports whether a checkpoint of m's project holds hostileSummary (by any name: one
// taken in the same second as another gets a suffix).
func summaryKept(m *machine) bool {
	names, _ := filepath.Glob(m.p("memory/projects/proj/checkpoints/*.md"))
	for _, n := range names {
		if data, err := os.ReadFile(n); err == nil && strings.Contains(string(data), hostileSummary) {
			return true
		}
	}
	return false
}
