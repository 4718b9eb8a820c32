// Command searchbench measures `cairn search` as a whole process against the floor (a bare Go
// binary that only decodes its stdin, scripts/floor), on generated histories of several sizes
// (package searchtest: N checkpoints plus 20,000 audit lines and 100,000 timeline lines), and in
// process, and through cairn's MCP server. The budgets (docs/DESIGN.md, Budgets): whole process
// with a warm index ≤ 10× the floor at 20,000 checkpoints, an MCP search call ≤ 20 ms and the
// server's RSS ≤ 64 MiB, the index ≤ 50% of the files it indexes. docs/BENCHMARKS.md has the
// results.
//
//	go run ./scripts/searchbench                              # 200, 2,000 and 20,000; about 5 minutes
//	go run ./scripts/searchbench -sizes 200 -n 10             # a quick look
//	go run ./scripts/searchbench -before 17a08b0 -o /tmp/search.md
//	go run ./scripts/searchbench -history 100MB,1GB,3GB        # the history: Claude Code's transcripts
//
// For each size it measures: the cold build (index deleted, the first search; median of 3,
// with peak RSS), the warm whole-process median of each query (3 warm-ups, then -n runs), an
// update after one new checkpoint and after three appended timeline lines, a search after the
// stamp is lost (every file stat'ed and the index's checksum read: the periodic full sweep),
// the in-process median of each query, each query's round trip as an MCP tools/call search to one
// long-running `cairn mcp` and that server's peak RSS, and the index's size against the files'. With -before
// REV it also builds the CLI at REV and reports the size it adds. Progress goes to stderr, the
// markdown report to stdout (and -o).
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
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/pkg/search/searchtest"
	"github.com/cairn-hooks/cairn/scripts/internal/stats"
)

type options struct {
	sizes           []int
	n, floorN       int
	audit, timeline int
	dir             string
	before          string
	out             string
	history         []string // -history: sizes of transcripts; the history benchmark instead
	peer            bool
	coldN           int
	keep            bool
}

func main() {
	sizes := flag.String("sizes", "200,2000,20000", "checkpoint counts of the generated histories")
	n := flag.Int("n", 30, "whole-process runs per query (after 3 warm-ups)")
	floorN := flag.Int("floor-n", 300, "runs of the floor")
	audit := flag.Int("audit", 20000, "audit lines at every size")
	tl := flag.Int("timeline", 100000, "timeline lines at every size")
	dir := flag.String("dir", "", "where the histories are generated and kept between runs (default: <temp>/cairn-searchbench-<uid>)")
	before := flag.String("before", "", "also build the CLI at this git revision and report the size search adds")
	out := flag.String("o", "", "also write the markdown report to this file")
	history := flag.String("history", "", "measure the history instead: transcripts of these total sizes (100MB,1GB,3GB), generated under -dir and deleted after")
	peer := flag.Bool("peer", true, "with -history, also the peers' case: 201 sessions of about 67 MB")
	coldN := flag.Int("cold-n", 3, "with -history, cold indexings per size")
	keep := flag.Bool("keep", false, "with -history, keep the generated transcripts for the next run")
	flag.Parse()
	o := options{n: *n, floorN: *floorN, audit: *audit, timeline: *tl, dir: *dir, before: *before, out: *out,
		peer: *peer, coldN: *coldN, keep: *keep}
	if *history != "" {
		o.history = strings.Split(*history, ",")
	}
	for _, s := range strings.Split(*sizes, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 {
			fatal(fmt.Errorf("-sizes %q: %v", *sizes, err))
		}
		o.sizes = append(o.sizes, v)
	}
	if o.dir == "" {
		o.dir = filepath.Join(os.TempDir(), fmt.Sprintf("cairn-searchbench-%d", os.Getuid()))
	}
	if err := run(o); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "searchbench: error:", err)
	os.Exit(1)
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "searchbench: "+format+"\n", args...) }

