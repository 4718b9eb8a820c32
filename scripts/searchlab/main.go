// Command searchlab compares cairn's search index (pkg/search, "cidx") with SQLite FTS5
// (modernc.org/sqlite), bleve (scorch) and a plain scan of the files, on the histories package
// searchtest generates, and writes a markdown report. It is its own module so that the main
// module never depends on sqlite or bleve. README.md says what it measures and how.
//
//	go run . -sizes 200,2000,20000 -o REPORT.md      # the run of record
//	go run . -sizes 200 -n 5                         # a quick look
//	go run . build -engine fts5 -root PROJECT -index DIR
//	go run . query -engine bleve -root PROJECT -index DIR -- --kind checkpoint parser
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-hooks/cairn/pkg/search/searchtest"
	"github.com/cairn-hooks/cairn/scripts/internal/stats"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/build"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/bleveeng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/cidxeng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/fts5eng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/scaneng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

var openers = map[string]func(root, dir string) (lab.Searcher, error){
	"cidx": cidxeng.Open, "fts5": fts5eng.Open, "bleve": bleveeng.Open, "scan": scaneng.Open,
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "build":
			subBuild(os.Args[2:])
			return
		case "query":
			subQuery(os.Args[2:])
			return
		}
	}
	var o options
	sizes := flag.String("sizes", "200,2000,20000", "checkpoint counts of the generated histories")
	flag.IntVar(&o.n, "n", 30, "timed runs per query, in process and whole process (after 3 warm-ups)")
	flag.IntVar(&o.audit, "audit", 20000, "audit lines at every size")
	flag.IntVar(&o.timeline, "timeline", 100000, "timeline lines at every size")
	flag.StringVar(&o.dir, "dir", "", "where the histories and indexes live, kept between runs (default: <temp>/cairn-searchlab-<uid>)")
	flag.StringVar(&o.out, "o", "", "also write the markdown report to this file")
	engines := flag.String("engines", strings.Join(build.Engines, ","), "engines to measure")
	flag.DurationVar(&o.buildTimeout, "build-timeout", 10*time.Minute, "a build that takes longer is stopped and its engine not measured at that size")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 {
			fatal(fmt.Errorf("-sizes %q: %v", *sizes, err))
		}
		o.sizes = append(o.sizes, v)
	}
	for _, e := range strings.Split(*engines, ",") {
		if openers[e] == nil {
			fatal(fmt.Errorf("-engines: unknown engine %q", e))
		}
		o.engines = append(o.engines, e)
	}
	if o.dir == "" {
		o.dir = filepath.Join(os.TempDir(), fmt.Sprintf("cairn-searchlab-%d", os.Getuid()))
	}
	if err := run(o); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "searchlab: error:", err)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "searchlab %s: "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// subBuild is `searchlab build -engine E -root R -index D`: a cold build in its own process.
func subBuild(args []string) {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	engine := fs.String("engine", "", "cidx, fts5, bleve or scan")
	root := fs.String("root", ".", "the project")
	index := fs.String("index", "", "the index directory (created)")
	fs.Parse(args)
	n, err := build.Build(*engine, *root, *index)
	if err != nil {
		fatal(err)
	}
	fmt.Println(n)
}

// subQuery is `searchlab query -engine E -root R -index D -- query…`: one query, all engines linked.
func subQuery(args []string) {
	fs := flag.NewFlagSet("query", flag.ExitOnError)
	engine := fs.String("engine", "cidx", "cidx, fts5, bleve or scan")
	f, err := lab.ParseFlags(fs, args)
	if err != nil {
		fatal(err)
	}
	open := openers[*engine]
	if open == nil {
		fatal(fmt.Errorf("unknown engine %q", *engine))
	}
	s, err := open(f.Root, f.Index)
	if err != nil {
		fatal(err)
	}
	defer s.Close()
	hits, err := s.Search(f.Query)
	if err != nil {
		fatal(err)
	}
	lab.Print(os.Stdout, hits)
}

