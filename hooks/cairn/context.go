package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/brief"
	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/saved"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/search"
)

func init() {
	register("context", "save", command{"[title] [--summary …] [--decisions …] [--remaining …] [--notes …] [--status S]",
		"save the working context as a new checkpoint; without section flags, the sections are read as markdown from stdin (### Summary, ### Decisions Made, ### Remaining Work, ### Notes; plain text is the summary)", contextSave})
	register("context", "list", command{"[--all] [--json]",
		"list the saved contexts of the current branch (--all: of every branch), newest first; # numbers count over all branches", contextList})
	register("context", "restore", command{"[fragment|number]",
		"show the newest saved context of any branch, or the one whose name contains fragment (a checkpoint id from cairn search), or number N of cairn context list --all; another item's id from cairn search shows that item", contextRestore})
}

// The rules and sentences of the original /context-save and /context-restore workflow, kept as
// users know them (docs/DESIGN.md, What cairn is for).
const (
	ruleLine        = "════════════════════════════════════════"
	noContexts      = "No saved contexts yet. Run /context-save to save your current working state."
	noContextsYet   = "No saved contexts yet. Run /context-save first to save your current working state, then /context-restore will find it."
	restoreLater    = "Restore later with /context-restore."
	listOnSaveSide  = "Use cairn context list — listing lives on the save side."
	restoreNotSave  = "use cairn context restore: save and restore are separate commands"
	maxStdinSection = 1 << 20
)