// timeBin is GNU time, for the peak RSS of a child alone; "" when absent.
var timeBin = func() string {
	if out, err := exec.Command("/usr/bin/time", "--version").CombinedOutput(); err == nil && strings.Contains(string(out), "GNU") {
		return "/usr/bin/time"
	}
	return ""
}()

type runner struct {
	bin, home string
	config    string // Claude Code's config directory, whose transcripts make the history; "" for none
}

// env is what a cairn command runs with: the project at root, its index under cache.
func (r *runner) env(root, cache string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home, "CLAUDE_PROJECT_DIR=" + root, "CAIRN_SEARCH_CACHE=" + cache, "TZ=UTC"}
	if r.config != "" {
		env = append(env, "CLAUDE_CONFIG_DIR="+r.config)
	}
	return env
}

// exec runs `cairn args…` in the project at root with its index under cache, as a person or
// Claude's Bash tool would, and returns the wall time from fork to wait.
func (r *runner) exec(root, cache string, args ...string) (time.Duration, string, error) {
	cmd := exec.Command(filepath.Join(r.bin, "cairn"), args...)
	cmd.Dir = root
	cmd.Env = r.env(root, cache)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, "", fmt.Errorf("cairn %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	if errb.Len() > 0 {
		return d, "", fmt.Errorf("cairn %s wrote to stderr: %s", strings.Join(args, " "), errb.String())
	}
	return d, out.String(), nil
}

// rss runs `cairn args…` under GNU time and returns its peak RSS in KiB (0 without GNU time).
func (r *runner) rss(root, cache string, args ...string) int64 {
	if timeBin == "" {
		return 0
	}
	f, err := os.CreateTemp("", "rss-")
	if err != nil {
		return 0
	}
	f.Close()
	defer os.Remove(f.Name())
	cmd := exec.Command(timeBin, append([]string{"-f", "%M", "-o", f.Name(), filepath.Join(r.bin, "cairn")}, args...)...)
	cmd.Dir = root
	cmd.Env = r.env(root, cache)
	if cmd.Run() != nil {
		return 0
	}
	data, _ := os.ReadFile(f.Name())
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	kib, _ := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	return kib
}

func goBuild(dir, out string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-trimpath", "-o", out}, pkgs...)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

type queryResult struct {
	args      []string
	median    float64
	p90       float64
	inprocess float64
}

type sizeResult struct {
	checkpoints          int
	indexed, index       int64
	cold                 []float64
	coldRSS, warmRSS     int64
	queries              []queryResult
	addCheckpoint, addTL []float64
	fullSweep            []float64
	mcp                  mcpResult
}

func run(o options) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(o.dir, "run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	r := &runner{bin: filepath.Join(work, "bin"), home: filepath.Join(work, "home")}
	os.MkdirAll(r.home, 0o755)
	logf("building cairn and the floor")
	if err := goBuild(".", r.bin+string(filepath.Separator), "./hooks/cairn", "./hooks/cairn-mcp", "./scripts/floor"); err != nil {
		return fmt.Errorf("go build (run from the module root): %v", err)
	}
	cliSize := stats.FileSize(filepath.Join(r.bin, "cairn"))
	var beforeSize int64
	if o.before != "" {
		logf("building the CLI at %s", o.before)
		src := filepath.Join(work, "before")
		os.MkdirAll(src, 0o755)
		archive := exec.Command("sh", "-c", "git archive "+o.before+" | tar -x -C "+src)
		archive.Stderr = os.Stderr
		if err := archive.Run(); err != nil {
			return fmt.Errorf("git archive %s: %v", o.before, err)
		}
		if err := goBuild(src, filepath.Join(work, "cairn-before"), "./hooks/cairn"); err != nil {
			return err
		}
		beforeSize = stats.FileSize(filepath.Join(work, "cairn-before"))
	}

	logf("the floor: %d runs", o.floorN)
	payload := []byte(`{"session_id":"bench","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"Yes, go on."}`)
	var floor []float64
	for i := 0; i < o.floorN+10; i++ {
		cmd := exec.Command(filepath.Join(r.bin, "floor"))
		cmd.Stdin = bytes.NewReader(payload)
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("floor: %v", err)
		}
		if i >= 10 {
			floor = append(floor, stats.Ms(time.Since(start)))
		}
	}
	floorMed := stats.Median(floor)
	logf("floor median %.2f ms", floorMed)
	// The CLI's start alone, before and after: what every cairn command pays.
	startup := func(bin string) float64 {
		var ts []float64
		for i := 0; i < 110; i++ {
			start := time.Now()
			if err := exec.Command(bin, "version").Run(); err != nil {
				return 0
			}
			if i >= 10 {
				ts = append(ts, stats.Ms(time.Since(start)))
			}
		}
		return stats.Median(ts)
	}
	version := startup(filepath.Join(r.bin, "cairn"))
	var versionBefore float64
	if beforeSize > 0 {
		versionBefore = startup(filepath.Join(filepath.Dir(r.bin), "cairn-before"))
	}

	if len(o.history) > 0 {
		return runHistory(o, r, floorMed)
	}
	var results []sizeResult
	for _, n := range o.sizes {
		sr, err := measureSize(o, r, n)
		if err != nil {
			return err
		}
		results = append(results, sr)
	}
	var b strings.Builder
	report(&b, o, floorMed, results, cliSize, beforeSize, version, versionBefore)
	fmt.Print(b.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(b.String()), 0o644)
	}
	return nil
}