type options struct {
	sizes        []int
	engines      []string
	n            int
	audit        int
	timeline     int
	dir, out     string
	buildTimeout time.Duration
}

// ---- measuring ----

// timeBin is GNU time, for a build's peak RSS; "" when absent.
var timeBin = func() string {
	if out, err := exec.Command("/usr/bin/time", "--version").CombinedOutput(); err == nil && strings.Contains(string(out), "GNU") {
		return "/usr/bin/time"
	}
	return ""
}()

// timeRuns runs cmd() 3 times untimed, then n times timed from fork to wait, and returns the
// times in ms and the first run's stdout.
func timeRuns(n int, mk func() *exec.Cmd) ([]float64, string, error) {
	var ts []float64
	first := ""
	for i := 0; i < n+3; i++ {
		cmd := mk()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, errb.String())
		}
		if i == 0 {
			first = out.String()
		}
		if i >= 3 {
			ts = append(ts, stats.Ms(d))
		}
	}
	return ts, first, nil
}

type buildResult struct {
	times   []float64 // ms
	rssKiB  int64
	docs    int
	size    int64
	err     string // a build that failed or was stopped
	stopped bool
}

// coldBuild deletes dir and builds engine's index in a new process (under GNU time for its peak
// RSS); it returns the wall time from fork to wait.
func coldBuild(o options, self, engine, root, dir string) (float64, int64, int, error) {
	os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), o.buildTimeout)
	defer cancel()
	args := []string{self, "build", "-engine", engine, "-root", root, "-index", dir}
	rssFile := ""
	if timeBin != "" {
		f, err := os.CreateTemp("", "searchlab-rss-")
		if err == nil {
			f.Close()
			rssFile = f.Name()
			defer os.Remove(rssFile)
			args = append([]string{timeBin, "-f", "%M", "-o", rssFile}, args...)
		}
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if ctx.Err() != nil {
		return stats.Ms(d), 0, 0, fmt.Errorf("stopped after %s", o.buildTimeout)
	}
	if err != nil {
		return stats.Ms(d), 0, 0, fmt.Errorf("%v: %s", err, errb.String())
	}
	var rss int64
	if rssFile != "" {
		data, _ := os.ReadFile(rssFile)
		if f := strings.Fields(string(data)); len(f) > 0 {
			rss, _ = strconv.ParseInt(f[len(f)-1], 10, 64)
		}
	}
	docs, _ := strconv.Atoi(strings.TrimSpace(out.String()))
	return stats.Ms(d), rss, docs, nil
}

type queryResult struct {
	inproc, whole []float64
	hits          int // results of the first in-process run
	err           string
}

type engineResult struct {
	build   buildResult
	queries []queryResult
}

