// Command contextbench measures `cairn context list` and `cairn context restore` as whole
// processes against the floor (a bare Go binary that only decodes its stdin, scripts/floor), on
// the generated histories scripts/searchbench uses (package searchtest: N checkpoints plus audit
// and timeline lines), with a warm index. The budget (docs/DESIGN.md, Budgets): list and restore
// ≤ 3× the floor at 2,000 checkpoints; the report shows how they grow at 200, 2,000 and 20,000.
// docs/BENCHMARKS.md has the results.
//
//	go run ./scripts/contextbench                      # 200, 2,000 and 20,000
//	go run ./scripts/contextbench -sizes 2000 -n 30    # a quick look
//
// Rounds are interleaved — in each round the floor and every command run once, in turn — so that
// a load that comes and goes on a shared machine weighs on all of them alike; the ratio reported
// is the median of the per-round ratios. Progress goes to stderr, the markdown report to stdout.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/search/searchtest"
	"github.com/cairn-hooks/cairn/scripts/internal/stats"
)

func main() {
	sizes := flag.String("sizes", "200,2000,20000", "checkpoint counts of the generated histories")
	n := flag.Int("n", 60, "rounds per size (after 5 warm-up rounds)")
	audit := flag.Int("audit", 20000, "audit lines at every size")
	tl := flag.Int("timeline", 100000, "timeline lines at every size")
	dir := flag.String("dir", filepath.Join(os.TempDir(), fmt.Sprintf("cairn-searchbench-%d", os.Getuid())), "where the histories are generated and kept (shared with scripts/searchbench)")
	flag.Parse()
	if err := run(*sizes, *n, *audit, *tl, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "contextbench: error:", err)
		os.Exit(1)
	}
}

// commands are what each round runs besides the floor.
var commands = [][]string{
	{"context", "list"},
	{"context", "list", "--all"},
	{"context", "restore"},
	{"context", "restore", "7"},
	{"version"},
}

func run(sizeList string, n, audit, tl int, dir string) error {
	work, err := os.MkdirTemp("", "contextbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "bin") + string(filepath.Separator)
	build := exec.Command("go", "build", "-o", bin, "./hooks/cairn", "./scripts/floor")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build (run from the module root): %v", err)
	}
	home := filepath.Join(work, "home")
	os.MkdirAll(home, 0o755)
	payload := []byte(`{"session_id":"bench","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"Yes, go on."}`)

	var b strings.Builder
	fmt.Fprintf(&b, "| checkpoints | command | median | × floor (median of rounds) | p90 × floor |\n|---|---|---|---|---|\n")
	for _, s := range strings.Split(sizeList, ",") {
		size, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		root := filepath.Join(dir, fmt.Sprintf("p%d-a%d-t%d", size, audit, tl), "proj")
		marker := filepath.Join(filepath.Dir(root), ".generated")
		if _, err := os.Stat(marker); err != nil {
			fmt.Fprintf(os.Stderr, "contextbench: generating %d checkpoints\n", size)
			os.RemoveAll(filepath.Dir(root))
			if err := searchtest.Generate(root, searchtest.Options{Checkpoints: size, Audit: audit, Timeline: tl, Seed: 1}); err != nil {
				return err
			}
			os.WriteFile(marker, nil, 0o644)
		}
		cache := filepath.Join(work, fmt.Sprintf("cache-%d", size))
		env := append(os.Environ(), "HOME="+home, "CAIRN_SEARCH_CACHE="+cache, "CLAUDE_PROJECT_DIR="+root)
		runOne := func(argv ...string) (float64, error) {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = root, env
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if argv[0] == bin+"floor" {
				cmd.Stdin = bytes.NewReader(payload)
			}
			t := time.Now()
			err := cmd.Run()
			d := float64(time.Since(t).Microseconds()) / 1000
			if err != nil || errOut.Len() > 0 {
				return 0, fmt.Errorf("%s: %v %s", strings.Join(argv, " "), err, errOut.String())
			}
			return d, nil
		}
		fmt.Fprintf(os.Stderr, "contextbench: %d checkpoints: %d rounds\n", size, n)
		times := make([][]float64, len(commands))
		ratios := make([][]float64, len(commands))
		var floor []float64
		for round := 0; round < n+5; round++ {
			f, err := runOne(bin + "floor")
			if err != nil {
				return err
			}
			for i, c := range commands {
				d, err := runOne(append([]string{bin + "cairn"}, c...)...)
				if err != nil {
					return err
				}
				if round >= 5 { // the first rounds build and warm the index
					times[i] = append(times[i], d)
					ratios[i] = append(ratios[i], d/f)
				}
			}
			if round >= 5 {
				floor = append(floor, f)
			}
		}
		fmt.Fprintf(&b, "| %d | floor | %.2f ms | 1.00 | |\n", size, stats.Median(floor))
		for i, c := range commands {
			fmt.Fprintf(&b, "| %d | `cairn %s` | %.2f ms | %.2f | %.2f |\n", size, strings.Join(c, " "), stats.Median(times[i]), stats.Median(ratios[i]), stats.Pct(ratios[i], 0.9))
		}
	}
	fmt.Print(b.String())
	return nil
}
