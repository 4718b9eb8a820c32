package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/transcript"
	"github.com/cairn-hooks/cairn/scripts/internal/stats"
)

// Diagnostics: the library calls the hooks make, timed in this process (best of a few runs, no
// process start, page cache warm), to say where a whole-process time goes. They call cairn's
// packages exactly as the hooks do; they do not change them.

type diagRow struct {
	what   string
	bytes  int64 // bytes the call must read, when known (0: not a scan)
	best   time.Duration
	result string
}

// bestOf runs fn k times and keeps the fastest time.
func bestOf(k int, fn func() string) (time.Duration, string) {
	var best time.Duration
	var res string
	for i := 0; i < k; i++ {
		t := time.Now()
		res = fn()
		if d := time.Since(t); i == 0 || d < best {
			best = d
		}
	}
	return best, res
}

// transcriptDiag times the transcript questions the hooks ask, on one size's transcripts.
func (f *fixture) transcriptDiag(s *sizeFiles) []diagRow {
	const k = 5
	fi, err := os.Stat(s.T)
	if err != nil {
		return []diagRow{{what: "stat " + s.T, result: err.Error()}}
	}
	boundary, found, err := transcript.Open(s.T).LastBoundary()
	after := fi.Size() - boundary
	if err != nil || !found {
		after = fi.Size()
	}
	errText := func(err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return ""
	}
	var rows []diagRow
	add := func(what string, bytes int64, fn func() string) {
		d, res := bestOf(k, fn)
		rows = append(rows, diagRow{what: what, bytes: bytes, best: d, result: res})
	}
	add("EditedFilesSinceBoundary (PreCompact)", after, func() string {
		files, err := transcript.EditedFilesSinceBoundary(s.T, f.proj)
		return fmt.Sprintf("%d files %s", len(files), errText(err))
	})
	add("LastUserPrompts(3) (PreCompact's checkpoint)", 0, func() string {
		p, err := transcript.LastUserPrompts(s.T, 3)
		return fmt.Sprintf("%d prompts %s", len(p), errText(err))
	})
	add("LastTodos (PreCompact without task files)", 0, func() string {
		_, ok, err := transcript.LastTodos(s.T)
		return fmt.Sprintf("found=%v %s", ok, errText(err))
	})
	add("LastAssistantText (UserPromptSubmit)", 0, func() string {
		t, err := transcript.LastAssistantText(s.T)
		return fmt.Sprintf("%d chars %s", len(t), errText(err))
	})
	cfi, err := os.Stat(s.C)
	if err == nil {
		add("CompactionsAfter (SessionStart compact)", 0, func() string {
			n, err := transcript.Open(s.C).CompactionsAfter(cfi.Size())
			return fmt.Sprintf("%d %s", n, errText(err))
		})
	}
	return rows
}

// libraryDiag times the non-transcript work that the profiles of the hooks point at: reading
// the parked items (100 legacy files parsed through a YAML front-matter parser) and fitting the
// whiteboard snapshot when many files were edited.
func (f *fixture) libraryDiag(st *states) ([]diagRow, error) {
	var rows []diagRow
	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	files := safefile.Disk{Roots: []string{f.proj}}
	store := parking.New(f.proj, f.conf, files, time.Now)
	d, res := bestOf(20, func() string {
		items, err := store.List()
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%d items", len(items))
	})
	rows = append(rows, diagRow{what: "parking List: 10 bullets + 100 legacy files", best: d, result: res})
	noLegacy := parking.New(f.proj, "", files, time.Now)
	d, res = bestOf(20, func() string {
		items, err := noLegacy.List()
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%d items", len(items))
	})
	rows = append(rows, diagRow{what: "parking List: the 10 bullets only", best: d, result: res})

	mem, err := os.ReadFile(filepath.Join(f.proj, ".agents/runs/bench-run/MEMORY.md"))
	if err != nil {
		return nil, err
	}
	for _, n := range []int{10, 100, 500, 1000, 2000, 4096} {
		snap := runstate.Snapshot{Event: "bench/auto/1", At: time.Now(), RunID: "bench-run", Trigger: "auto"}
		snap.State.Set("phase", "implement")
		for i := 0; i < n; i++ {
			snap.Files = append(snap.Files, fmt.Sprintf("src/pkg%03d/file%04d.go", i%97, i))
		}
		k := 3
		if n >= 2000 {
			k = 1
		}
		d, res := bestOf(k, func() string {
			r := runstate.RefreshWhiteboard(mem, true, snap)
			return fmt.Sprintf("%d lines, %d dropped", r.Lines, r.Dropped)
		})
		rows = append(rows, diagRow{what: fmt.Sprintf("runstate.RefreshWhiteboard, %d edited files", n), best: d, result: res})
	}
	return rows, nil
}

func diagTable(rows []diagRow) string {
	var b strings.Builder
	b.WriteString("| call | best time | read after the last boundary | rate | answer |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		rate, size := "", ""
		if r.bytes > 0 {
			size = fmt.Sprintf("%.1f MiB", float64(r.bytes)/(1<<20))
			rate = fmt.Sprintf("%.2f GB/s", float64(r.bytes)/r.best.Seconds()/1e9)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.what, msText(stats.Ms(r.best)), size, rate, strings.TrimSpace(r.result))
	}
	return b.String()
}