type sizeResult struct {
	checkpoints  int
	corpus       int64
	floor, none  []float64
	engines      map[string]*engineResult
	loadBefore   string
	wall         time.Duration
	whole, inpro bool
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func output(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// mainRoot is the main module's root: two levels above this module's.
func mainRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/cairn-hooks/cairn").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/cairn-hooks/cairn (run from scripts/searchlab): %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

type binaries struct {
	dir   string
	self  string
	floor string
	sizes map[string]int64 // q-<engine> and q-none
}

func (b binaries) q(engine string) string { return filepath.Join(b.dir, "q-"+engine) }

func buildBinaries(work string) (binaries, error) {
	b := binaries{dir: filepath.Join(work, "bin"), sizes: map[string]int64{}}
	os.MkdirAll(b.dir, 0o755)
	gob := func(dir, out, pkg string) error {
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build %s: %v", pkg, err)
		}
		return nil
	}
	root, err := mainRoot()
	if err != nil {
		return b, err
	}
	b.floor = filepath.Join(b.dir, "floor")
	if err := gob(root, b.floor, "./scripts/floor"); err != nil {
		return b, err
	}
	b.self = filepath.Join(b.dir, "searchlab")
	if err := gob(".", b.self, "."); err != nil {
		return b, err
	}
	for _, e := range append([]string{"none"}, build.Engines...) {
		if err := gob(".", b.q(e), "./cmd/q-"+e); err != nil {
			return b, err
		}
		b.sizes[e] = stats.FileSize(b.q(e))
	}
	return b, nil
}

var floorPayload = []byte(`{"session_id":"b","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"x"}`)

func run(o options) error {
	started := time.Now()
	info := machine{date: started.UTC().Format("2006-01-02 15:04 MST"), load: loadavg(), nproc: output("nproc"),
		goVersion: output("go", "version"), kernel: output("uname", "-sr"), cpu: cpuModel(), gomaxprocs: runtime.GOMAXPROCS(0)}
	if root, err := mainRoot(); err == nil {
		info.commit = output("git", "-C", root, "rev-parse", "--short", "HEAD")
		if st := output("git", "-C", root, "status", "--porcelain"); st != "" && st != "?" {
			info.commit += " (with uncommitted changes)"
		}
	}
	logf("machine: %s CPUs, load %s, %s", info.nproc, info.load, info.goVersion)
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(o.dir, "run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logf("building the floor, searchlab and the query binaries")
	bins, err := buildBinaries(work)
	if err != nil {
		return err
	}
	var results []*sizeResult
	for _, n := range o.sizes {
		sr, err := measureSize(o, bins, n)
		if err != nil {
			return err
		}
		results = append(results, sr)
	}
	info.loadEnd = loadavg()
	info.elapsed = time.Since(started).Round(time.Second)
	var b strings.Builder
	report(&b, o, info, bins, results)
	fmt.Print(b.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(b.String()), 0o644)
	}
	return nil
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.IndexByte(l, ':'); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return runtime.GOARCH
}

func measureSize(o options, bins binaries, n int) (*sizeResult, error) {
	start := time.Now()
	sr := &sizeResult{checkpoints: n, engines: map[string]*engineResult{}, loadBefore: loadavg()}
	base := filepath.Join(o.dir, fmt.Sprintf("p%d-a%d-t%d", n, o.audit, o.timeline))
	root := filepath.Join(base, "proj")
	marker := filepath.Join(base, ".generated")
	if _, err := os.Stat(marker); err != nil {
		logf("%d: generating %d checkpoints, %d audit and %d timeline lines", n, n, o.audit, o.timeline)
		os.RemoveAll(base)
		if err := searchtest.Generate(root, searchtest.Options{Checkpoints: n, Audit: o.audit, Timeline: o.timeline, Seed: 1}); err != nil {
			return nil, err
		}
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			return nil, err
		}
	}
	var err error
	if sr.corpus, err = searchtest.Size(root); err != nil {
		return nil, err
	}
	queries := make([]lab.Query, len(searchtest.Queries))
	for i, a := range searchtest.Queries {
		if queries[i], err = lab.ParseArgs(a, time.Now()); err != nil {
			return nil, err
		}
	}
	for _, e := range o.engines {
		er := &engineResult{}
		sr.engines[e] = er
		dir := filepath.Join(base, "idx-"+e)
		// Cold builds: three when one takes under 10 s, else one.
		for i := 0; i < 3; i++ {
			logf("%d: %s: cold build %d", n, e, i+1)
			d, rss, docs, err := coldBuild(o, bins.self, e, root, dir)
			if err != nil {
				er.build.err = err.Error()
				er.build.stopped = strings.HasPrefix(er.build.err, "stopped")
				er.build.times = append(er.build.times, d)
				logf("%d: %s: build failed: %v", n, e, err)
				break
			}
			er.build.times = append(er.build.times, d)
			er.build.rssKiB = max(er.build.rssKiB, rss)
			er.build.docs = docs
			logf("%d: %s: built in %.0f ms (%d docs, peak %d KiB)", n, e, d, docs, rss)
			if d > 10000 {
				break
			}
		}
		if er.build.err != "" {
			continue
		}
		er.build.size = stats.DirSize(dir)

		// In process: open once, then each query 3 + n times.
		logf("%d: %s: in process", n, e)
		s, err := openers[e](root, dir)
		if err != nil {
			return nil, fmt.Errorf("%s: open: %v", e, err)
		}
		for _, q := range queries {
			var qr queryResult
			for i := 0; i < o.n+3; i++ {
				t0 := time.Now()
				hits, err := s.Search(q)
				d := time.Since(t0)
				if err != nil {
					qr.err = err.Error()
					break
				}
				if i == 0 {
					qr.hits = len(hits)
				}
				if i >= 3 {
					qr.inproc = append(qr.inproc, stats.Ms(d))
				}
			}
			er.queries = append(er.queries, qr)
			logf("%d: %s: in process %-50q %.2f ms, %d hits", n, e, q.Raw, stats.Median(qr.inproc), qr.hits)
		}
		s.Close()
		runtime.GC()
	}

	// Whole process, engines and floor interleaved per query would be fairer still; here the
	// floor and q-none are timed just before the engines, at each size.
	logf("%d: whole process: floor and q-none", n)
	if sr.floor, _, err = timeRuns(o.n, func() *exec.Cmd {
		cmd := exec.Command(bins.floor)
		cmd.Stdin = bytes.NewReader(floorPayload)
		return cmd
	}); err != nil {
		return nil, err
	}
	if sr.none, _, err = timeRuns(o.n, func() *exec.Cmd {
		return exec.Command(bins.q("none"), "-root", root, "-index", base, "--", "cache")
	}); err != nil {
		return nil, err
	}
	logf("%d: floor %.2f ms, q-none %.2f ms", n, stats.Median(sr.floor), stats.Median(sr.none))
	for _, e := range o.engines {
		er := sr.engines[e]
		if er.build.err != "" {
			continue
		}
		dir := filepath.Join(base, "idx-"+e)
		for qi, a := range searchtest.Queries {
			args := append([]string{"-root", root, "-index", dir, "--"}, a...)
			ts, out, err := timeRuns(o.n, func() *exec.Cmd {
				cmd := exec.Command(bins.q(e), args...)
				cmd.Dir = root
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TZ=" + os.Getenv("TZ")}
				return cmd
			})
			if err != nil {
				er.queries[qi].err = err.Error()
				continue
			}
			if strings.HasPrefix(out, "No matches") && er.queries[qi].hits > 0 {
				logf("%d: %s: whole process found nothing where in process found %d", n, e, er.queries[qi].hits)
			}
			er.queries[qi].whole = ts
			logf("%d: %s: whole process %-50q %.2f ms", n, e, strings.Join(a, " "), stats.Median(ts))
		}
	}
	sr.wall = time.Since(start)
	return sr, nil
}

