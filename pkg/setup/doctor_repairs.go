package setup

import (
	"bytes"
	"path/filepath"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// maxRepairsShown is how many of the latest repairs doctor lists.
const maxRepairsShown = 5

// checkRepairs lists the latest repairs the hooks made to cairn's own state — a catalog or a lock
// directory a clone committed broken, moved aside and rebuilt — from the warnings in
// .claude/state/cairn.log, so that a repair that kept the hooks working is not a silent one.
func (d *doctor) checkRepairs() {
	data, err := safefile.ReadTail(d.world.Root, filepath.Join(project.StateDir(d.world.Root), "cairn.log"), 64<<10)
	if err != nil {
		return
	}
	var found [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(": warning: repaired: ")) {
			found = append(found, l)
		}
	}
	if len(found) > maxRepairsShown {
		found = found[len(found)-maxRepairsShown:]
	}
	for _, l := range found {
		d.add(statusWarn, "repaired", "%s (from .claude/state/cairn.log)", plain.Line(string(l), 400))
	}
}
