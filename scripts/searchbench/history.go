package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/pkg/search/searchtest"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
	"github.com/cairn-hooks/cairn/scripts/internal/stats"
)

// The history benchmark (-history 100MB,1GB,3GB): Claude Code's transcripts of one project's
// sessions, generated at run time in Claude Code's format (transcripttest, with the vocabulary of
// $GOROOT/src's comments so that the index meets a real one), a session every two hours back
// from now, each size in a directory of its own under -dir, deleted afterwards unless -keep. Per
// size:
//
//   - the cold index: `cairn index` on an empty cache, its wall time and peak RSS (GNU time);
//   - the index's size against the text it indexed (what `cairn index --json` reports: the
//     prompts, Claude's text, commands and errors, edited paths, redacted — not the JSONL);
//   - warm `cairn search` as a whole process for each query, and the same through `cairn mcp`;
//   - a refresh: one session appended 1 MB, then `cairn search`; and two transcripts written over
//     in place, then `cairn search` (what cost a peer a rewrite of its whole index).
//
// The peers' case rides along (-peer): 201 sessions, about 67 MB.

// histCase is one generated history.
type histCase struct {
	name       string
	size       int64 // bytes of transcripts to generate
	sessions   int   // or this many sessions (the peers' case), sized minSession…2 MiB
	dir        string
	root       string // the project
	config     string // Claude Code's config directory
	transcript string // the directory of its transcripts
}

type histResult struct {
	c                         histCase
	files                     int
	bytes, text, index        int64
	cold                      []float64
	coldRSS                   int64
	queries                   [][]string
	warm, warmP90, mcp, mcpP9 []float64
	warmRSS                   int64
	refresh, rewrite          []float64
	refreshIn                 []float64
}

// historyQueries are the history's queries, from the vocabulary: the commonest word (in nearly
// every message), a frequent one, two rarer ones together, a prefix.
func historyQueries() [][]string {
	v := searchtest.Words()
	prefix := v[400]
	if len(prefix) > 4 {
		prefix = prefix[:4]
	}
	return [][]string{{v[0]}, {v[60]}, {v[300], v[900]}, {prefix + "*"}}
}

func runHistory(o options, r *runner, floor float64) error {
	var cases []histCase
	for _, s := range o.history {
		n, err := transcripttest.ParseSize(s)
		if err != nil {
			return fmt.Errorf("-history: %v", err)
		}
		cases = append(cases, histCase{name: s, size: n})
	}
	if o.peer {
		cases = append(cases, histCase{name: "peers' case", sessions: 201})
	}
	var results []histResult
	for i, c := range cases {
		c.dir = filepath.Join(o.dir, fmt.Sprintf("history-%d", i))
		c.root = filepath.Join(c.dir, "proj")
		c.config = filepath.Join(c.dir, "claude")
		c.transcript = filepath.Join(c.config, "projects", project.Slug(c.root))
		if !o.keep {
			defer os.RemoveAll(c.dir)
		}
		res, err := measureHistory(o, r, c)
		if err != nil {
			return err
		}
		results = append(results, res)
	}
	var b strings.Builder
	historyReport(&b, o, floor, results)
	fmt.Print(b.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(b.String()), 0o644)
	}
	return nil
}

// generate writes c's transcripts (searchtest.History), once: a marker says they are complete.
func generate(c histCase) (files int, bytes int64, err error) {
	os.MkdirAll(c.root, 0o755)
	marker := filepath.Join(c.dir, ".generated")
	if _, err := os.Stat(marker); err == nil {
		for _, fi := range transcripts(c.transcript) {
			files, bytes = files+1, bytes+fi.Size()
		}
		return files, bytes, nil
	}
	files, bytes, err = searchtest.History(c.transcript, c.root, searchtest.HistoryOptions{Size: c.size, Sessions: c.sessions, Seed: 7})
	if err == nil {
		os.WriteFile(marker, nil, 0o644)
	}
	return files, bytes, err
}

