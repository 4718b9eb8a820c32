package setup

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/memindex"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// checkMemoryIndex looks, in Claude Code's MEMORY.md index of each memory directory of the
// project, for pointers to session-open-*.md files that are gone: archived or expired by a
// cairn that did not yet remove pointers, or deleted by hand or by the shell snippets of the
// original /session workflow.
// Claude Code loads the index into every session, and a pointer to nothing sends Claude looking
// for it. Other dangling pointers are Claude Code's business and are not reported. With --fix
// they are removed (under the lock, atomically, confined to the memory directory); with
// --fix --dry-run the change is printed as a diff after the report.
func (d *doctor) checkMemoryIndex() {
	const check = "memory index"
	dirs := parking.LegacyDirs(d.world.Config, d.world.Root)
	if len(dirs) == 0 {
		return // no config directory: the latency check says so
	}
	seen := false
	for _, dir := range dirs {
		idx := memindex.Path(dir)
		data, err := memindex.Read(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		seen = true
		if err != nil {
			d.add(statusWarn, check, "%v: cairn leaves it alone, and removes no pointer from it when a parked item goes", err)
			continue
		}
		gone := danglingPointers(dir, data)
		if len(gone) == 0 {
			d.add(statusOK, check, "%s: no pointer to a missing session-open-*.md file", idx)
			continue
		}
		what := pointedAt(gone)
		if !d.fix {
			d.add(statusWarn, check, "%s points at %s: Claude Code loads the pointers into every session; run cairn doctor --fix", idx, what)
			continue
		}
		lines, err := memindex.Drop(d.files.Under(dir), dir, func(file string) bool {
			return slices.Contains(gone, file) && missing(dir, file) // still gone, under the lock
		})
		switch {
		case err != nil:
			d.add(statusFail, check, "%s points at %s; removing the pointers: %v", idx, what, err)
		case d.dryRun:
			d.add(statusWarn, check, "%s points at %s: dry run, %d line(s) would go (the diff is below)", idx, what, len(lines))
		default:
			d.add(statusOK, check, "%s pointed at %s: removed %d line(s)", idx, what, len(lines))
		}
	}
	if !seen {
		d.add(statusOK, check, "no %s in %s", memindex.Name, strings.Join(dirs, " or "))
	}
}

// danglingPointers returns the session-open-*.md files that the index data of dir points at and
// that do not exist, each once, in the index's order.
func danglingPointers(dir string, data []byte) []string {
	ps, _ := memindex.Pointers(data)
	var out []string
	for _, p := range ps {
		if parking.IsLegacyName(p.File) && !slices.Contains(out, p.File) && missing(dir, p.File) {
			out = append(out, p.File)
		}
	}
	return out
}

// missing reports whether nothing at all is named file in dir (a symlink or a directory there
// is something: not cairn's to call dangling).
func missing(dir, file string) bool {
	_, err := safefile.Lstat(dir, filepath.Join(dir, file))
	return errors.Is(err, fs.ErrNotExist)
}

// pointedAt describes the missing files for a finding: "session-open-a.md, which is gone".
func pointedAt(files []string) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = plain.Name(f)
	}
	if len(names) == 1 {
		return names[0] + ", which is gone"
	}
	return strings.Join(names, ", ") + ", which are gone"
}
