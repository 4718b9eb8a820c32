package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/brief"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/search"
)

func init() {
	topLevel["search"] = command{"<query> [--kind K] [--branch B] [--since D] [--limit N] [--wait] [--json]",
		"search checkpoints (saved, auto with their compaction summaries, hand-offs, pruned ones), parked, archived and expired items, the timeline, and Claude Code's own transcripts of this project's sessions, best match first; --kind saved|auto|handoff|checkpoint|parked|archived|expired|timeline|session|pruned (commas for several), --since 7d|12h|YYYY-MM-DD; --wait indexes every session first; -- before a query that starts with '-'",
		cmdSearch}
	topLevel["show"] = command{"<id> [--json]",
		"print the whole item an id from cairn search names (a checkpoint's id also works with cairn context restore; session:<id> prints a digest of that session and how to resume it)",
		cmdShow}
	topLevel["index"] = command{"[--json]",
		"index this project's history now — every Claude Code session of it, and cairn's files — instead of a little at each search",
		cmdIndex}
}

// maxLimit bounds --limit: more results than this is a listing, not a search.
const maxLimit = 1000

// searchConfig is where the project's search index lives: under $CAIRN_SEARCH_CACHE when set
// (tests, benchmarks), else under the user's cache directory, else in the project.
func searchConfig(c *CLI) (search.Config, error) {
	// Building the index is the one thing a cairn command does whose memory grows with the
	// history; the bounds in pkg/search hold a build of any repository's files near this, and
	// the soft limit makes the collector work harder rather than go past it.
	debug.SetMemoryLimit(searchMemory)
	p, err := c.Project()
	if err != nil {
		return search.Config{}, err
	}
	// Without a config directory, legacy parked items are left out.
	return search.Config{Root: p.Root, Shared: p.Shared(), ConfigDir: p.Config, CacheDir: searchCacheDir(c.Env), Now: p.Now}, nil
}

// historyConfig is searchConfig with the history: the transcripts of every root of the project's
// history (project.HistoryRoots), for the commands that search or show sessions.
func historyConfig(c *CLI) (search.Config, error) {
	cfg, err := searchConfig(c)
	if err == nil && cfg.ConfigDir != "" {
		cfg.Roots = project.HistoryRoots(cfg.Root)
	}
	return cfg, err
}

// searchCacheDir is the cache directory the search index goes in: $CAIRN_SEARCH_CACHE when set
// (tests, benchmarks), else the user's cache directory; "" when there is none.
func searchCacheDir(env project.Env) string {
	if d := env.Get("CAIRN_SEARCH_CACHE"); d != "" {
		return d
	}
	return userCacheDir(env)
}

// searchMemory is the soft memory limit of a command that opens the search index.
const searchMemory = 40 << 20

// userCacheDir is os.UserCacheDir computed from the CLI's environment; "" when there is none
// (then the index goes into the project).
func userCacheDir(env project.Env) string {
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = env.Get("LocalAppData")
	case "darwin", "ios":
		if h := env.Get("HOME"); h != "" {
			dir = filepath.Join(h, "Library", "Caches")
		}
	case "plan9":
		if h := env.Get("home"); h != "" {
			dir = filepath.Join(h, "lib", "cache")
		}
	default:
		dir = env.Get("XDG_CACHE_HOME")
		if !filepath.IsAbs(dir) {
			dir = ""
			if h := env.Get("HOME"); h != "" {
				dir = filepath.Join(h, ".cache")
			}
		}
	}
	if !filepath.IsAbs(dir) {
		return ""
	}
	return dir
}

// parseSince reads --since: a number of days or weeks ("7d", "2w"), a Go duration ("12h",
// "90m") or a date ("2026-01-02", local time).
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		return t, nil
	}
	for suffix, unit := range map[string]int{"d": 1, "w": 7} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			if days, err := strconv.Atoi(n); err == nil && days >= 0 && days < 100000 {
				return now.AddDate(0, 0, -days*unit), nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: use a number of days or weeks (7d, 2w), a duration (12h) or a date (2026-01-02)", s)
}

