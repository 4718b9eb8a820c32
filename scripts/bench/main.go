// Command bench measures cairn's hooks as Claude Code runs them — whole processes, stdin to exit —
// against the floor (a bare Go binary that only decodes its stdin, scripts/floor) and against the
// alternatives users have: the shell snippets of the original workflows cairn replaces
// (docs/DESIGN.md, What cairn is for), and Python and Node hooks that read stdin and the
// transcript's last 64 KiB. cairn's budgets are multiples of the floor (docs/DESIGN.md,
// Budgets), so the report gives ratios as well as times. docs/BENCHMARKS.md has the results.
//
//	go run ./scripts/bench                       # the full run: 100 rounds, 1MB,50MB,200MB,60MBline
//	go run ./scripts/bench -quick                # 10 rounds, 1 MB only (about a minute)
//	go run ./scripts/bench -n 50 -sizes 1MB,200MB -o /tmp/bench.md -json /tmp/bench.json
//	go run ./scripts/bench -base /tmp/old-bin -only '^ups'   # before/after: old binaries in the same rounds
//
// It builds the binaries (unless -bin names a directory that has them), generates the standard
// project under a temporary directory (see fixture.go: an active run, 10 parked items, 100
// legacy files, 50 checkpoints, 8 sessions and 1,000 broadcasts, task files, a git history) and,
// for each transcript size, the transcripts and the fixture states the contenders start from.
// Then, per size, it runs every contender once untimed and checks its output, runs n rounds
// alternating all contenders (each run starts from its state, restored untimed), and measures
// peak RSS under GNU time in a few more rounds. Progress goes to stderr, the markdown report to
// stdout (and -o), the raw times to -json.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

type options struct {
	n, rssRuns  int
	sizes       []sizeSpec
	bin, dir    string
	base        string
	keep        bool
	only        *regexp.Regexp
	jsonOut     string
	mdOut       string
	verbose     bool
	diag        bool
	commandLine string
}

// sizeSpec is a transcript size: "200MB", or "60MBline" (a transcript whose last turn holds a
// 60 MB single line, 4 MB more in all), or "200MB+60MBline" (200 MB in all, one line of 60 MB).
type sizeSpec struct {
	label      string
	size, line int64
}

func parseSizes(s string) ([]sizeSpec, error) {
	var out []sizeSpec
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		sp := sizeSpec{label: f}
		total, line, hasLine := f, "", false
		if strings.HasSuffix(f, "line") {
			hasLine = true
			total, line, _ = strings.Cut(strings.TrimSuffix(f, "line"), "+")
			if line == "" {
				total, line = "", total
			}
		}
		var err error
		if hasLine {
			if sp.line, err = transcripttest.ParseSize(line); err != nil {
				return nil, fmt.Errorf("-sizes %q: %v", f, err)
			}
		}
		if total != "" {
			if sp.size, err = transcripttest.ParseSize(total); err != nil {
				return nil, fmt.Errorf("-sizes %q: %v", f, err)
			}
		} else {
			sp.size = sp.line + 4<<20
		}
		if sp.size < sp.line {
			return nil, fmt.Errorf("-sizes %q: the line is longer than the transcript", f)
		}
		out = append(out, sp)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-sizes: no size")
	}
	return out, nil
}

func main() {
	n := flag.Int("n", 100, "rounds: runs per contender and size, alternating all contenders")
	sizes := flag.String("sizes", "1MB,50MB,200MB,60MBline", "transcript sizes: SIZE, LINEline (one LINE-long line), SIZE+LINEline")
	quick := flag.Bool("quick", false, "a quick look: -n 10 -rss 2 -sizes 1MB unless given")
	rss := flag.Int("rss", 5, "extra rounds under GNU time for peak RSS")
	base := flag.String("base", "", "directory with the binaries of another build (before a change): each cairn contender also runs from there, in the same rounds, as \"before\"")
	bin := flag.String("bin", "", "directory with prebuilt binaries: precompact, sessionstart, sessionend, userpromptsubmit, pretooluse, cairn, floor (default: build them)")
	dir := flag.String("dir", "", "directory for the fixture (default: the system's temp dir); put it on the disk users' projects live on: hooks fsync")
	keep := flag.Bool("keep", false, "keep the fixture directory")
	only := flag.String("only", "", "only contenders whose key matches this regexp (the floor always runs)")
	jsonOut := flag.String("json", "", "write raw times and RSS to this file")
	mdOut := flag.String("o", "", "also write the markdown report to this file")
	verbose := flag.Bool("v", false, "log each contender's check")
	diag := flag.Bool("diag", true, "also time, in this process, the library calls the hooks make (where the time goes)")
	flag.Parse()

	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		if !set["n"] {
			*n = 10
		}
		if !set["rss"] {
			*rss = 2
		}
		if !set["sizes"] {
			*sizes = "1MB"
		}
	}
	o := options{n: *n, rssRuns: *rss, bin: *bin, base: *base, dir: *dir, keep: *keep, jsonOut: *jsonOut, mdOut: *mdOut, verbose: *verbose, diag: *diag,
		commandLine: strings.TrimSpace("go run ./scripts/bench " + shellQuote(os.Args[1:]))}
	var err error
	if o.sizes, err = parseSizes(*sizes); err != nil {
		fatal(err)
	}
	if *only != "" {
		if o.only, err = regexp.Compile(*only); err != nil {
			fatal(fmt.Errorf("-only: %v", err))
		}
	}
	if o.n < 1 {
		fatal(fmt.Errorf("-n must be at least 1"))
	}
	if err := run(o); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench: error:", err)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// sizeResult is what one size's rounds measured.
