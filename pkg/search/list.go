package search

import (
	"context"
	"errors"
	"path"
	"slices"
	"time"
)

// Checkpoint is one checkpoint as the index has it: what `cairn context list` shows, without
// opening the file.
type Checkpoint struct {
	Name     string // the file name
	Path     string // relative to the root, with forward slashes
	Kind     Kind
	Branch   string
	Worktree string // the linked worktree it was written in; "" for the main checkout
	Status   string
	Time     time.Time
	// Read is false for a checkpoint file the index could not read: only Name and Path are set.
	Read bool
}

// Checkpoints brings the index up to date (as a search does: when nothing changed it costs a few
// stat calls) and returns every checkpoint file it knows, in no particular order: the checkpoint
// directory's regular files with a checkpoint's name, the ones it could not read with Read false.
func (ix *Index) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if _, err := ix.sync(ctx, false); err != nil {
		return nil, err
	}
	out, err := ix.checkpoints()
	if errors.Is(err, errDamaged) {
		ix.unload()
		if _, err := ix.sync(ctx, true); err != nil {
			return nil, err
		}
		out, err = ix.checkpoints()
	}
	return out, err
}

func (ix *Index) checkpoints() ([]Checkpoint, error) {
	var out []Checkpoint
	// Files, not documents: a history holds far more audit and timeline lines than checkpoints,
	// and each checkpoint file is one document. The base's files that the delta replaced or
	// found gone are its tombstones.
	var tomb map[uint32]bool
	if ix.delta != nil && ix.delta.h.nTomb > 0 {
		tomb = map[uint32]bool{}
		for i := uint32(0); i < ix.delta.h.nTomb; i++ {
			tomb[ix.delta.tomb(i)] = true
		}
	}
	for _, s := range []*segment{ix.base, ix.delta} {
		if s == nil {
			continue
		}
		out = slices.Grow(out, int(s.h.nFiles))
		for f := uint32(0); f < s.h.nFiles; f++ {
			if s.fileSource(f) != srcCheckpoint || s == ix.base && tomb[f] {
				continue // without building its record: most files are not checkpoints' at scale
			}
			fi := s.file(f)
			c := Checkpoint{Name: path.Base(fi.path), Path: fi.path}
			if fi.nd > 0 {
				if fi.firstDoc >= s.h.nDocs {
					return nil, errDamaged
				}
				di := s.doc(fi.firstDoc)
				if !di.kind.isCheckpoint() {
					return nil, errDamaged
				}
				b, st, wt := unpackBranch(s.str(di.branchOff, int(di.branchLen)))
				c.Kind, c.Branch, c.Status, c.Worktree, c.Read = di.kind, string(b), string(st), string(wt), true
				if di.time != 0 {
					c.Time = time.Unix(di.time, 0)
				}
			}
			out = append(out, c)
		}
	}
	return out, nil
}
