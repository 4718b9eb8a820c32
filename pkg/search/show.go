package search

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// Item is one item, whole, as Show reads it from its file.
type Item struct {
	ID     string
	Kind   Kind
	Title  string
	Branch string
	// Worktree is the linked worktree a checkpoint or a timeline event was recorded in; "" for
	// the main checkout's and for parked and audit items (each checkout keeps its own).
	Worktree string
	Time     time.Time // zero when unknown
	Path     string    // the file, relative to the root that holds it, with '/'; a session's transcript, absolute
	// Text is the whole item: a checkpoint's file, a parked item's bullet (or legacy file), an
	// archived or expired item's text as the audit log keeps it, a timeline event's fields, a
	// session's digest.
	Text string
}

// ErrNotFound reports an id that names no item.
var ErrNotFound = errors.New("no such item")

// Show returns the item id names (an id from Search) in the project cfg.Root, reading only the
// project's files: it needs no index (cfg.CacheDir is not used), so it works while one is
// missing or damaged.
func Show(cfg Config, id string) (Item, error) {
	root := cfg.Root
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	c := newCorpus(root, cfg.Shared, cfg.ConfigDir, now)
	if cfg.ConfigDir != "" && len(cfg.Roots) > 0 {
		c.hist = newHistory(cfg.ConfigDir, cfg.Roots)
	}
	return c.show(id)
}

// At returns where the project's file rel lies — rel relative to the root that holds it, with '/':
// an Item's Path, or one of the logs LineID reads — and the tree that confines it: under Shared
// the checkpoints, the timeline and the log of pruned checkpoints, under Root the rest, as search
// reads them. cairn forget rewrites what search found there.
func (cfg Config) At(rel string) (tree, path string) {
	root := cfg.Root
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return newCorpus(root, cfg.Shared, cfg.ConfigDir, cfg.Now).at(rel)
}

// IsItemID reports whether id names an item other than a checkpoint (a checkpoint's id is its
// file name without ".md").
func IsItemID(id string) bool {
	k, _, ok := strings.Cut(id, ":")
	if !ok {
		return false
	}
	switch kindByName(k) {
	case Parked, Archived, Expired, Timeline, Session, Pruned:
		return true
	}
	return false
}

func notFound(id string) error { return fmt.Errorf("%q: %w", id, ErrNotFound) }

func (c *corpus) show(id string) (Item, error) {
	id = strings.TrimSpace(id)
	if sid, ok := strings.CutPrefix(id, SessionPrefix); ok {
		return c.showSession(id, sid)
	}
	k, rest, hasKind := strings.Cut(id, ":")
	if !hasKind {
		return c.showCheckpoint(id)
	}
	switch kind := kindByName(k); kind {
	case Parked:
		items, err := c.parkedItems()
		for _, it := range items {
			if it.Slug == rest && !c.forgotten([]byte(it.Text)) {
				return Item{ID: id, Kind: Parked, Title: it.Name, Time: timeOf(parkedTime(it)), Path: parkedRel, Text: it.Text}, nil
			}
		}
		if err != nil {
			return Item{}, err
		}
	case Archived, Expired:
		return c.showLine(id, rest, []string{auditRel, legacyAuditRel}, func(line []byte) (Item, bool) {
			e, ok := parking.ParseAuditLine(line)
			if !ok || auditID(e, line) != id {
				return Item{}, false
			}
			text := e.Text
			if text == "" {
				text = e.Item
			}
			return Item{ID: id, Kind: auditKind(e.Action), Title: e.Item, Time: e.Time(), Text: text}, true
		})
	case Pruned:
		return c.showPruned(id, rest+".md")
	case Timeline:
		return c.showLine(id, rest, []string{timelineRel}, func(line []byte) (Item, bool) {
			ev, ok := timeline.Parse(line)
			if !ok || timelineID(ev, line) != id {
				return Item{}, false
			}
			return Item{ID: id, Kind: Timeline, Title: timelineTitle(ev), Branch: ev.Branch, Worktree: ev.Worktree, Time: ev.Time, Text: eventText(ev)}, true
		})
	}
	return Item{}, notFound(id)
}

func timeOf(unix int64) time.Time {
	if unix == 0 {
		return time.Time{}
	}
	return time.Unix(unix, 0)
}