type sizeResult struct {
	spec       sizeSpec
	bytes      int64
	contenders []*contender
	loadBefore string
	loadAfter  string
	elapsed    time.Duration
	diag       []diagRow // transcript calls, in process
}

func run(o options) error {
	work, err := os.MkdirTemp(o.dir, "cairn-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		logf("fixture kept in %s", work)
	} else {
		defer os.RemoveAll(work)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		return fmt.Errorf("bash is needed for the original workflows' contenders: %v", err)
	}
	if timeBin == "" {
		logf("GNU time (/usr/bin/time) not found: peak RSS will be an upper bound that includes this program's own RSS")
	}

	bin := o.bin
	if bin == "" {
		bin = filepath.Join(work, "bin")
		logf("building the binaries")
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin+string(filepath.Separator), "./hooks/...", "./scripts/floor")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build (run the bench from the module root): %v", err)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	for _, name := range []string{"precompact", "sessionstart", "sessionend", "userpromptsubmit", "pretooluse", "cairn", "floor"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return fmt.Errorf("binary %s: %v", name, err)
		}
	}
	if o.base != "" {
		if o.base, err = filepath.Abs(o.base); err != nil {
			return err
		}
		for _, name := range []string{"precompact", "sessionstart", "sessionend", "userpromptsubmit", "cairn"} {
			if _, err := os.Stat(filepath.Join(o.base, name)); err != nil {
				return fmt.Errorf("-base: binary %s: %v", name, err)
			}
		}
	}

	f := newFixture(work, bin, logf)
	if err := f.resolveInterpreters(); err != nil {
		return err
	}
	start := time.Now()
	if err := f.build(); err != nil {
		return fmt.Errorf("fixture: %v", err)
	}
	logf("fixture: built in %s", time.Since(start).Round(time.Millisecond))

	meta := machine(o, bin)
	meta.Python += " (" + f.python + ")"
	meta.Node += " (" + f.node + ")"
	var results []*sizeResult
	var libDiag []diagRow
	for _, sz := range o.sizes {
		s, err := f.transcriptsFor(sz)
		if err != nil {
			return fmt.Errorf("transcript %s: %v", sz.label, err)
		}
		st, err := f.statesFor(s)
		if err != nil {
			return fmt.Errorf("fixture states for %s: %v", sz.label, err)
		}
		var cs []*contender
		for _, c := range f.contenders(s, st) {
			if c.kind == kindFloor || o.only == nil || o.only.MatchString(c.key) {
				cs = append(cs, c)
			}
		}
		if o.base != "" {
			cs = append(cs, befores(cs, o.base)...)
		}
		fi, err := os.Stat(s.T)
		if err != nil {
			return err
		}
		res := &sizeResult{spec: sz, bytes: fi.Size(), contenders: cs, loadBefore: loadavg()}
		t0 := time.Now()
		logf("[%s] checking %d contenders", sz.label, len(cs))
		if err := f.warm(cs, o.verbose); err != nil {
			return fmt.Errorf("[%s] %v", sz.label, err)
		}
		lastLog := time.Now()
		err = f.measure(cs, o.n, func(i int) {
			if time.Since(lastLog) > 15*time.Second || i == o.n-1 {
				lastLog = time.Now()
				el := time.Since(t0)
				eta := time.Duration(float64(el) / float64(i+1) * float64(o.n-i-1))
				logf("[%s] round %d/%d, %s elapsed, about %s left for this size", sz.label, i+1, o.n, el.Round(time.Second), eta.Round(time.Second))
			}
		})
		if err != nil {
			return fmt.Errorf("[%s] %v", sz.label, err)
		}
		if o.rssRuns > 0 {
			exact, err := f.measureRSS(cs, o.rssRuns)
			if err != nil {
				return fmt.Errorf("[%s] rss: %v", sz.label, err)
			}
			meta.RSSExact = exact
		}
		if o.diag {
			res.diag = f.transcriptDiag(s)
			if libDiag == nil {
				if libDiag, err = f.libraryDiag(st); err != nil {
					return fmt.Errorf("[%s] diagnostics: %v", sz.label, err)
				}
			}
		}
		res.loadAfter = loadavg()
		res.elapsed = time.Since(t0)
		logf("[%s] done in %s (load %s → %s)", sz.label, res.elapsed.Round(time.Second), res.loadBefore, res.loadAfter)
		results = append(results, res)
	}
	meta.Elapsed = time.Since(start).Round(time.Second).String()

	md := report(meta, results, libDiag)
	fmt.Print(md)
	if o.mdOut != "" {
		if err := os.WriteFile(o.mdOut, []byte(md), 0o644); err != nil {
			return err
		}
	}
	if o.jsonOut != "" {
		if err := writeJSON(o.jsonOut, meta, results); err != nil {
			return err
		}
	}
	return nil
}

