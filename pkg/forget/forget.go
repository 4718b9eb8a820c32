// Package forget removes an item — anything cairn search finds — from every record cairn
// controls, and leaves a tombstone so that nothing cairn derives brings it back (docs/SEARCH.md,
// Forget). The route:
//
//  1. [Prepare] reads, without a lock, where the item an id names lives: a checkpoint's file, its
//     catalog entry and the timeline's lines that name it; lines of the audit log, the timeline or
//     the log of pruned checkpoints; a parked bullet and its legacy copies; a session's transcript,
//     which is Claude Code's and stays, the session leaving cairn's index alone. It hashes what it
//     will remove (package tombstone), and says what forget cannot reach for this item.
//  2. [Plan.Apply] appends the tombstones first, synced — ids and hashes, never the text — then
//     removes each record, each under its own lock and atomically (a log rewritten whole without
//     the item's lines, Files.Update), then rebuilds the search index without the item.
//
// A crash between the two leaves the item in its files but its tombstone written: search already
// leaves it out, and forgetting it again finishes the job.
package forget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/tombstone"
)

// Plan is what forgetting one item does.
type Plan struct {
	ID   string
	Kind string
	// Removes says what goes, one line each, in the order Apply goes; Keeps says what forget
	// cannot reach for this item.
	Removes, Keeps []string

	p      *project.Project
	cfg    search.Config
	stones []tombstone.Stone
	steps  []func() error
	cat    *catalog.Catalog // the project's catalog, opened once (catalog)
}

// catalog is the handle on the project's catalog, opened on first use: the plan reads it and a
// step forgets an entry through the same handle.
func (pl *Plan) catalog() *catalog.Catalog {
	if pl.cat == nil {
		pl.cat = catalog.Open(pl.p, timeline.Open(pl.p))
	}
	return pl.cat
}

// The logs forget rewrites, relative to the root.
const (
	auditRel       = parking.AuditRel
	legacyAuditRel = parking.LegacyAuditRel
	timelineRel    = timeline.File
	prunedRel      = catalog.PrunedFile
)

// maxLog bounds a log forget rewrites (read whole, under its lock).
const maxLog = 256 << 20

// Prepare reads where the item id names lives (search.Show resolves it as cairn show does) and
// returns the plan; search.ErrNotFound when nothing has that id.
func Prepare(p *project.Project, cfg search.Config, id string) (*Plan, error) {
	id = strings.TrimSpace(id)
	it, err := search.Show(cfg, id)
	if err != nil {
		return nil, err
	}
	pl := &Plan{ID: id, Kind: it.Kind.String(), p: p, cfg: cfg}
	switch it.Kind {
	case search.Session:
		err = pl.session(it)
	case search.Parked:
		err = pl.parked(strings.TrimPrefix(id, "parked:"))
	case search.Archived, search.Expired:
		err = pl.lines(auditRel, id)
		if err == nil {
			err = pl.legacyLines(id)
		}
	case search.Timeline:
		err = pl.lines(timelineRel, id)
	case search.Pruned:
		err = pl.pruned()
	default:
		err = pl.checkpoint(it)
	}
	if err != nil {
		return nil, err
	}
	pl.Keeps = append(pl.Keeps, "copies cairn does not control: git history and other clones, backups, what Claude was already told in a running session")
	return pl, nil
}

func (pl *Plan) stone(hash string) {
	pl.stones = append(pl.stones, tombstone.Stone{Time: pl.p.Now(), Project: pl.p.Root, ID: pl.ID, Kind: pl.Kind, Hash: hash})
}

func (pl *Plan) step(what string, do func() error) {
	pl.Removes = append(pl.Removes, what)
	pl.steps = append(pl.steps, do)
}

// at is where the file rel of the project lies, as search found it (search.Config.At): a linked
// worktree's checkpoints, timeline and log of pruned checkpoints under its main checkout.
func (pl *Plan) at(rel string) (tree, path string) { return pl.cfg.At(rel) }

func (pl *Plan) abs(rel string) string {
	_, path := pl.at(rel)
	return path
}

// session: the tombstone takes it out of the index; its transcript is Claude Code's.
func (pl *Plan) session(it search.Item) error {
	pl.stone("")
	pl.Removes = append(pl.Removes, "the session's stretches in the search index (and it is never indexed again)")
	pl.Keeps = append(pl.Keeps, "its transcript, "+it.Path+", which is Claude Code's: `claude --resume` still opens it; delete it yourself to remove it")
	sid := strings.TrimPrefix(it.ID, search.SessionPrefix)
	var own []string
	for _, e := range pl.catalog().Entries() {
		if e.Session == sid {
			own = append(own, strings.TrimSuffix(filepath.Base(e.File), ".md"))
		}
	}
	if len(own) > 0 {
		pl.Keeps = append(pl.Keeps, "the checkpoints cairn took of it, items of their own (cairn forget each): "+strings.Join(own, ", "))
	}
	return nil
}

// checkpoint: its file, its catalog entry, the timeline's lines that name it, its lines in the
// log of pruned checkpoints (a hand-off replaced by a newer one).
func (pl *Plan) checkpoint(it search.Item) error {
	rel := it.Path
	tree, path := pl.at(rel)
	data, err := safefile.ReadHead(tree, path, checkpoint.MaxRead)
	if err != nil {
		return err
	}
	pl.stone(tombstone.Hash(data))
	pl.step("the checkpoint "+rel, func() error { return pl.p.Files.Remove(path) })
	for _, e := range pl.catalog().Entries() {
		if e.File == rel {
			pl.step("its entry in "+catalog.IndexFile, func() error {
				_, err := pl.catalog().Forget(rel)
				return err
			})
		}
	}
	return pl.naming(rel)
}

