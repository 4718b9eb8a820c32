package main

import (
	"fmt"
	"strings"

	"github.com/cairn-hooks/cairn/scripts/internal/stats"
)

const rssBudgetKiB = 16 << 10

// report renders the results as markdown: the hooks' budgets (docs/DESIGN.md) with a verdict, the
// alternatives against cairn, and every contender per size.
func report(m *meta, results []*sizeResult, libDiag []diagRow) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("## Run\n\n")
	p("- Command: `%s` (from the module root)\n", m.Command)
	p("- Date: %s; took %s\n", m.Date, m.Elapsed)
	p("- Machine: %d CPUs, %s, Linux %s; fixture under %s\n", m.NumCPU, m.CPU, m.Kernel, m.FixtureDir)
	p("- Toolchain: %s; %s; %s; %s\n", m.GoVersion, m.Python, m.Node, m.Bash)
	p("- Code: %s\n", m.Commit)
	rssNote := "GNU time's ru_maxrss"
	if !m.RSSExact {
		rssNote = "os/exec's ru_maxrss, an upper bound that includes the bench's own RSS (GNU time missing)"
	}
	p("- %d alternating rounds per size (every contender once per round); peak RSS: max over %d more rounds, %s\n", m.Rounds, m.RSSRounds, rssNote)
	p("- Load average (1, 5, 15 min) before → after each size:")
	for _, r := range results {
		p(" %s: %s → %s;", r.spec.label, r.loadBefore, r.loadAfter)
	}
	p("\n\n")

	// Budgets.
	p("## Budgets\n\n")
	p("Median × the floor's median in the same rounds (p90 × floor's p90 in brackets; the detail tables below also give the median of each round's ratio); peak RSS is the maximum over all sizes.\n\n")
	p("| hook | budget |")
	for _, r := range results {
		p(" %s |", r.spec.label)
	}
	p(" peak RSS | verdict |\n|---|---|")
	for range results {
		p("---|")
	}
	p("---|---|\n")
	for _, key := range keysOf(results, kindCairn) {
		c0 := find(results[0], key)
		bud := c0.budget
		if bud.ratio == 0 && bud.abs == 0 && !bud.rss {
			continue
		}
		p("| %s | %s |", c0.name, budgetText(bud))
		ok := true
		var why []string
		var peak int64
		for _, r := range results {
			c, fl := find(r, key), find(r, "floor")
			if c == nil || fl == nil {
				p(" — |")
				continue
			}
			med, fmed := stats.Pct(c.times, .5), stats.Pct(fl.times, .5)
			ratio := med / fmed
			peak = max(peak, maxOf(c.rss))
			switch {
			case bud.ratio > 0:
				p(" %.2f× (%.2f×) |", ratio, stats.Pct(c.times, .9)/stats.Pct(fl.times, .9))
				if ratio > bud.ratio {
					ok = false
					why = append(why, fmt.Sprintf("%s: %.2f× > %.1f× (+%.0f%%)", r.spec.label, ratio, bud.ratio, (ratio/bud.ratio-1)*100))
				}
			case bud.abs > 0:
				p(" %.1f ms (p90 %.1f) |", med, stats.Pct(c.times, .9))
				if stats.Pct(c.times, .9) >= bud.abs {
					ok = false
					why = append(why, fmt.Sprintf("%s: p90 %.0f ms", r.spec.label, stats.Pct(c.times, .9)))
				}
			default:
				p(" %.2f× |", ratio)
			}
		}
		p(" %s |", kib(peak))
		if bud.rss && peak > rssBudgetKiB {
			ok = false
			why = append(why, "RSS "+kib(peak))
		}
		if ok {
			p(" met |\n")
		} else {
			p(" **missed**: %s |\n", strings.Join(why, "; "))
		}
	}
	p("\n")

	// Before and after.
	if len(keysOf(results, kindBefore)) > 0 {
		p("## Before and after\n\n")
		p("The same contender run from the -base binaries (before) and from the ones measured (after), in the same rounds: the median of each round's ratio to that round's floor, in wall time and in CPU time (user + system; the floor's medians in brackets). On a machine that others share, CPU time is the steadier of the two: waiting for a core inflates wall time only.\n\n")
		p("| contender |")
		for _, r := range results {
			p(" %s before | %s after |", r.spec.label, r.spec.label)
		}
		p("\n|---|")
		for range results {
			p("---|---|")
		}
		p("\n")
		for _, key := range keysOf(results, kindBefore) {
			after := strings.TrimPrefix(key, beforeKey)
			p("| %s |", find(results[0], after).name)
			for _, r := range results {
				b, a, fl := find(r, key), find(r, after), find(r, "floor")
				if b == nil || a == nil || fl == nil {
					p(" — | — |")
					continue
				}
				p(" %.2f× wall, %.2f× CPU | %.2f× wall, %.2f× CPU (%s, %s CPU) |", pairwise(b, fl), pairwiseCPU(b, fl), pairwise(a, fl), pairwiseCPU(a, fl),
					msText(stats.Pct(fl.times, .5)), msText(stats.Pct(fl.cpu, .5)))
			}
			p("\n")
		}
		p("\n")
	}

	// Alternatives.
	p("## The alternatives ÷ cairn\n\n")
	p("Median of the alternative ÷ median of the cairn contender it does the job of, in the same rounds (>1: cairn is faster).\n\n")
	p("| alternative | ÷ cairn contender |")
	for _, r := range results {
		p(" %s |", r.spec.label)
	}
	p("\n|---|---|")
	for range results {
		p("---|")
	}
	p("\n")
	for _, kind := range []string{kindSeed, kindPopular} {
		for _, key := range keysOf(results, kind) {
			c0 := find(results[0], key)
			pairs := []string{c0.pair}
			if kind == kindPopular {
				pairs = []string{"ups-answer", "ups-request", "precompact", "sessionstart-startup"}
			}
			for _, pk := range pairs {
				if find(results[0], pk) == nil {
					continue
				}
				p("| %s | %s |", c0.name, find(results[0], pk).name)
				for _, r := range results {
					c, pc := find(r, key), find(r, pk)
					if c == nil || pc == nil {
						p(" — |")
						continue
					}
					p(" %.1f× |", stats.Pct(c.times, .5)/stats.Pct(pc.times, .5))
				}
				p("\n")
			}
		}
	}
	p("\n")

	// Warnings.
	var warn strings.Builder
	for _, r := range results {
		for _, c := range r.contenders {
			for w, n := range c.warnings {
				fmt.Fprintf(&warn, "- %s, %s (%d of %d runs): `%s`\n", c.name, r.spec.label, n, len(c.times), w)
			}
		}
	}
	if warn.Len() > 0 {
		p("## What cairn printed on stderr\n\n%s\n", warn.String())
	}

	// Diagnostics.
	if len(libDiag) > 0 || len(results) > 0 && len(results[0].diag) > 0 {
		p("## Where the time goes: the hooks' library calls, in process\n\n")
		p("Best of a few runs in the bench's own process (no process start, files in the page cache).\n\n")
		if len(libDiag) > 0 {
			p("%s\n", diagTable(libDiag))
		}
		for _, r := range results {
			if len(r.diag) > 0 {
				p("Transcript %s (%.1f MiB):\n\n%s\n", r.spec.label, float64(r.bytes)/(1<<20), diagTable(r.diag))
			}
		}
	}

	// Details.
	for _, r := range results {
		p("## %s transcript (%.1f MiB)\n\n", r.spec.label, float64(r.bytes)/(1<<20))
		p("| contender | median | p10–p90 | × floor | pairwise × floor | CPU median | pairwise CPU × floor | peak RSS |\n|---|---|---|---|---|---|---|---|\n")
		fl := find(r, "floor")
		fmed := stats.Pct(fl.times, .5)
		for _, c := range r.contenders {
			med := stats.Pct(c.times, .5)
			p("| %s | %s | %s–%s | %.2f× | %.2f× | %s | %.2f× | %s |\n", c.name, msText(med), msText(stats.Pct(c.times, .1)), msText(stats.Pct(c.times, .9)), med/fmed, pairwise(c, fl),
				msText(stats.Pct(c.cpu, .5)), pairwiseCPU(c, fl), kib(maxOf(c.rss)))
		}
		p("\n")
	}
	return b.String()
}