// meta describes the run: the machine, the toolchain, the code measured.
type meta struct {
	Date, Command, CPU, Kernel, GoVersion string
	NumCPU                                int
	Commit                                string
	Rounds, RSSRounds                     int
	RSSExact                              bool
	Python, Node, Bash                    string
	FixtureDir                            string
	Elapsed                               string
}

func machine(o options, bin string) *meta {
	m := &meta{
		Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Command: o.commandLine, NumCPU: runtime.NumCPU(),
		Rounds: o.n, RSSRounds: o.rssRuns, FixtureDir: o.dir,
	}
	if m.FixtureDir == "" {
		m.FixtureDir = os.TempDir()
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(data))
	}
	first := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			return "?"
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	m.GoVersion = first("go", "version")
	m.Commit = first("git", "rev-parse", "--short", "HEAD")
	if o.bin != "" {
		m.Commit += "; prebuilt binaries from " + o.bin
	} else {
		// What the binaries were built from: HEAD, and any change to non-test Go files under
		// hooks/ and pkg/ (other changes do not reach the binaries).
		out, _ := exec.Command("git", "status", "--porcelain", "--", "hooks", "pkg", "scripts/floor", "go.mod", "go.sum").Output()
		var changed []string
		for _, l := range strings.Split(string(out), "\n") {
			if len(l) > 3 && !strings.HasSuffix(l, "_test.go") && !strings.HasSuffix(l, "/") {
				changed = append(changed, strings.TrimSpace(l))
			}
		}
		if len(changed) == 0 {
			m.Commit += ", no uncommitted change to the binaries' sources"
		} else {
			m.Commit += ", built with uncommitted changes: " + strings.Join(changed, ", ")
		}
	}
	if o.base != "" {
		m.Commit += "; \"before\" binaries from " + o.base
	}
	m.Python = first("python3", "--version")
	m.Node = "node " + first("node", "--version")
	m.Bash = first("bash", "--version")
	return m
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func writeJSON(path string, m *meta, results []*sizeResult) error {
	type jc struct {
		Key, Name, Kind string
		TimesMs         []float64
		CPUMs           []float64
		RSSKiB          []int64
	}
	type js struct {
		Size                  string
		Bytes                 int64
		LoadBefore, LoadAfter string
		Contenders            []jc
	}
	out := struct {
		Meta  *meta
		Sizes []js
	}{Meta: m}
	for _, r := range results {
		s := js{Size: r.spec.label, Bytes: r.bytes, LoadBefore: r.loadBefore, LoadAfter: r.loadAfter}
		for _, c := range r.contenders {
			s.Contenders = append(s.Contenders, jc{c.key, c.name, c.kind, c.times, c.cpu, c.rss})
		}
		out.Sizes = append(out.Sizes, s)
	}
	data, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// resolveInterpreters finds the Python and Node executables themselves. `python3` on PATH may be
// a version manager's shim (pyenv's is a bash script that takes about 50 ms to exec Python):
// users of such a setup pay for it, but it is not Python's cost, so the contender runs the
// interpreter the shim would.
func (f *fixture) resolveInterpreters() error {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return fmt.Errorf("python3 is needed for its contender: %v", err)
	}
	f.python = strings.TrimSpace(string(out))
	if f.python == "" {
		f.python, _ = exec.LookPath("python3")
	}
	out, err = exec.Command("node", "-e", "console.log(process.execPath)").Output()
	if err != nil {
		return fmt.Errorf("node is needed for its contender: %v", err)
	}
	f.node = strings.TrimSpace(string(out))
	return nil
}

// shellQuote joins args as a shell would need them typed.
func shellQuote(args []string) string {
	var out []string
	for _, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/+:") == "" {
			out = append(out, a)
			continue
		}
		out = append(out, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(out, " ")
}