// validStatus keeps --status a single word that the list table can show: 1 to 32 of a-z, 0-9 and
// '-', not starting with '-'.
func validStatus(s string) bool {
	if s == "" || len(s) > 32 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// contextBranch is the branch checkpoints are saved on and listed for: "" outside a git
// repository, where the original /context-save workflow would record "main"
// (`git branch --show-current || echo main`), a branch that does not exist; a detached HEAD is its short commit id (Project.Branch).
func contextBranch(p *project.Project) string { return p.Branch() }

// branchText is a branch for the CLI's blocks: "(none: not a git repository)" for "".
func branchText(b string) string {
	if b == "" {
		return "(none: not a git repository)"
	}
	return b
}

// contextSession is the session the CLI serves ($CLAUDE_CODE_SESSION_ID, else the registry's most
// recently active session), or "".
func contextSession(c *CLI, p *project.Project) (*registry.Registry, string) {
	reg := registry.Open(p)
	sid, _ := reg.Current(c.Env.Get("CLAUDE_CODE_SESSION_ID"))
	return reg, sid
}

func contextSave(ctx context.Context, c *CLI, args []string) error {
	// The original /context-save takes "list [--all]" too: the listing's flags are the listing's.
	if len(args) > 0 && args[0] == "list" {
		return contextList(ctx, c, args[1:])
	}
	fs := flag.NewFlagSet("context save", flag.ContinueOnError)
	var sec checkpoint.Sections
	fs.StringVar(&sec.Summary, "summary", "", "what is being worked on and how far it got")
	fs.StringVar(&sec.Decisions, "decisions", "", "decisions made, and why")
	fs.StringVar(&sec.Remaining, "remaining", "", "the remaining work, in priority order")
	fs.StringVar(&sec.Notes, "notes", "", "gotchas, blockers, open questions")
	status := fs.String("status", checkpoint.StatusInProgress, "the checkpoint's status")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	title := strings.Join(pos, " ")
	switch title {
	case "resume", "restore":
		return usagef(restoreNotSave)
	}
	if !validStatus(*status) {
		return usagef("--status %q: use lowercase letters, digits and '-' (at most 32)", *status)
	}
	flagged := false
	fs.Visit(func(f *flag.Flag) { flagged = flagged || f.Name != "status" })
	if !flagged {
		text, err := readPiped(c.Stdin)
		if err != nil {
			return fmt.Errorf("reading the sections from stdin: %w", err)
		}
		var heading string
		heading, sec = checkpoint.ParseMarkdown(text)
		if title == "" {
			title = heading
		}
	}
	if sec == (checkpoint.Sections{}) {
		c.Warn("no sections given (flags or markdown on stdin); saving the branch and the modified files only")
	}

	p, err := c.Project()
	if err != nil {
		return err
	}
	root, files, now := p.Root, p.Files, p.Now()
	e := checkpoint.Entry{Title: title, Status: *status, Branch: contextBranch(p), Worktree: p.Worktree(), Time: now, Sections: sec}
	modified, err := modifiedFiles(ctx, root)
	if err != nil {
		c.Warn("files_modified left empty: %v", err)
	}
	modified = withoutCairnFiles(ctx, c.Env, root, modified)
	e.Files = modified
	reg, sid := contextSession(c, p)
	if sid != "" {
		if started, ok := reg.Started(sid); ok && !now.Before(started) {
			e.Duration, e.HasDuration = now.Sub(started), true
		}
	}
	saved, err := checkpoint.Save(files, p.Shared(), e) // the repository's: every worktree of it sees it
	if err != nil {
		return err
	}

	n := min(len(modified), checkpoint.MaxFiles)
	mod := fmt.Sprintf("%d files", n)
	if len(modified) > n {
		mod += fmt.Sprintf(" (of %d; the rest not recorded)", len(modified))
	}
	dur := "unknown"
	if e.HasDuration {
		dur = checkpoint.FormatDuration(e.Duration)
	}
	fmt.Fprintf(c.Stdout, "CONTEXT SAVED\n%s\nTitle:    %s\nBranch:   %s\nFile:     %s\nModified: %s\nDuration: %s\n%s\n\n%s\n",
		ruleLine, checkpoint.DisplayTitle(title), branchText(e.Branch), relTo(root, saved.Path), mod, dur, ruleLine, restoreLater)
	return nil
}

// stdinWait is how long save waits for stdin to start delivering: the Bash tool may hand the
// CLI a stdin that is open but never written to, which must not stall a save with flags.
const stdinWait = 2 * time.Second

// readPiped returns what is piped on stdin: nothing when stdin is a terminal or a device such as
// /dev/null, or when nothing arrives within stdinWait; at most 1 MiB.
func readPiped(r io.Reader) (string, error) {
	if r == nil {
		return "", nil
	}
	if f, ok := r.(*os.File); ok {
		fi, err := f.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return "", nil
		}
	}
	cr := &countingReader{r: io.LimitReader(r, maxStdinSection+1)}
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(cr)
		done <- result{b, err}
	}()
	// Wait while bytes keep coming; a stdin that stays open with nothing new for stdinWait is
	// silent (nothing arrived: no sections) or stalled (something arrived, then no end: an error,
	// never a hang).
	ticker := time.NewTicker(stdinWait)
	defer ticker.Stop()
	var seen int64
	for {
		select {
		case res := <-done:
			if res.err != nil {
				return "", res.err
			}
			if len(res.data) > maxStdinSection {
				return "", errors.New("more than 1 MiB")
			}
			return string(res.data), nil
		case <-ticker.C:
			n := cr.n.Load()
			if n == 0 {
				return "", nil // open but silent: no sections on stdin
			}
			if n == seen {
				return "", fmt.Errorf("%d bytes arrived, then nothing for %v without an end of input: close stdin, or pass the sections as flags", n, stdinWait)
			}
			seen = n
		}
	}
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func contextList(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("context list", flag.ContinueOnError)
	all := fs.Bool("all", false, "list every branch, with a Branch column")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("context", "list")
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	root, shared := p.Root, p.Shared()
	branch := contextBranch(p)
	filter := branch // outside git, "": every checkpoint, as --all
	if *all {
		filter = ""
	}
	if *asJSON {
		rows, err := saved.List(shared, filter) // files_modified and timestamp: every file is read
		if err != nil {
			c.Warn("%v", err)
		}
		type row struct {
			N         int      `json:"n"`
			File      string   `json:"file"`
			Date      string   `json:"date"`
			Title     string   `json:"title"`
			Branch    string   `json:"branch"`
			Worktree  string   `json:"worktree,omitempty"`
			Status    string   `json:"status"`
			Kind      string   `json:"kind"`
			Timestamp string   `json:"timestamp,omitempty"`
			Files     []string `json:"files_modified"`
		}
		out := []row{}
		for _, r := range rows {
			files := r.Files
			if files == nil {
				files = []string{}
			}
			out = append(out, row{r.N, relTo(root, r.Path), r.Saved.Format("2006-01-02"), r.Title, r.Branch, r.Worktree, r.Status, r.Kind, r.Timestamp, files})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return nil
	}
	rows, err := listIndexed(ctx, c, shared, filter)
	if err != nil {
		c.Warn("%v", err)
	}
	if len(rows) == 0 {
		names, _ := checkpoint.Names(shared)
		if len(names) == 0 {
			fmt.Fprintln(c.Stdout, noContexts)
			return nil
		}
		fmt.Fprintf(c.Stdout, "No saved contexts on branch %s. %d on other branches: cairn context list --all\n", branch, len(names))
		return nil
	}
	// One dated in the future (a clone can commit one dated 2099) is listed last, never as the
	// newest; its number stays the one restore takes.
	now := p.Now()
	slices.SortStableFunc(rows, func(a, b listRow) int {
		fa, fb := checkpoint.Future(a.Saved, now), checkpoint.Future(b.Saved, now)
		switch {
		case fa == fb:
			return 0
		case fb:
			return -1
		}
		return 1
	})
	// The original /context-save list's table, with a Kind column: saved (yours), auto (one per
	// compaction) or handoff (one per session that did work), so that the automatic ones bury
	// nothing.
	cols := []string{"#", "Date", "Title", "Kind"}
	widths := []int{1, 10, 23, 7}
	if *all {
		cols, widths = append(cols, "Branch"), append(widths, 18)
	}
	cols, widths = append(cols, "Status"), append(widths, 11)
	var cells [][]string
	for _, r := range rows {
		status := r.Status
		if status == "" {
			status = "unknown"
		}
		line := []string{fmt.Sprint(r.N), r.Saved.Format("2006-01-02"), r.Title, r.Kind}
		if *all {
			line = append(line, branchCell(r.Branch, r.Worktree))
		}
		cells = append(cells, append(line, status))
	}
	for _, line := range cells {
		for i, v := range line {
			widths[i] = max(widths[i], utf8.RuneCountInString(v))
		}
	}
	switch {
	case *all:
		fmt.Fprintf(c.Stdout, "SAVED CONTEXTS (all branches)\n%s\n", ruleLine)
	case branch == "":
		fmt.Fprintf(c.Stdout, "SAVED CONTEXTS (not a git repository: all of them)\n%s\n", ruleLine)
	default:
		fmt.Fprintf(c.Stdout, "SAVED CONTEXTS (%s branch)\n%s\n", branch, ruleLine)
	}
	dashes := make([]string, len(cols))
	for i, w := range widths {
		dashes[i] = strings.Repeat("─", w)
	}
	fmt.Fprintln(c.Stdout, tableRow(cols, widths))
	fmt.Fprintln(c.Stdout, tableRow(dashes, widths))
	for _, line := range cells {
		fmt.Fprintln(c.Stdout, tableRow(line, widths))
	}
	fmt.Fprintln(c.Stdout, ruleLine)
	return nil
}

// tableRow pads every cell but the last to its column's width, two spaces apart.
func tableRow(cells []string, widths []int) string {
	var b strings.Builder
	for i, v := range cells {
		if i == len(cells)-1 {
			b.WriteString(v)
			break
		}
		b.WriteString(v + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v)+2))
	}
	return b.String()
}