func measureSize(o options, r *runner, n int) (sizeResult, error) {
	sr := sizeResult{checkpoints: n}
	root := filepath.Join(o.dir, fmt.Sprintf("p%d-a%d-t%d", n, o.audit, o.timeline), "proj")
	marker := filepath.Join(filepath.Dir(root), ".generated")
	if _, err := os.Stat(marker); err != nil {
		logf("generating %d checkpoints, %d audit and %d timeline lines", n, o.audit, o.timeline)
		os.RemoveAll(filepath.Dir(root))
		if err := searchtest.Generate(root, searchtest.Options{Checkpoints: n, Audit: o.audit, Timeline: o.timeline, Seed: 1}); err != nil {
			return sr, err
		}
		os.WriteFile(marker, nil, 0o644)
	}
	var err error
	if sr.indexed, err = searchtest.Size(root); err != nil {
		return sr, err
	}
	cache := filepath.Join(filepath.Dir(root), "cache")

	logf("%d: cold builds", n)
	for i := 0; i < 3; i++ {
		os.RemoveAll(cache)
		d, _, err := r.exec(root, cache, "search", "cache")
		if err != nil {
			return sr, err
		}
		sr.cold = append(sr.cold, stats.Ms(d))
	}
	os.RemoveAll(cache)
	sr.coldRSS = r.rss(root, cache, "search", "cache")
	sr.index = stats.DirSize(cache)

	for _, q := range searchtest.Queries {
		args := append([]string{"search"}, q...)
		for i := 0; i < 3; i++ {
			if _, out, err := r.exec(root, cache, args...); err != nil {
				return sr, err
			} else if i == 0 && strings.HasPrefix(out, "No matches") {
				logf("%d: cairn %s: no matches", n, strings.Join(args, " "))
			}
		}
		var ts []float64
		for i := 0; i < o.n; i++ {
			d, _, err := r.exec(root, cache, args...)
			if err != nil {
				return sr, err
			}
			ts = append(ts, stats.Ms(d))
		}
		sr.queries = append(sr.queries, queryResult{args: q, median: stats.Median(ts), p90: stats.Pct(ts, 0.9)})
		logf("%d: %-60s %.2f ms", n, strings.Join(q, " "), stats.Median(ts))
	}
	sr.warmRSS = r.rss(root, cache, "search", "the")

	// Updates: one new checkpoint; three timeline lines. Undone afterwards.
	logf("%d: updates", n)
	tlPath := filepath.Join(root, "memory", "timeline.jsonl")
	tlSize := stats.FileSize(tlPath)
	var added []string
	for i := 0; i < 5; i++ {
		t := time.Date(2026, 11, 21, 9, 0, i, 0, time.Local)
		e := checkpoint.Entry{Title: fmt.Sprintf("bench update %d", i), Branch: "main", Time: t,
			Sections: checkpoint.Sections{Summary: "A cache change measured by the update benchmark."}}
		p := filepath.Join(checkpoint.Dir(root), t.Format("20060102-150405")+"-"+checkpoint.SanitizeTitle(e.Title)+".md")
		if err := os.WriteFile(p, checkpoint.Render(e), 0o644); err != nil {
			return sr, err
		}
		added = append(added, p)
		// A directory changed within the last 2 s is "racy" (its mtime may not move again), and
		// the next search would list it again: date it back, as real saves are seconds apart.
		old := time.Now().Add(-10 * time.Second)
		os.Chtimes(checkpoint.Dir(root), old, old)
		d, _, err := r.exec(root, cache, "search", "cache")
		if err != nil {
			return sr, err
		}
		sr.addCheckpoint = append(sr.addCheckpoint, stats.Ms(d))

		f, err := os.OpenFile(tlPath, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return sr, err
		}
		for j := 0; j < 3; j++ {
			fmt.Fprintf(f, `{"ts":"2026-11-21T09:00:%02dZ","event":"session_start","session":"bench-%d-%d","branch":"main","source":"startup"}`+"\n", i, i, j)
		}
		f.Close()
		if d, _, err = r.exec(root, cache, "search", "cache"); err != nil {
			return sr, err
		}
		sr.addTL = append(sr.addTL, stats.Ms(d))
	}
	// The periodic full sweep, forced by losing the stamp.
	for i := 0; i < 5; i++ {
		matches, _ := filepath.Glob(filepath.Join(cache, "cairn", "search", "*", "stamp"))
		for _, m := range matches {
			os.Remove(m)
		}
		d, _, err := r.exec(root, cache, "search", "cache")
		if err != nil {
			return sr, err
		}
		sr.fullSweep = append(sr.fullSweep, stats.Ms(d))
	}
	for _, p := range added {
		os.Remove(p)
	}
	os.Truncate(tlPath, tlSize)

	// In process: the index opened once (brought up to date, then warm), each query 30 times.
	logf("%d: in process", n)
	time.Sleep(time.Second) // past the racy window of the directory the undo just changed
	ix := search.Open(search.Config{Root: root, CacheDir: cache})
	if _, err := ix.Sync(context.Background()); err != nil {
		return sr, err
	}
	for qi, q := range searchtest.Queries {
		query, opts := parseArgs(q)
		var ts []float64
		for i := 0; i < 33; i++ {
			start := time.Now()
			if _, err := ix.Search(context.Background(), query, opts); err != nil {
				return sr, err
			}
			if i >= 3 {
				ts = append(ts, stats.Ms(time.Since(start)))
			}
		}
		sr.queries[qi].inprocess = stats.Median(ts)
	}
	ix.Close()

	// Through MCP: one server, as Claude Code keeps it, each query n times.
	logf("%d: through cairn mcp", n)
	if sr.mcp, err = measureMCP(r, root, cache, searchtest.Queries, o.n); err != nil {
		return sr, err
	}
	return sr, nil
}