// ---- the report ----

type machine struct {
	date, load, loadEnd, nproc, goVersion, kernel, cpu, commit string
	gomaxprocs                                                 int
	elapsed                                                    time.Duration
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func msf(x float64) string {
	switch {
	case x >= 1000:
		return fmt.Sprintf("%s", commas(int64(x+0.5)))
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

func secs(msv float64) string {
	if msv < 1000 {
		return fmt.Sprintf("%.0f ms", msv)
	}
	return fmt.Sprintf("%.1f s", msv/1000)
}

func qname(a []string) string {
	s := strings.Join(a, " ")
	if strings.HasPrefix(s, "--") {
		return "filters + `" + a[len(a)-1] + "`"
	}
	return "`" + s + "`"
}

// span is "lo–hi" of the medians of qs (in process or whole process).
func span(qs []queryResult, whole bool) (lo, hi float64, ok bool) {
	lo = -1
	for _, q := range qs {
		xs := q.inproc
		if whole {
			xs = q.whole
		}
		if len(xs) == 0 {
			return 0, 0, false
		}
		m := stats.Median(xs)
		if lo < 0 || m < lo {
			lo = m
		}
		hi = max(hi, m)
	}
	return lo, hi, lo >= 0
}

func report(w io.Writer, o options, m machine, bins binaries, rs []*sizeResult) {
	fmt.Fprintln(w, "# Search engines compared: cidx, SQLite FTS5, bleve, a plain scan")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Generated by `scripts/searchlab` (`go run . %s`; README.md there says what is measured and how).\n\n",
		strings.Join(os.Args[1:], " "))
	fmt.Fprintf(w, "- **Date:** %s; the run took %s.\n", m.date, m.elapsed)
	fmt.Fprintf(w, "- **Machine:** `nproc` %s (GOMAXPROCS %d), %s, %s. **Load average** at start: %s; at the end: %s (other work shares the machine).\n",
		m.nproc, m.gomaxprocs, m.cpu, m.kernel, m.load, m.loadEnd)
	fmt.Fprintf(w, "- **Toolchain:** `%s`. **Code:** cairn at %s; modernc.org/sqlite v1.62.0, github.com/blevesearch/bleve/v2 v2.6.3.\n", m.goVersion, m.commit)
	fmt.Fprintf(w, "- **Histories:** `searchtest.Generate` (seed 1): N checkpoints + %s audit lines + %s timeline lines + 10 parked items; queries `searchtest.Queries`. Timed runs per query: %d after 3 warm-ups (in process and whole process).\n\n",
		commas(int64(o.audit)), commas(int64(o.timeline)), o.n)

	last := rs[len(rs)-1]
	fmt.Fprintf(w, "## Headline: %s checkpoints (%s indexed)\n\n", commas(int64(last.checkpoints)), mib(last.corpus))
	fl := stats.Median(last.floor)
	fmt.Fprintf(w, "Floor (`scripts/floor`, median of %d): %.2f ms; q-none (the query binaries' argument parsing alone): %.2f ms.\n\n", len(last.floor), fl, stats.Median(last.none))
	fmt.Fprintln(w, "| engine | cold build | index ÷ files | in process, median ms (range over the 5 queries) | whole process, median ms (× floor) | binary size added |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, e := range o.engines {
		er := last.engines[e]
		added := fmt.Sprintf("%+s bytes (%.1f MiB)", commas(bins.sizes[e]-bins.sizes["none"]), float64(bins.sizes[e]-bins.sizes["none"])/(1<<20))
		if er.build.err != "" {
			fmt.Fprintf(w, "| %s | %s | — | — | — | %s |\n", e, er.build.err, added)
			continue
		}
		bt := secs(stats.Median(er.build.times))
		if e == "scan" {
			bt = "— (no index)"
		}
		idx := fmt.Sprintf("%.0f%% (%s)", 100*float64(er.build.size)/float64(last.corpus), mib(er.build.size))
		in, wh := "—", "—"
		if lo, hi, ok := span(er.queries, false); ok {
			in = msf(lo) + "–" + msf(hi)
		}
		if lo, hi, ok := span(er.queries, true); ok {
			wh = fmt.Sprintf("%s–%s (%.1f–%.1f×)", msf(lo), msf(hi), lo/fl, hi/fl)
		}
		fmt.Fprintf(w, "| **%s** | %s | %s | %s | %s | %s |\n", e, bt, idx, in, wh, added)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "## Build and size")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Cold build: a new process (`searchlab build`) on an empty index directory, fork to wait; median of 3 when a build takes under 10 s, else one. Peak RSS from GNU time. Index: the bytes of its directory.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| checkpoints | files indexed | engine | documents | cold build | build peak RSS | index | index ÷ files |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		for _, e := range o.engines {
			er := r.engines[e]
			if e == "scan" {
				fmt.Fprintf(w, "| %s | %s | scan | — | — | — | — | — |\n", commas(int64(r.checkpoints)), mib(r.corpus))
				continue
			}
			if er.build.err != "" {
				fmt.Fprintf(w, "| %s | %s | %s | — | %s after %s | — | — | — |\n", commas(int64(r.checkpoints)), mib(r.corpus), e, er.build.err, secs(er.build.times[len(er.build.times)-1]))
				continue
			}
			docs := "—"
			if er.build.docs > 0 {
				docs = commas(int64(er.build.docs))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s (n=%d) | %s | %s | %.0f%% |\n", commas(int64(r.checkpoints)), mib(r.corpus), e, docs,
				secs(stats.Median(er.build.times)), len(er.build.times), mib(er.build.rssKiB<<10), mib(er.build.size), 100*float64(er.build.size)/float64(r.corpus))
		}
	}
	fmt.Fprintln(w)
	// The engines must index the same documents, or their times compare different work.
	for _, r := range rs {
		counts := map[int][]string{}
		for _, e := range o.engines {
			if er := r.engines[e]; er != nil && er.build.err == "" && er.build.docs > 0 {
				counts[er.build.docs] = append(counts[er.build.docs], e)
			}
		}
		if len(counts) > 1 {
			fmt.Fprintf(w, "**The engines indexed different numbers of documents at %s checkpoints** (%v): their rows compare different work.\n\n", commas(int64(r.checkpoints)), counts)
		}
	}

	fmt.Fprintln(w, "## In process")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "The index opened once in the lab's process; each query 3 times untimed, then %d times: median ms [p90], and the hits returned (of at most 10). cidx's time includes its freshness check (a few stat calls) and snippets; the others' include reading their hits' text back from the files for the snippet.\n\n", o.n)
	qheader(w, "engine")
	for _, r := range rs {
		for _, e := range o.engines {
			er := r.engines[e]
			fmt.Fprintf(w, "| %s | %s |", commas(int64(r.checkpoints)), e)
			for qi := range searchtest.Queries {
				if er.build.err != "" || qi >= len(er.queries) {
					fmt.Fprint(w, " — |")
					continue
				}
				q := er.queries[qi]
				if len(q.inproc) == 0 {
					fmt.Fprintf(w, " error: %s |", q.err)
					continue
				}
				fmt.Fprintf(w, " %s [%s] (%d) |", msf(stats.Median(q.inproc)), msf(stats.Pct(q.inproc, 0.9)), q.hits)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "## Whole process")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Each engine's query binary (`cmd/q-<engine>`, `go build -trimpath`) run as `q-<engine> -root P -index D -- <query>`, fork to wait: 3 untimed, then %d timed; median ms (× the floor of that size) [p90]. The floor and q-none were timed the same way just before, at each size.\n\n", o.n)
	fmt.Fprintln(w, "| checkpoints | floor | q-none | load before |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %.2f ms | %.2f ms | %s |\n", commas(int64(r.checkpoints)), stats.Median(r.floor), stats.Median(r.none), r.loadBefore)
	}
	fmt.Fprintln(w)
	qheader(w, "engine")
	for _, r := range rs {
		fl := stats.Median(r.floor)
		for _, e := range o.engines {
			er := r.engines[e]
			fmt.Fprintf(w, "| %s | %s |", commas(int64(r.checkpoints)), e)
			for qi := range searchtest.Queries {
				if er.build.err != "" || qi >= len(er.queries) {
					fmt.Fprint(w, " — |")
					continue
				}
				q := er.queries[qi]
				if len(q.whole) == 0 {
					fmt.Fprintf(w, " error: %s |", q.err)
					continue
				}
				fmt.Fprintf(w, " %s (%.1f×) [%s] |", msf(stats.Median(q.whole)), stats.Median(q.whole)/fl, msf(stats.Pct(q.whole, 0.9)))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "## Binary size")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "`go build -trimpath` of each query binary; added = its size minus q-none's (the same argument parsing and printing, no engine).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| binary | bytes | added |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| q-none | %s | — |\n", commas(bins.sizes["none"]))
	for _, e := range o.engines {
		d := bins.sizes[e] - bins.sizes["none"]
		fmt.Fprintf(w, "| q-%s | %s | %s (%.1f MiB) |\n", e, commas(bins.sizes[e]), commas(d), float64(d)/(1<<20))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## How each engine is set up")
	fmt.Fprintln(w)
	fmt.Fprintln(w, notes)
	var errs []string
	for _, r := range rs {
		for _, e := range o.engines {
			if er := r.engines[e]; er.build.err != "" {
				errs = append(errs, fmt.Sprintf("- %s checkpoints, %s: %s", commas(int64(r.checkpoints)), e, er.build.err))
			}
		}
	}
	if len(errs) > 0 {
		fmt.Fprintln(w, "\n**Not measured:**")
		fmt.Fprintln(w, strings.Join(errs, "\n"))
	}
}

func qheader(w io.Writer, col string) {
	fmt.Fprintf(w, "| checkpoints | %s |", col)
	for _, q := range searchtest.Queries {
		fmt.Fprintf(w, " %s |", qname(q))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|---|")
	for range searchtest.Queries {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
}

// notes are the report's last section; § stands for a backquote.
var notes = strings.ReplaceAll(`Every engine indexes the same documents (package internal/corpus, after pkg/search's source.go):
one per checkpoint (title: its heading; body: Summary, Decisions, Remaining, Notes and its files),
one per audit line (the item's slug; its text), one per timeline line (the event with its
source, trigger or reason; the branch, the checkpoint's name, the session's first 8 characters),
one per open parked item. cidx builds its own from the files (pkg/search); the document count is
the others'. Hits are at most 10; every engine returns a one-line snippet, cidx from its own
code, the others by reading the hit's bytes back from its file (no engine keeps a copy of the
text for it).

- **cidx** — §search.Open(search.Config{Root, CacheDir})§, §Sync§ to build, §Search§ to query: BM25F
  (title ×3), times the kind's weight; the filters are applied on its per-document kind, branch and
  time; every Search first checks the files' freshness (a few stat calls), which the others do not.
- **fts5** — modernc.org/sqlite v1.62.0, one database file: a contentless FTS5 table
  §fts5(title, body, content='')§ (default unicode61 tokenizer, no prefix index) and a plain table
  of each document's id, kind, weight, time, branch, title and place in its file. Built in one
  transaction (journal and sync off), then §'optimize'§ and §VACUUM§ (in the build time). Query:
  §MATCH '"auth" "token" "refresh"'§ (implicit AND; §"lru"*§ for a prefix), joined to the
  metadata, §ORDER BY bm25(f, 3.0, 1.0) × weight, time DESC LIMIT 10§. Filters: §kind IN (…)§,
  §branch = ?§, §time >= ?§ on the joined table, so they are applied after the full-text match, to
  every document that matches the words.
- **bleve** — bleve v2.6.3, scorch, §bleve.NewIndexMapping()§ (dynamic: fields indexed, stored, with
  term vectors and in _all) with three changes: the default analyzer is the standard one without
  its English stop-word filter (unicode tokenizer + lowercase; with it, §the§ finds nothing), kind and
  branch are keyword fields, and the scoring model is BM25. Built in batches of 1,000; the build
  ends when Close returns. Query: a conjunction, per term, of a disjunction of a term (or prefix)
  query on title (boost 3) and on body; filters are further conjuncts: a disjunction of keyword
  terms on kind, a keyword term on branch, a numeric range on time (so they count in the score).
  The kinds' weights are not applied. Opened read-only.
- **scan** — no index: every query walks every file (the same corpus code the builders use),
  splits each document into lowercased words, keeps those holding every term (a prefix term: a
  word starting with it) and passing the filters, and ranks by term frequency (a title word counts
  3) times the kind's weight.

--since counts back from the time of the run; the histories end on 2026-11-20.`, "§", "`")