// naming plans the removal of the lines of the timeline and of the log of pruned checkpoints
// that name the checkpoint file rel.
func (pl *Plan) naming(rel string) error {
	quoted := []byte(`"` + rel + `"`)
	for _, log := range []string{timelineRel, prunedRel} {
		log := log
		match := func(l []byte) bool {
			if !bytes.Contains(l, quoted) {
				return false
			}
			if log == timelineRel {
				ev, ok := timeline.Parse(l)
				return ok && ev.Checkpoint == rel
			}
			return search.LineID(log, l) != ""
		}
		if err := pl.dropPlanned(log, match); err != nil {
			return err
		}
	}
	return nil
}

// pruned: its lines in the log of pruned checkpoints, and the timeline's lines that name it.
func (pl *Plan) pruned() error {
	name := strings.TrimPrefix(pl.ID, "pruned:")
	var rel string // the checkpoint's path, as the log records it
	for _, l := range pl.read(prunedRel, func(l []byte) bool { return search.LineID(prunedRel, l) == "pruned:"+name }) {
		if cp := checkpointOf(l); cp != "" {
			rel = cp
		}
	}
	if err := pl.lines(prunedRel, "pruned:"+name); err != nil {
		return err
	}
	if rel != "" {
		return pl.dropPlanned(timelineRel, func(l []byte) bool {
			ev, ok := timeline.Parse(l)
			return ok && ev.Checkpoint == rel
		})
	}
	return nil
}

// checkpointOf is the checkpoint a pruned line names.
func checkpointOf(l []byte) string { return gjson.GetBytes(l, "checkpoint").Str }

// parked: the bullet and its legacy copies, without an audit line.
func (pl *Plan) parked(slug string) error {
	store := parking.Open(pl.p, sessionfile.Open(pl.p))
	items, err := store.List()
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Slug != slug {
			continue
		}
		pl.stone(tombstone.Hash([]byte(it.Text)))
		where := "its bullet in " + sessionfile.Rel
		if it.Source == parking.Legacy {
			where = "its file " + it.Path
		}
		pl.step("the parked item "+slug+": "+where+" (no line in the audit log)", func() error {
			_, err := store.Forget(slug)
			return err
		})
		return nil
	}
	return search.ErrNotFound
}

// lines plans the removal of the lines of log whose search id is id.
func (pl *Plan) lines(log, id string) error {
	return pl.dropPlanned(log, func(l []byte) bool { return search.LineID(log, l) == id })
}

// legacyLines: the original workflow's audit log is not cairn's to rewrite; its lines stay,
// hidden from search by their tombstones.
func (pl *Plan) legacyLines(id string) error {
	for _, l := range pl.read(legacyAuditRel, func(l []byte) bool { return search.LineID(legacyAuditRel, l) == id }) {
		pl.stone(tombstone.Hash(l))
		pl.Keeps = append(pl.Keeps, "its line in "+legacyAuditRel+", the original /session workflow's log, which cairn reads and never writes (search leaves it out)")
	}
	return nil
}

// read returns the lines of the log at rel that match.
func (pl *Plan) read(rel string, match func([]byte) bool) [][]byte {
	tree, path := pl.at(rel)
	data, _, err := safefile.ReadFile(tree, path, maxLog)
	if err != nil {
		return nil
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(l) > 0 && match(l) {
			out = append(out, l)
		}
	}
	return out
}

// dropPlanned plans the removal of the lines of the log at rel that match now, each with its
// tombstone; lines that match only later (appended meanwhile) are not removed.
func (pl *Plan) dropPlanned(rel string, match func([]byte) bool) error {
	found := pl.read(rel, match)
	if len(found) == 0 {
		return nil
	}
	hashes := map[string]bool{}
	for _, l := range found {
		h := tombstone.Hash(l)
		hashes[h] = true
		pl.stone(h)
	}
	what := fmt.Sprintf("%d line(s) of %s", len(found), rel)
	pl.step(what, func() error {
		_, err := pl.p.Files.Update(pl.abs(rel), 0o644, func(old []byte, exists bool) ([]byte, error) {
			if !exists {
				return nil, safefile.ErrNoChange
			}
			var out []byte
			changed := false
			for rest := old; len(rest) > 0; {
				l, tail, ok := bytes.Cut(rest, []byte("\n"))
				rest = tail
				if match(l) && hashes[tombstone.Hash(l)] {
					changed = true
					continue
				}
				out = append(out, l...)
				if ok {
					out = append(out, '\n')
				}
			}
			if !changed {
				return nil, safefile.ErrNoChange
			}
			return out, nil
		}, safefile.Limit(maxLog))
		return err
	})
	return nil
}

// Apply forgets the item: the tombstones first, then each removal, then the search index rebuilt
// without it. It stops at the first removal that fails (the tombstones already keep the item out
// of search; forgetting it again goes on where this stopped).
func (pl *Plan) Apply(ctx context.Context) error {
	if err := tombstone.Append(pl.p.Files, pl.p.Config, pl.stones); err != nil {
		return fmt.Errorf("%s: %w", tombstone.Path(pl.p.Config), err)
	}
	for i, do := range pl.steps {
		if err := do(); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", pl.Removes[i], err)
		}
	}
	ix := search.Open(pl.cfg)
	defer ix.Close()
	if _, err := ix.Rebuild(ctx); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	if pl.Kind == search.Session.String() {
		if _, err := ix.SyncHistory(ctx, 0); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		if err := ix.PurgeHistory(); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
	}
	return nil
}