func measureHistory(o options, r *runner, c histCase) (histResult, error) {
	res := histResult{c: c, queries: historyQueries()}
	logf("history %s: generating", c.name)
	var err error
	if res.files, res.bytes, err = generate(c); err != nil {
		return res, err
	}
	logf("history %s: %d sessions, %s", c.name, res.files, mib(res.bytes))
	hr := *r
	hr.config = c.config
	cache := filepath.Join(c.dir, "cache")

	// Cold: cairn index on an empty cache; the last run also under GNU time for its peak RSS.
	for i := 0; i < o.coldN; i++ {
		os.RemoveAll(cache)
		d, out, err := hr.exec(c.root, cache, "index", "--json")
		if err != nil {
			return res, err
		}
		res.cold = append(res.cold, stats.Ms(d))
		var st struct {
			Text int64 `json:"text_bytes_indexed"`
		}
		json.Unmarshal([]byte(out), &st)
		res.text = st.Text
		logf("history %s: cold index %.1f s", c.name, stats.Ms(d)/1000)
	}
	os.RemoveAll(cache)
	res.coldRSS = hr.rss(c.root, cache, "index")
	res.index = stats.DirSize(cache)

	// Warm, whole process.
	for _, q := range res.queries {
		args := append([]string{"search"}, q...)
		for i := 0; i < 3; i++ {
			if _, _, err := hr.exec(c.root, cache, args...); err != nil {
				return res, err
			}
		}
		var ts []float64
		for i := 0; i < o.n; i++ {
			d, _, err := hr.exec(c.root, cache, args...)
			if err != nil {
				return res, err
			}
			ts = append(ts, stats.Ms(d))
		}
		res.warm, res.warmP90 = append(res.warm, stats.Median(ts)), append(res.warmP90, stats.Pct(ts, 0.9))
		logf("history %s: %-30s %.2f ms", c.name, strings.Join(q, " "), stats.Median(ts))
	}
	res.warmRSS = hr.rss(c.root, cache, append([]string{"search"}, res.queries[0]...)...)

	// Through MCP.
	m, err := measureMCP(&hr, c.root, cache, res.queries, o.n)
	if err != nil {
		return res, err
	}
	res.mcp, res.mcpP9 = m.median, m.p90

	// A refresh: the newest session appends 1 MB (generated, in the same format), then a search.
	newest := newestTranscript(c.transcript)
	for i := 0; i < 5; i++ {
		var more bytes.Buffer
		transcripttest.Generate(&more, transcripttest.Options{Size: 1 << 20, Seed: uint64(1000 + i), Root: c.root, Words: searchtest.Words()})
		if err := appendFile(newest, more.Bytes()); err != nil {
			return res, err
		}
		d, _, err := hr.exec(c.root, cache, append([]string{"search", "--wait"}, res.queries[1]...)...)
		if err != nil {
			return res, err
		}
		res.refresh = append(res.refresh, stats.Ms(d))
	}
	// The same in process: the index's sync alone, after 1 MB more.
	ix := search.Open(search.Config{Root: c.root, CacheDir: cache, ConfigDir: c.config, Roots: []string{c.root}})
	for i := 0; i < 5; i++ {
		var more bytes.Buffer
		transcripttest.Generate(&more, transcripttest.Options{Size: 1 << 20, Seed: uint64(2000 + i), Root: c.root, Words: searchtest.Words()})
		appendFile(newest, more.Bytes())
		start := time.Now()
		if _, err := ix.SyncHistory(context.Background(), 0); err != nil {
			return res, err
		}
		res.refreshIn = append(res.refreshIn, stats.Ms(time.Since(start)))
	}
	ix.Close()
	// Two transcripts written over in place: one byte in the middle of each changed.
	mid := middleTranscripts(c.transcript)
	for i := 0; i < 3; i++ {
		for _, p := range mid {
			if err := flipMiddle(p); err != nil {
				return res, err
			}
		}
		d, _, err := hr.exec(c.root, cache, append([]string{"search", "--wait"}, res.queries[1]...)...)
		if err != nil {
			return res, err
		}
		res.rewrite = append(res.rewrite, stats.Ms(d))
	}
	logf("history %s: refresh after 1 MB %.1f ms, 2 rewritten %.1f ms", c.name, stats.Median(res.refresh), stats.Median(res.rewrite))
	return res, nil
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(data)
	return err
}