// branchCell is the list's Branch column: the branch, and the linked worktree a checkpoint was
// saved in when it was not the main checkout.
func branchCell(branch, worktree string) string {
	if worktree == "" {
		return orNone(branch)
	}
	return orNone(branch) + " (worktree " + worktree + ")"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func relTo(root, path string) string {
	if r, ok := strings.CutPrefix(path, root+string(os.PathSeparator)); ok {
		return strings.ReplaceAll(r, string(os.PathSeparator), "/")
	}
	return path
}

func contextRestore(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("context restore", flag.ContinueOnError)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	which := strings.Join(pos, " ")
	if which == "list" {
		fmt.Fprintln(c.Stdout, listOnSaveSide)
		return nil
	}
	if search.IsItemID(which) { // an id from cairn search that names no checkpoint
		return showItem(c, which, false)
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	root, shared := p.Root, p.Shared()
	// The numbers are the list's: both take the names from the index when there is one.
	var names []string
	if cps, ok := indexedCheckpoints(ctx, c); ok {
		names = make([]string, len(cps))
		for i, cp := range cps {
			names[i] = cp.Name
		}
	} else if names, err = checkpoint.Names(shared); err != nil {
		return err
	}
	sel, err := saved.SelectIn(shared, names, which, p.Now())
	if errors.Is(err, saved.ErrNone) {
		fmt.Fprintln(c.Stdout, noContextsYet)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w; hint: cairn context list --all shows them all", err)
	}
	cp := sel.Checkpoint
	now := c.Now()
	title := cp.Heading
	if title == "" {
		title = cp.Title
	}
	saved := cp.Timestamp
	switch {
	case !cp.Time.IsZero():
		saved = cp.Time.Format("2006-01-02 15:04 -07:00") + " (" + brief.Ago(now, cp.Time) + ")"
	case saved == "":
		saved = cp.Saved.Format("2006-01-02 15:04")
	}
	w := c.Stdout
	fmt.Fprintf(w, "RESUMING CONTEXT\n%s\n", ruleLine)
	fmt.Fprintf(w, "Title:       %s\n", title)
	fmt.Fprintf(w, "Branch:      %s\n", orNone(cp.Branch))
	if cp.Worktree != "" {
		fmt.Fprintf(w, "Worktree:    %s\n", cp.Worktree)
	}
	fmt.Fprintf(w, "Saved:       %s\n", saved)
	if cp.HasDuration {
		fmt.Fprintf(w, "Duration:    Last session was %s\n", checkpoint.FormatDuration(cp.Duration))
	}
	status := cp.Status
	if status == "" {
		status = "unknown"
	}
	fmt.Fprintf(w, "Status:      %s\n", status)
	fmt.Fprintf(w, "Kind:        %s\n%s\n", kindText(cp.Kind), ruleLine)
	// The original /context-restore block showed Summary, Remaining Work and Notes; the
	// decisions, which save asks for so that they are not relitigated, come too, in the file's
	// order (docs/CHECKPOINTS.md).
	for _, s := range []struct{ heading, text string }{
		{"Summary", cp.Summary}, {"Decisions Made", cp.Decisions}, {"Remaining Work", cp.Remaining}, {"Notes", cp.Notes},
	} {
		text := s.text
		if text == "" {
			text = "(none)"
		}
		fmt.Fprintf(w, "\n### %s\n%s\n", s.heading, text)
	}
	if sel.Matches > 1 {
		fmt.Fprintf(w, "\n%d saved contexts match %q; this is the newest. Pick another by its number: cairn context list --all\n", sel.Matches, which)
	}
	if cur := contextBranch(p); cp.Branch != "" && cur != "" && cp.Branch != cur {
		fmt.Fprintf(w, "\nThis context was saved on branch %s. You are currently on %s. You may want to switch branches before continuing.\n", cp.Branch, cur)
	}
	for _, m := range memoryTails(shared) {
		fmt.Fprintf(w, "\n--- %s ---\n", m.Label)
		for _, l := range m.Lines {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "\nFull file: %s\n", relTo(root, cp.Path))
	return nil
}

// kindText says what a checkpoint's kind means, for the RESUMING CONTEXT block.
func kindText(kind string) string {
	switch kind {
	case checkpoint.KindAuto:
		return "auto (taken by cairn at a compaction)"
	case checkpoint.KindHandoff:
		return "handoff (left by cairn when a session ended)"
	}
	return "saved (with /context-save)"
}

// listRow is one row of the table `cairn context list` prints.
type listRow struct {
	N                   int // over all branches, newest first, as restore numbers them
	Saved               time.Time
	Title, Kind, Branch string
	Worktree            string
	Status              string
}

// listIndexed is the table's rows from the search index, which knows each checkpoint's kind,
// branch and status without opening the file: `cairn context list` then costs a directory
// listing and, when nothing changed, a few stat calls, however many checkpoints there are
// (docs/BENCHMARKS.md). Rows are numbered over checkpoint.Names, as restore numbers them. A
// checkpoint the index does not hold (it could not be read when indexed) is read from its file;
// without an index at all, every file is (saved.List). A checkpoint edited in place, which
// changes no name, shows its new branch or status once the index next looks at every file (at
// most ten minutes later).
func listIndexed(ctx context.Context, c *CLI, root, branch string) ([]listRow, error) {
	fromFiles := func() ([]listRow, error) {
		ls, err := saved.List(root, branch)
		rows := make([]listRow, 0, len(ls))
		for _, r := range ls {
			rows = append(rows, listRow{r.N, r.Saved, r.Title, r.Kind, r.Branch, r.Worktree, r.Status})
		}
		return rows, err
	}
	cps, ok := indexedCheckpoints(ctx, c)
	if !ok {
		return fromFiles()
	}
	out := make([]listRow, 0, len(cps))
	var firstErr error
	for i, cp := range cps {
		// The name passed checkpoint.IsName, so it has the timestamp prefix; the index dated the
		// checkpoint from it.
		r := listRow{N: i + 1, Title: strings.TrimSuffix(cp.Name[len("20060102-150405-"):], ".md")}
		if cp.Read {
			r.Saved, r.Kind, r.Branch, r.Worktree, r.Status = cp.Time, cp.Kind.String(), cp.Branch, cp.Worktree, cp.Status
		} else {
			loaded, err := saved.Load(root, filepath.Join(checkpoint.Dir(root), cp.Name))
			if errors.Is(err, safefile.ErrNotRegular) {
				continue
			}
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			r.Saved, r.Kind, r.Branch, r.Worktree, r.Status = loaded.Saved, loaded.Kind, loaded.Branch, loaded.Worktree, loaded.Status
		}
		if branch == "" || r.Branch == branch {
			out = append(out, r)
		}
	}
	return out, firstErr
}

// indexedCheckpoints lists the checkpoints from the search index, newest first, with what the
// index knows of each: the same names checkpoint.Names reads from the directory, without a
// directory listing when nothing changed (a listing of thousands of entries costs milliseconds).
// ok is false when there is no index to ask; a warning says why.
func indexedCheckpoints(ctx context.Context, c *CLI) (cps []search.Checkpoint, ok bool) {
	cfg, err := searchConfig(c)
	if err != nil {
		return nil, false
	}
	ix := search.Open(cfg)
	defer ix.Close()
	all, err := ix.Checkpoints(ctx)
	if err != nil {
		c.Warn("search index: %v; reading the checkpoints themselves", err)
		return nil, false
	}
	cps = slices.DeleteFunc(all, func(cp search.Checkpoint) bool { return !checkpoint.IsName(cp.Name) })
	slices.SortFunc(cps, func(a, b search.Checkpoint) int { return strings.Compare(b.Name, a.Name) })
	return cps, true
}