func cmdSearch(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	kind := fs.String("kind", "", "only these kinds: "+search.KindNames+"; commas for several")
	branch := fs.String("branch", "", "only items recorded on this branch")
	since := fs.String("since", "", "only items from then on: 7d, 2w, 12h or 2026-01-02")
	limit := fs.Int("limit", search.DefaultLimit, "at most this many results")
	wait := fs.Bool("wait", false, "index every session of the history first, however long it takes")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return argsUsage("", "search", nil, "<query>")
	}
	var o search.Options
	if o.Kinds, err = search.ParseKinds(*kind); err != nil {
		return usagef("--kind: %v", err)
	}
	if *limit < 1 || *limit > maxLimit {
		return usagef("--limit %d: use 1 to %d", *limit, maxLimit)
	}
	o.Limit, o.Branch, o.Wait = *limit, *branch, *wait
	now := c.Now()
	if *since != "" {
		if o.Since, err = parseSince(*since, now); err != nil {
			return usagef("%v", err)
		}
	}
	cfg, ix, err := openIndex(ctx, c)
	if err != nil {
		return err
	}
	defer ix.Close()
	rs, err := ix.Search(ctx, query, o)
	if errors.Is(err, search.ErrNoWords) {
		return usagef("%q: %v", query, err)
	}
	if err != nil {
		return err
	}
	pendingNote(c, rs.History)
	if *asJSON {
		return printSearchJSON(c, cfg.Root, query, rs, now)
	}
	if len(rs.Items) == 0 {
		fmt.Fprintln(c.Stdout, "No matches.")
		return nil
	}
	w := c.Stdout
	if rs.Partial {
		fmt.Fprintln(w, "No item holds every word; these hold some of them.")
		fmt.Fprintln(w)
	}
	for i, r := range rs.Items {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := []string{r.Kind.String(), resultAge(now, r)}
		if r.Branch != "" {
			head = append(head, plain.Line(r.Branch, 60))
		}
		if r.Worktree != "" {
			head = append(head, "worktree "+plain.Line(r.Worktree, 60))
		}
		if where := sessionDir(cfg.Root, r); where != "" {
			head = append(head, "in "+plain.Line(where, 80))
		}
		head = append(head, plain.Line(r.Title, 120))
		fmt.Fprintln(w, strings.Join(head, " · "))
		if r.Snippet != "" {
			fmt.Fprintf(w, "  %s\n", plain.Line(r.Snippet, 0))
		}
		fmt.Fprintf(w, "  id: %s\n", plain.Line(r.ID, 0))
	}
	fmt.Fprintln(w)
	if rs.Total > len(rs.Items) {
		fmt.Fprintf(w, "%d of %d matches; --limit shows more. ", len(rs.Items), rs.Total)
	}
	fmt.Fprintln(w, "→ cairn show <id> prints an item whole")
	return nil
}

// openIndex opens the project's index, its history included, and brings the part of it that
// indexes cairn's files up to date.
func openIndex(ctx context.Context, c *CLI) (search.Config, *search.Index, error) {
	cfg, err := historyConfig(c)
	if err != nil {
		return cfg, nil, err
	}
	ix := search.Open(cfg)
	st, err := ix.Sync(ctx)
	if err != nil {
		ix.Close()
		return cfg, nil, fmt.Errorf("search index: %w", err)
	}
	if st.Unstored != nil {
		c.Warn("the search index could not be stored (%v); it is used without it", st.Unstored)
	}
	return cfg, ix, nil
}

