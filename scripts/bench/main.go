// Command bench measures cairn's hooks as Claude Code runs them — whole processes, stdin to exit —
// against the floor: a bare Go binary that only decodes its stdin (scripts/floor). SPEC §8 states
// the budgets as multiples of the floor, so the report gives ratios as well as times.
//
//	go run ./scripts/bench [-n 200] [-bin DIR] [-keep]
//
// It builds the binaries (unless -bin names a directory that has them), makes a fixture project
// in a temp dir (an active run with a whiteboard, a git repo), and runs the contenders
// alternately, n times each, so that machine noise falls on all of them alike. Reported: median,
// p10–p90 spread, ratio to the floor's median, and peak RSS (max over runs).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

type contender struct {
	name    string
	argv    []string
	payload []byte
	times   []time.Duration
	maxRSS  int64 // KiB
}

func main() {
	n := flag.Int("n", 200, "runs per contender")
	bin := flag.String("bin", "", "directory with prebuilt binaries (default: build into a temp dir)")
	keep := flag.Bool("keep", false, "keep the fixture directory")
	flag.Parse()
	if err := run(*n, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench: error:", err)
		os.Exit(1)
	}
}

func run(n int, bin string, keep bool) error {
	work, err := os.MkdirTemp("", "cairn-bench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "fixture:", work)
	} else {
		defer os.RemoveAll(work)
	}
	if bin == "" {
		bin = filepath.Join(work, "bin")
		for _, pkg := range []string{"./hooks/...", "./scripts/floor"} {
			cmd := exec.Command("go", "build", "-trimpath", "-o", bin+"/", pkg)
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("go build %s: %v", pkg, err)
			}
		}
	}
	proj := filepath.Join(work, "proj")
	if err := fixture(proj, bin); err != nil {
		return err
	}
	payload := func(event, extra string) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"bench-session","hook_event_name":%q,"cwd":%q,"transcript_path":%q%s}`,
			event, proj, filepath.Join(work, "none.jsonl"), extra))
	}
	cs := []*contender{
		{name: "floor (bare Go, decodes stdin)", argv: []string{filepath.Join(bin, "floor")}, payload: payload("PreCompact", `,"trigger":"auto"`)},
		{name: "precompact", argv: []string{filepath.Join(bin, "precompact")}, payload: payload("PreCompact", `,"trigger":"auto","custom_instructions":null`)},
		{name: "sessionstart (startup)", argv: []string{filepath.Join(bin, "sessionstart")}, payload: payload("SessionStart", `,"source":"startup"`)},
		{name: "sessionstart (compact)", argv: []string{filepath.Join(bin, "sessionstart")}, payload: payload("SessionStart", `,"source":"compact"`)},
	}
	for _, extra := range []string{"sessionend", "userpromptsubmit"} {
		if p := filepath.Join(bin, extra); exists(p) {
			ev := map[string]string{"sessionend": "SessionEnd", "userpromptsubmit": "UserPromptSubmit"}[extra]
			cs = append(cs, &contender{name: extra, argv: []string{p}, payload: payload(ev, `,"reason":"other","prompt":"please refactor the parser"`)})
		}
	}
	env := append(os.Environ(), "HOME="+filepath.Join(work, "home"), "CLAUDE_CONFIG_DIR="+filepath.Join(work, "home", ".claude"))
	// Warm the page cache and check every contender runs cleanly.
	for _, c := range cs {
		if out, err := once(c, proj, env); err != nil {
			return fmt.Errorf("%s: %v\n%s", c.name, err, out)
		}
	}
	for i := 0; i < n; i++ {
		for _, c := range cs {
			if _, err := once(c, proj, env); err != nil {
				return fmt.Errorf("%s: %v", c.name, err)
			}
		}
	}
	report(cs, n)
	return nil
}

func once(c *contender, dir string, env []string) ([]byte, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(c.payload)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
	start := time.Now()
	err := cmd.Run()
	c.times = append(c.times, time.Since(start))
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > c.maxRSS {
		c.maxRSS = ru.Maxrss
	}
	if err == nil && stderr.Len() > 0 {
		err = fmt.Errorf("stderr: %s", stderr.String())
	}
	return stderr.Bytes(), err
}

func pct(ts []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(p*float64(len(s)-1))]
}

func report(cs []*contender, n int) {
	host, _ := os.Hostname()
	fmt.Printf("cairn whole-process benchmark — %s, %s/%s, %d CPUs, %s, %d runs each, alternating\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), host, n)
	fmt.Println("| contender | median | p10–p90 | × floor | peak RSS |")
	fmt.Println("|---|---|---|---|---|")
	floor := pct(cs[0].times, 0.5)
	for _, c := range cs {
		med := pct(c.times, 0.5)
		fmt.Printf("| %s | %s | %s–%s | %.2f | %.1f MiB |\n", c.name, ms(med), ms(pct(c.times, 0.1)), ms(pct(c.times, 0.9)),
			float64(med)/float64(floor), float64(c.maxRSS)/1024)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// fixture makes a git project with an active run whose whiteboard has prose.
func fixture(proj, bin string) error {
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v %s", err, out)
	}
	cairn := exec.Command(filepath.Join(bin, "cairn"), "run", "start", "bench-run", "--issue", "7")
	cairn.Dir = proj
	if out, err := cairn.CombinedOutput(); err != nil {
		return fmt.Errorf("cairn run start: %v %s", err, out)
	}
	var prose strings.Builder
	prose.WriteString("# Run bench-run\n\n## Current state\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&prose, "- line %d of the current state, as a person writes it\n", i)
	}
	prose.WriteString("\n## In progress\n\n## Next\n\n## Decisions\n\n## Blockers\n")
	if err := os.WriteFile(filepath.Join(proj, ".agents/runs/bench-run/MEMORY.md"), []byte(prose.String()), 0o644); err != nil {
		return err
	}
	for _, f := range []string{"AGENTS.md", ".agents/lessons-learned.md"} {
		if err := os.WriteFile(filepath.Join(proj, f), []byte("# "+f+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}
