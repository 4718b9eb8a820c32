package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/scripts/internal/stats"
)

// result is one run of a contender.
type result struct {
	out, errOut string
	code        int
	elapsed     time.Duration
	cpu         time.Duration // user + system time of the process (and of its children)
}

// exec runs c once in the project, as Claude Code runs a hook: its payload on a pipe to stdin,
// stdout and stderr on pipes, the environment of the fixture. The time is wall-clock, from
// just before the fork to the end of wait: what Claude Code waits for.
func (f *fixture) exec(c *contender, wrap []string) (result, error) {
	argv := append(append([]string{}, wrap...), c.argv...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = f.proj
	cmd.Env = append(append([]string{}, f.env...), c.env...)
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{elapsed: time.Since(start), out: out.String(), errOut: errb.String()}
	if cmd.ProcessState != nil {
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
		err = nil
	}
	return r, err
}

// prepare restores the contender's state before a run, and writes the restore back to disk
// (settle), untimed.
func (f *fixture) prepare(c *contender) error {
	fix := c.fix
	if c.fresh {
		fix = freshActivity(filepath.Join(f.proj, ".claude/state/session.json"), benchSession)
	}
	changed, err := c.state.restore(fix)
	if err == nil && changed > 0 {
		settle()
	}
	return err
}

// warm runs every contender once, untimed, checks what it did, and warms the page cache.
func (f *fixture) warm(cs []*contender, verbose bool) error {
	for _, c := range cs {
		if err := f.prepare(c); err != nil {
			return err
		}
		r, err := f.exec(c, nil)
		if err != nil {
			return fmt.Errorf("%s: %v", c.name, err)
		}
		changed, err := c.state.diff()
		if err != nil {
			return err
		}
		if c.check != nil {
			if err := c.check(r.out, r.errOut, r.code, changed); err != nil {
				return fmt.Errorf("%s: check failed: %v", c.name, err)
			}
		}
		if verbose {
			f.log("  ok  %-55s %6.2f ms  %d files changed  stdout %d B", c.name, stats.Ms(r.elapsed), changed, len(r.out))
		}
	}
	return nil
}

// measure runs the contenders n times each, alternating: round i runs all of them, starting at
// contender i mod len (so that no contender always follows the same one). Each run starts from
// its contender's state.
func (f *fixture) measure(cs []*contender, n int, progress func(i int)) error {
	cs = byState(cs)
	for i := 0; i < n; i++ {
		for j := range cs {
			c := cs[roundOrder(i, j, len(cs))]
			if err := f.prepare(c); err != nil {
				return err
			}
			r, err := f.exec(c, nil)
			if err != nil {
				return fmt.Errorf("%s: %v", c.name, err)
			}
			if r.code != 0 {
				return fmt.Errorf("%s: exit %d: %s", c.name, r.code, r.errOut)
			}
			c.noteStderr(r.errOut)
			c.times = append(c.times, stats.Ms(r.elapsed))
			c.cpu = append(c.cpu, stats.Ms(r.cpu))
		}
		if progress != nil {
			progress(i)
		}
	}
	return nil
}

// timeBin is GNU time, used for peak RSS (see measureRSS); "" when absent.
var timeBin = func() string {
	if p, err := exec.LookPath("/usr/bin/time"); err == nil {
		out, _ := exec.Command(p, "--version").CombinedOutput()
		if strings.Contains(string(out), "GNU") {
			return p
		}
	}
	return ""
}()

// measureRSS runs each contender k times under GNU time and keeps ru_maxrss of each run.
//
// Why not the rusage that os/exec returns? Linux carries the peak RSS of the memory image a
// process had before exec into its ru_maxrss, and a child of this bench starts as a vfork of
// the bench itself: every contender would report at least the bench's own RSS (about 5–10 MiB,
// more while it holds fixture snapshots). GNU time forks the contender from a 1 MiB process, so
// ru_maxrss is the contender's own peak, or 1 MiB for a contender smaller than that — none is.
// Where GNU time is missing, the os/exec figure is reported and marked as an upper bound.
func (f *fixture) measureRSS(cs []*contender, k int) (exact bool, err error) {
	cs = byState(cs)
	dir, err := os.MkdirTemp(f.work, "rss-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "rss")
	for i := 0; i < k; i++ {
		for j := range cs {
			c := cs[(i+j)%len(cs)]
			if err := f.prepare(c); err != nil {
				return false, err
			}
			if timeBin == "" {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Dir, cmd.Env = f.proj, append(append([]string{}, f.env...), c.env...)
				if c.stdin != nil {
					cmd.Stdin = bytes.NewReader(c.stdin)
				}
				_ = cmd.Run()
				if cmd.ProcessState != nil {
					c.rss = append(c.rss, maxRSS(cmd.ProcessState))
				}
				continue
			}
			r, err := f.exec(c, []string{timeBin, "-f", "%M", "-o", out})
			if err != nil {
				return false, err
			}
			if r.code != 0 {
				return false, fmt.Errorf("%s under time: exit %d: %s", c.name, r.code, r.errOut)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				return false, err
			}
			fields := strings.Fields(string(data))
			if len(fields) == 0 {
				return false, fmt.Errorf("%s: GNU time wrote %q", c.name, data)
			}
			kib, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
			if err != nil {
				return false, fmt.Errorf("%s: GNU time wrote %q", c.name, data)
			}
			c.rss = append(c.rss, kib)
		}
	}
	return timeBin != "", nil
}

// roundOrder is the index of the contender that runs j-th in round i of n contenders: the list
// rotated by one each round, so that no contender always follows the same one, and walked
// backwards every other round, so that of two neighbours — a contender and its "before" from
// -base, which share a state — each runs first in half the rounds. Without the reversal the
// second of the two ran after the first on the same restored state in nearly every round and paid
// for it: the same binaries in both slots read 1.50× and 1.72× the floor for a parking prompt.
func roundOrder(i, j, n int) int {
	k := (i + j) % n
	if i%2 == 1 {
		k = (i + n - 1 - j) % n
	}
	return k
}

// byState orders contenders so that those starting from the same fixture state follow each
// other: switching states costs untimed file writes (a hundred for some), which would otherwise
// add page-cache writeback to the timed runs' noise.
func byState(cs []*contender) []*contender {
	var order []*snapshot
	groups := map[*snapshot][]*contender{}
	for _, c := range cs {
		if _, ok := groups[c.state]; !ok {
			order = append(order, c.state)
		}
		groups[c.state] = append(groups[c.state], c)
	}
	out := make([]*contender, 0, len(cs))
	for _, s := range order {
		out = append(out, groups[s]...)
	}
	return out
}

// pct is the p-th quantile (nearest rank on the sorted sample).

func maxOf(xs []int64) int64 {
	var m int64
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