// pendingNote says on stderr what the search's sync of the history left to index, and how to
// finish: the MCP server passes stderr on with the results.
func pendingNote(c *CLI, hs search.HistoryStats) {
	if hs.More {
		c.Warn("more than %d transcripts of this project's sessions: the rest are not searched", hs.Sessions)
	}
	if hs.Pending == 0 {
		return
	}
	if hs.Busy {
		c.Warn("%d of %d sessions of this project's history are being indexed by another cairn process: these results leave them out", hs.Pending, hs.Sessions)
		return
	}
	c.Warn("%d of %d sessions of this project's history are not indexed yet: these results leave them out", hs.Pending, hs.Sessions)
	c.Hint("cairn index indexes them now (cairn search --wait too); each search indexes some more")
}

// sessionDir is where a session started, relative to the root, when it is not the root itself:
// what `claude --resume` must be run from.
func sessionDir(root string, r search.Result) string {
	if r.Kind != search.Session || r.Cwd == "" || r.Cwd == root {
		return ""
	}
	if rel, err := filepath.Rel(root, r.Cwd); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return r.Cwd
}

// resultAge is how old a result is. A parked item is dated by its Raised day only, so its age is
// counted in days ("today", "1d ago"): "23h ago" would be a guess at the hour.
func resultAge(now time.Time, r search.Result) string {
	if r.Kind != search.Parked {
		return brief.Ago(now, r.Time)
	}
	return daysAgo(now, r.Time)
}

// daysAgo is the age of a thing dated by its day only, counted in whole days: "today", "1d ago".
func daysAgo(now, t time.Time) string {
	y, m, d := now.In(t.Location()).Date()
	days := int(time.Date(y, m, d, 0, 0, 0, 0, t.Location()).Sub(t).Hours()+12) / 24
	if days <= 0 {
		return "today"
	}
	return fmt.Sprintf("%dd ago", days)
}

// itemJSON is what cairn search --json and cairn show --json say of an item first.
type itemJSON struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Title    string `json:"title"`
	Branch   string `json:"branch,omitempty"`
	Worktree string `json:"worktree,omitempty"`
	Time     string `json:"time,omitempty"`
}

func itemOf(id string, kind search.Kind, title, branch, worktree string, t time.Time) itemJSON {
	return itemJSON{plain.Line(id, 0), kind.String(), plain.Line(title, 0), plain.Line(branch, 0), plain.Line(worktree, 0), rfc3339(t)}
}

// searchResultJSON is one result of cairn search --json.
type searchResultJSON struct {
	itemJSON
	Age     string  `json:"age"`
	Snippet string  `json:"snippet"`
	Path    string  `json:"path"`
	Dir     string  `json:"dir,omitempty"`
	Score   float64 `json:"score"`
}