func (c *corpus) showCheckpoint(id string) (Item, error) {
	name := id + ".md"
	if strings.ContainsAny(id, `/\`) || id == "" {
		return Item{}, notFound(id)
	}
	if _, _, ok := checkpoint.SplitName(name); !ok {
		return Item{}, notFound(id)
	}
	rel := c.ckpts + "/" + name
	tree, abs := c.at(rel)
	data, err := safefile.ReadHead(tree, abs, checkpoint.MaxRead)
	if errors.Is(err, fs.ErrNotExist) {
		return c.showPruned(id, name) // pruned by retention: its text lives on in the log
	}
	if err != nil {
		return Item{}, err
	}
	if c.forgotten(data) {
		return Item{}, notFound(id)
	}
	p := parseCheckpoint(name, data)
	return Item{ID: id, Kind: p.kind, Title: p.title, Branch: p.branch, Worktree: p.worktree, Time: p.time, Path: rel, Text: string(data)}, nil
}

// showPruned finds the checkpoint named name in the log of pruned checkpoints (the newest line
// of it: a hand-off replaced then pruned again keeps its last text).
func (c *corpus) showPruned(id, name string) (Item, error) {
	if strings.ContainsAny(name, `/\`) || !strings.HasSuffix(name, ".md") {
		return Item{}, notFound(id)
	}
	var found Item
	ok := false
	needle := []byte("/" + name + `"`)
	err := c.scanLines(prunedRel, func(l []byte) bool { return bytes.Contains(l, needle) && !c.forgotten(l) }, func(line []byte) bool {
		e, good := parsePruned(line)
		if good && e.name == name {
			p := parseCheckpoint(name, []byte(e.text))
			found, ok = Item{ID: id, Kind: Pruned, Title: p.title, Branch: p.branch, Time: p.time, Path: prunedRel, Text: e.text}, true
		}
		return true
	})
	if ok {
		return found, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Item{}, err
	}
	return Item{}, notFound(id)
}

// showLine finds the line of one of the files whose id is id. An id that carries a time only
// parses the lines that hold that time; a forgotten line is not found.
func (c *corpus) showLine(id, rest string, files []string, match func([]byte) (Item, bool)) (Item, error) {
	var ts []byte
	if len(rest) > len(idTime) && rest[len(idTime)] == '-' {
		t, err := time.Parse(idTime, rest[:len(idTime)])
		if err != nil {
			return Item{}, notFound(id)
		}
		ts = []byte(t.Format("2006-01-02T15:04:05"))
	}
	want := func(l []byte) bool { return (ts == nil || bytes.Contains(l, ts)) && !c.forgotten(l) }
	for _, rel := range files {
		var found Item
		ok := false
		err := c.scanLines(rel, want, func(line []byte) bool {
			found, ok = match(line)
			return !ok
		})
		if ok {
			found.Path = rel
			return found, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Item{}, err
		}
	}
	return Item{}, notFound(id)
}

// eventText writes a timeline event's fields, one per line.
func eventText(ev timeline.Event) string {
	var b strings.Builder
	for _, f := range [][2]string{
		{"event", ev.Event}, {"session", ev.Session}, {"branch", ev.Branch}, {"worktree", ev.Worktree}, {"source", ev.Source},
		{"trigger", ev.Trigger}, {"reason", ev.Reason}, {"checkpoint", ev.Checkpoint},
	} {
		if f[1] != "" {
			fmt.Fprintf(&b, "%s: %s\n", f[0], f[1])
		}
	}
	if !ev.Time.IsZero() {
		fmt.Fprintf(&b, "time: %s\n", ev.Time.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// LineID is the id search gives a line of one of the project's logs — rel is the log's path
// relative to the root: the audit log (and the original workflow's), the timeline, the log of
// pruned checkpoints — and "" for a line that is no item of it. cairn forget finds the lines an
// id names with it.
func LineID(rel string, line []byte) string {
	switch rel {
	case auditRel, legacyAuditRel:
		if e, ok := parking.ParseAuditLine(line); ok && auditKind(e.Action) != 0 {
			return auditID(e, line)
		}
	case timelineRel:
		if ev, ok := timeline.Parse(line); ok {
			return timelineID(ev, line)
		}
	case prunedRel:
		if e, ok := parsePruned(line); ok {
			return prunedID(e)
		}
	}
	return ""
}