// parseArgs reads a query's arguments as cairn search does (the flags the queries use).
func parseArgs(args []string) (string, search.Options) {
	var o search.Options
	var words []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--kind":
			i++
			o.Kinds, _ = search.ParseKinds(args[i])
		case "--branch":
			i++
			o.Branch = args[i]
		case "--since":
			i++
			d, _ := strconv.Atoi(strings.TrimSuffix(args[i], "d"))
			o.Since = time.Now().AddDate(0, 0, -d)
		default:
			words = append(words, args[i])
		}
	}
	return strings.Join(words, " "), o
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// queryTable writes a table of one row per size and one column per query (cell), and a last
// column when extra is not nil.
func queryTable(w io.Writer, title string, rs []sizeResult, extraName string, cell func(sizeResult, int) string, extra func(sizeResult) string) {
	fmt.Fprintln(w, title)
	fmt.Fprintln(w)
	fmt.Fprint(w, "| checkpoints |")
	for _, q := range searchtest.Queries {
		fmt.Fprintf(w, " `%s` |", strings.Join(q, " "))
	}
	if extra != nil {
		fmt.Fprintf(w, " %s |", extraName)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range searchtest.Queries {
		fmt.Fprint(w, "---|")
	}
	if extra != nil {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, r := range rs {
		fmt.Fprintf(w, "| %d |", r.checkpoints)
		for i := range searchtest.Queries {
			fmt.Fprintf(w, " %s |", cell(r, i))
		}
		if extra != nil {
			fmt.Fprintf(w, " %s |", extra(r))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

func report(w io.Writer, o options, floor float64, rs []sizeResult, cli, before int64, version, versionBefore float64) {
	fmt.Fprintf(w, "Floor (scripts/floor, %d runs): median %.2f ms → whole-process budget %.1f ms (10×).\n", o.floorN, floor, 10*floor)
	fmt.Fprintf(w, "Machine: %s/%s, %d CPUs, %s. Histories: N checkpoints + %d audit lines + %d timeline lines.\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), o.audit, o.timeline)
	queryTable(w, fmt.Sprintf("Whole process, warm index (median ms of %d runs, × floor; p90 in brackets):", o.n), rs, "",
		func(r sizeResult, i int) string {
			q := r.queries[i]
			return fmt.Sprintf("%.1f (%.1f×) [%.1f]", q.median, q.median/floor, q.p90)
		}, nil)
	queryTable(w, "In process (the index opened once; median ms of 30 calls, freshness check and snippets included):", rs, "",
		func(r sizeResult, i int) string { return fmt.Sprintf("%.2f", r.queries[i].inprocess) }, nil)
	queryTable(w, fmt.Sprintf("Through MCP (one `cairn mcp` server; a tools/call search from the request's write to its reply, median ms of %d calls, p90 in brackets; the server's peak RSS):", o.n), rs, "server peak RSS",
		func(r sizeResult, i int) string { return fmt.Sprintf("%.1f [%.1f]", r.mcp.median[i], r.mcp.p90[i]) },
		func(r sizeResult) string { return mib(r.mcp.hwmKiB << 10) })
	fmt.Fprintln(w, "Build, updates, size (whole process, median ms):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| checkpoints | files indexed | cold build (first search) | cold peak RSS | +1 checkpoint | +3 timeline lines | full sweep + query | warm peak RSS | index | index / files |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %d | %s | %.0f | %s | %.1f | %.1f | %.1f | %s | %s | %.0f%% |\n", r.checkpoints, mib(r.indexed), stats.Median(r.cold),
			mib(r.coldRSS<<10), stats.Median(r.addCheckpoint), stats.Median(r.addTL), stats.Median(r.fullSweep), mib(r.warmRSS<<10), mib(r.index),
			100*float64(r.index)/float64(r.indexed))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "CLI binary (go build -trimpath): %d bytes", cli)
	if before > 0 {
		fmt.Fprintf(w, "; at %s: %d bytes; search adds %d bytes (%+.1f%%)", o.before, before, cli-before, 100*float64(cli-before)/float64(before))
	}
	fmt.Fprintln(w, ".")
	fmt.Fprintf(w, "`cairn version` (the CLI's start alone, median of 100): %.2f ms (%.1f× floor)", version, version/floor)
	if versionBefore > 0 {
		fmt.Fprintf(w, "; at %s: %.2f ms", o.before, versionBefore)
	}
	fmt.Fprintln(w, ".")
}