func printSearchJSON(c *CLI, root, query string, rs search.Results, now time.Time) error {
	out := struct {
		Query   string             `json:"query"`
		Total   int                `json:"total"`
		Partial bool               `json:"partial"`
		Pending int                `json:"sessions_not_indexed,omitempty"`
		Results []searchResultJSON `json:"results"`
	}{Query: plain.Line(query, 0), Total: rs.Total, Partial: rs.Partial, Pending: rs.History.Pending, Results: []searchResultJSON{}}
	for _, r := range rs.Items {
		out.Results = append(out.Results, searchResultJSON{
			itemJSON: itemOf(r.ID, r.Kind, r.Title, r.Branch, r.Worktree, r.Time),
			Age:      resultAge(now, r), Snippet: plain.Line(r.Snippet, 0), Path: plain.Line(r.Path, 0),
			Dir: plain.Line(sessionDir(root, r), 0), Score: r.Score,
		})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "%s\n", b)
	return nil
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

func cmdShow(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 1 && strings.TrimSpace(pos[0]) == "" {
		pos = nil
	}
	if len(pos) != 1 {
		return argsUsage("", "show", pos, "<id>")
	}
	return showItem(c, pos[0], *asJSON)
}

// showItem prints the item id names, read from its file (no index needed).
func showItem(c *CLI, id string, asJSON bool) error {
	cfg, err := historyConfig(c)
	if err != nil {
		return err
	}
	it, err := search.Show(cfg, id)
	if errors.Is(err, search.ErrNotFound) {
		return withHint(err, "ids come from cairn search (a checkpoint's is its file name without .md)")
	}
	if err != nil {
		return err
	}
	now := c.Now()
	if asJSON {
		b, err := json.MarshalIndent(struct {
			itemJSON
			Path string `json:"path"`
			Text string `json:"text"`
		}{itemOf(it.ID, it.Kind, it.Title, it.Branch, it.Worktree, it.Time), plain.Line(it.Path, 0), plain.Terminal(plain.Text(it.Text))}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return nil
	}
	w := c.Stdout
	fmt.Fprintf(w, "%s %s\n%s\n", strings.ToUpper(it.Kind.String()), plain.Line(it.ID, 0), ruleLine)
	fmt.Fprintf(w, "Title:   %s\n", plain.Line(it.Title, 0))
	if it.Branch != "" {
		fmt.Fprintf(w, "Branch:  %s\n", plain.Line(it.Branch, 0))
	}
	if it.Worktree != "" {
		fmt.Fprintf(w, "Worktree: %s\n", plain.Line(it.Worktree, 0))
	}
	switch {
	case it.Time.IsZero():
	case it.Kind == search.Parked:
		// Dated by its Raised day, as the search results count it: an hour would be invented.
		fmt.Fprintf(w, "Raised:  %s (%s)\n", it.Time.Format("2006-01-02"), daysAgo(now, it.Time))
	default:
		fmt.Fprintf(w, "Time:    %s (%s)\n", it.Time.In(now.Location()).Format("2006-01-02 15:04 -07:00"), brief.Ago(now, it.Time))
	}
	fmt.Fprintf(w, "File:    %s\n%s\n", plain.Line(it.Path, 0), ruleLine)
	text := strings.TrimRight(plain.Terminal(plain.Text(it.Text)), "\n")
	fmt.Fprintln(w, text)
	return nil
}

// cmdIndex brings the whole index up to date now, however long the history takes: what a
// search would otherwise do a little at a time.
func cmdIndex(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := argsUsage("", "index", pos); err != nil {
		return err
	}
	start := c.Now()
	cfg, ix, err := openIndex(ctx, c)
	if err != nil {
		return err
	}
	defer ix.Close()
	hs, err := ix.SyncHistory(ctx, 0)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	took := c.Now().Sub(start)
	if *asJSON {
		b, err := json.MarshalIndent(struct {
			Sessions int     `json:"sessions"`
			Indexed  int     `json:"sessions_read"`
			Bytes    int64   `json:"transcript_bytes_read"`
			Text     int64   `json:"text_bytes_indexed"`
			Seconds  float64 `json:"seconds"`
		}{hs.Sessions, hs.Indexed, hs.Bytes, hs.Text, took.Seconds()}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return nil
	}
	if cfg.Roots == nil {
		fmt.Fprintln(c.Stdout, "Indexed cairn's files; no Claude Code config directory (neither CLAUDE_CONFIG_DIR nor HOME is set), so no session history.")
		return nil
	}
	fmt.Fprintln(c.Stdout, indexedSentence(hs, took))
	if hs.More {
		c.Warn("more than %d transcripts of this project's sessions: the rest are not indexed", hs.Sessions)
	}
	return nil
}

// byteSize writes n bytes for a person: 512 B, 3.4 KiB, 1.2 GiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGT"[exp])
}

// indexedSentence is what cairn index says it did.
func indexedSentence(hs search.HistoryStats, took time.Duration) string {
	return fmt.Sprintf("Indexed the history: %d %s of this project, %d read now (%s of transcript, %s of text), in %s.",
		hs.Sessions, digestPlural(hs.Sessions, "session", "sessions"), hs.Indexed, byteSize(hs.Bytes), byteSize(hs.Text), took.Round(10*time.Millisecond))
}