// pairwise is the median over rounds of c's time ÷ the floor's time in the same round: each
// round runs every contender once, so a round that the machine slowed down slows both.
func pairwise(c, fl *contender) float64 { return pairwiseOf(c.times, fl.times) }

// pairwiseCPU is pairwise for CPU time.
func pairwiseCPU(c, fl *contender) float64 { return pairwiseOf(c.cpu, fl.cpu) }

func pairwiseOf(c, fl []float64) float64 {
	var ratios []float64
	for i := range min(len(c), len(fl)) {
		if fl[i] > 0 {
			ratios = append(ratios, c[i]/fl[i])
		}
	}
	return stats.Pct(ratios, .5)
}

func budgetText(bud budget) string {
	var parts []string
	if bud.ratio > 0 {
		parts = append(parts, fmt.Sprintf("≤ %.1f× floor", bud.ratio))
	}
	if bud.abs > 0 {
		parts = append(parts, fmt.Sprintf("< %.0f ms", bud.abs))
	}
	if bud.rss {
		parts = append(parts, "≤ 16 MiB")
	}
	return strings.Join(parts, ", ")
}

func keysOf(results []*sizeResult, kind string) []string {
	var keys []string
	for _, c := range results[0].contenders {
		if c.kind == kind {
			keys = append(keys, c.key)
		}
	}
	return keys
}

func find(r *sizeResult, key string) *contender {
	for _, c := range r.contenders {
		if c.key == key {
			return c
		}
	}
	return nil
}

func msText(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

func kib(k int64) string {
	if k == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f MiB", float64(k)/1024)
}
