package search

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tombstone"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// find returns the transcript of session sid among the history's directories: a regular file, of
// a session that started under one of the roots, not forgotten.
func (h *history) find(sid string) (transcriptFile, bool) {
	if !project.SafeName(sid) {
		return transcriptFile{}, false
	}
	if stones, _ := tombstone.Read(h.config); stones.Session(sid) {
		return transcriptFile{}, false
	}
	for _, d := range project.TranscriptDirs(h.config, h.roots) {
		rel := d.Name + "/" + sid + ".jsonl"
		f, fi, err := safefile.Open(h.projects, h.abs(rel))
		if err != nil {
			continue
		}
		_, cwd, _ := transcript.Start(f, fi.Size())
		f.Close()
		if h.started(cwd, d.Exact) {
			return transcriptFile{path: rel, root: d.Root, exact: d.Exact, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, true
		}
	}
	return transcriptFile{}, false
}

// showSession is Show for session:<sid>: a digest of the session read from its transcript
// (transcript.ReadDigest), every text of it redacted.
func (c *corpus) showSession(id, sid string) (Item, error) {
	if c.hist == nil {
		return Item{}, notFound(id)
	}
	f, ok := c.hist.find(sid)
	if !ok {
		return Item{}, notFound(id)
	}
	d, ok, err := transcript.ReadDigest(c.hist.abs(f.path))
	if err != nil {
		return Item{}, err
	}
	if !ok {
		return Item{}, notFound(id)
	}
	it := Item{ID: id, Kind: Session, Branch: plain.Line(redact.Redact(d.Branch), 0), Path: c.hist.abs(f.path), Text: digestText(sid, f, d)}
	if len(d.First) > 0 {
		it.Title = plain.Line(redact.Redact(d.First[0]), 120)
	}
	if t, err := time.Parse(time.RFC3339Nano, d.End); err == nil {
		it.Time = t
	}
	return it, nil
}

// digestText writes a session's digest: what it was asked, what it changed and ran, what Claude
// Code's summaries kept, what it decided, and how to go back to it.
func digestText(sid string, f transcriptFile, d transcript.Digest) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	field := func(s string) string { return plain.Line(redact.Redact(s), 0) }
	dir := d.Cwd
	if dir == "" {
		dir = f.root
	}
	when := func(s string) string {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return "?"
		}
		return t.Local().Format("2006-01-02 15:04")
	}
	line("Session %s, in %s", sid, field(dir))
	if d.Start != "" {
		line("From %s to %s, on branch %s", when(d.Start), when(d.End), orNone(field(d.Branch)))
	}
	line("")
	line("Requests (%d typed):", d.Prompts)
	n := 0
	for _, p := range d.First {
		n++
		line("  %d. %s", n, field(p))
	}
	if skipped := d.Prompts - len(d.First) - len(d.Last); skipped > 0 {
		line("  … %d more", skipped)
		n += skipped
	}
	for _, p := range d.Last {
		n++
		line("  %d. %s", n, field(p))
	}
	if len(d.Edited) > 0 {
		line("")
		line("Files edited, most recent first (%d):", len(d.Edited)+d.MoreEdited)
		for _, p := range d.Edited {
			line("  - %s", field(relTo(dir, p)))
		}
		if d.MoreEdited > 0 {
			line("  … %d more", d.MoreEdited)
		}
	}
	if len(d.Commands) > 0 {
		line("")
		if d.MoreCommands > 0 {
			line("Commands, the last %d of %d, with how each ended:", len(d.Commands), len(d.Commands)+d.MoreCommands)
		} else {
			line("Commands, with how each ended:")
		}
		for _, c := range d.Commands {
			s := "  $ " + field(c.Line) + "  → " + field(c.Status)
			if c.Output != "" {
				s += ": " + field(c.Output)
			}
			line("%s", s)
		}
	}
	for i, s := range d.Summaries {
		line("")
		if len(d.Summaries) == 1 {
			line("Claude Code's summary, at its last compaction:")
		} else {
			line("Claude Code's summary, at the %s of its last %d compactions:", ordinal(i+1), len(d.Summaries))
		}
		for _, l := range strings.Split(plain.Text(redact.Redact(s)), "\n") {
			line("  %s", l)
		}
	}
	if len(d.Decisions) > 0 {
		line("")
		line("Decisions stated:")
		for _, s := range d.Decisions {
			line("  - %s", field(s))
		}
	}
	line("")
	line("Resume it in Claude Code: cd %s && claude --resume %s", shellQuote(field(dir)), sid)
	return b.String()
}

func ordinal(n int) string {
	return [...]string{"", "first", "second", "third"}[min(n, 3)]
}

func orNone(s string) string {
	if s == "" {
		return "(none recorded)"
	}
	return s
}

// relTo is p relative to dir when inside it, else p.
func relTo(dir, p string) string {
	if dir != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// shellQuote quotes a directory for a command line a person copies, when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
