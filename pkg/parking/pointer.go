package parking

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/memindex"
)

// A legacy file lives in Claude Code's auto-memory directory, whose MEMORY.md index Claude Code
// loads into every session; the index usually holds a line pointing at the file (see package
// memindex). Removing the file removes those lines too, in this order: the index is looked at
// without the lock, the audit line is written (saying what the index held: AuditEntry.Pointer),
// the file is removed, and then the lines go, under the lock, atomically and confined to the
// memory directory like every other write. A failure there costs neither the audit line nor the
// removal; it is reported as an *IndexError, a second audit line (ActionPointerKept) corrects
// the first, and cairn doctor finds what is left.

// pointer is what the memory index beside one legacy file holds for it.
type pointer struct {
	dir, name string
	item      string   // the item's name, as its audit line has it
	state     string   // "", pointerRemoved or pointerUnchecked
	lines     []string // the lines pointing at the file (pointerRemoved)
	err       error    // why the index is left alone (pointerUnchecked)
}

// lookPointer reads, without the lock, what the index beside the legacy file at path holds
// for it. A missing index holds nothing; one that memindex.Read refuses is left alone.
func lookPointer(path string) pointer {
	p := pointer{dir: filepath.Dir(path), name: filepath.Base(path)}
	data, err := memindex.Read(p.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p
	case err != nil:
		p.state, p.err = pointerUnchecked, err
		return p
	}
	if _, p.lines, _ = memindex.Remove(data, p.is); p.lines != nil {
		p.state = pointerRemoved
	}
	return p
}

func (p pointer) is(file string) bool { return file == p.name }

// IndexError reports pointers that may remain in Claude Code's memory index after legacy files
// were removed: an index left alone, or an edit of it that failed. The files were removed and
// logged all the same. Park, Archive and Expire return it alone, or joined with the outcome that
// matters more (a *FullError); IndexWarning separates it.
type IndexError struct{ Errs []error }

func (e *IndexError) Error() string {
	var b strings.Builder
	for i, err := range e.Errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// IndexWarning returns the *IndexError in err, if any, and err without it.
func IndexWarning(err error) (*IndexError, error) {
	var ie *IndexError
	if !errors.As(err, &ie) {
		return nil, err
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var rest []error
		for _, e := range j.Unwrap() {
			if e != error(ie) {
				rest = append(rest, e)
			}
		}
		return ie, errors.Join(rest...)
	}
	return ie, nil
}

// unpoint removes from each memory index the lines pointing at the legacy files that ptrs name,
// once those files are gone: one locked, atomic edit per index, through the writer confined to
// the legacy directories. It returns nil or an *IndexError.
func (s *Store) unpoint(ptrs []pointer) error {
	byDir := map[string][]pointer{}
	var dirs []string
	for _, p := range ptrs {
		if p.state == "" {
			continue
		}
		if byDir[p.dir] == nil {
			dirs = append(dirs, p.dir)
		}
		byDir[p.dir] = append(byDir[p.dir], p)
	}
	var errs []error
	for _, dir := range dirs {
		var names, unchecked []string
		var why error
		for _, p := range byDir[dir] {
			if p.state == pointerUnchecked {
				unchecked, why = append(unchecked, p.name), p.err
			} else {
				names = append(names, p.name)
			}
		}
		if unchecked != nil {
			errs = append(errs, fmt.Errorf("%w: left as it is; it may still point at %s", why, strings.Join(unchecked, ", ")))
		}
		if names == nil {
			continue
		}
		_, err := memindex.Drop(s.Legacy, dir, func(file string) bool { return slices.Contains(names, file) })
		if err != nil {
			errs = append(errs, fmt.Errorf("%w; it may still point at %s", err, strings.Join(names, ", ")))
			// The audit lines said removed: they are corrected, so that the log never claims an
			// edit that did not happen.
			var kept []pointer
			for _, p := range byDir[dir] {
				if p.state == pointerRemoved {
					kept = append(kept, p)
				}
			}
			if lerr := s.logKept(kept, err); lerr != nil {
				errs = append(errs, fmt.Errorf("audit log: %w", lerr))
			}
		}
	}
	if errs == nil {
		return nil
	}
	return &IndexError{Errs: errs}
}