func transcripts(dir string) []os.FileInfo {
	entries, _ := os.ReadDir(dir)
	var out []os.FileInfo
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			out = append(out, fi)
		}
	}
	return out
}

func newestTranscript(dir string) string {
	fs := transcripts(dir)
	sort.Slice(fs, func(i, j int) bool { return fs[i].ModTime().After(fs[j].ModTime()) })
	return filepath.Join(dir, fs[0].Name())
}

// middleTranscripts are two transcripts of the median size.
func middleTranscripts(dir string) []string {
	fs := transcripts(dir)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Size() < fs[j].Size() })
	m := len(fs) / 2
	return []string{filepath.Join(dir, fs[m].Name()), filepath.Join(dir, fs[m+1].Name())}
}

// flipMiddle changes one letter in the middle of the file at path, in place: an edit the index
// must notice without the file growing.
func flipMiddle(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, _ := f.Stat()
	buf := make([]byte, 64<<10)
	off := fi.Size() / 2
	n, _ := f.ReadAt(buf, off)
	for i := 0; i < n; i++ {
		if c := buf[i]; c >= 'a' && c < 'z' {
			_, err := f.WriteAt([]byte{c + 1}, off+int64(i))
			return err
		}
	}
	return fmt.Errorf("%s: no letter to change", path)
}

func historyReport(w io.Writer, o options, floor float64, rs []histResult) {
	fmt.Fprintf(w, "Floor (scripts/floor, %d runs): median %.2f ms → 10× is %.1f ms.\n", o.floorN, floor, 10*floor)
	qs := historyQueries()
	var names []string
	for _, q := range qs {
		names = append(names, "`"+strings.Join(q, " ")+"`")
	}
	fmt.Fprintf(w, "Queries: %s (the first is in nearly every message).\n\n", strings.Join(names, ", "))
	fmt.Fprintln(w, "| history | sessions | text indexed | cold `cairn index` | cold peak RSS | index | index / text |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s (%s) | %d | %s | %s | %s | %s | %.0f%% |\n", r.c.name, mib(r.bytes), r.files, mib(r.text),
			seconds(r.cold), mib(r.coldRSS<<10), mib(r.index), 100*float64(r.index)/float64(max(r.text, 1)))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Warm `cairn search`, whole process (median ms of %d runs, × floor; p90 in brackets), and through `cairn mcp` (a tools/call search to one server, median ms):\n\n", o.n)
	fmt.Fprint(w, "| history |")
	for _, n := range names {
		fmt.Fprintf(w, " %s | MCP |", n)
	}
	fmt.Fprintln(w, " warm peak RSS |")
	fmt.Fprint(w, "|---|")
	for range names {
		fmt.Fprint(w, "---|---|")
	}
	fmt.Fprintln(w, "---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s |", r.c.name)
		for i := range names {
			fmt.Fprintf(w, " %.1f (%.1f×) [%.1f] | %.1f |", r.warm[i], r.warm[i]/floor, r.warmP90[i], r.mcp[i])
		}
		fmt.Fprintf(w, " %s |\n", mib(r.warmRSS<<10))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Refresh (median ms of 5, or 3 for the rewrite): one session appended 1 MB, then `cairn search --wait` as a whole process (--wait: the whole of it read before the answer, whatever the budget) and the index's sync alone in process; two transcripts of the median size written over in place (one letter in the middle of each), then `cairn search --wait`:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| history | +1 MB, whole process | +1 MB, sync in process | 2 written over, whole process |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f |\n", r.c.name, stats.Median(r.refresh), stats.Median(r.refreshIn), stats.Median(r.rewrite))
	}
}

func seconds(ms []float64) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, strconv.FormatFloat(m/1000, 'f', 1, 64))
	}
	return strings.Join(parts, " / ") + " s"
}
