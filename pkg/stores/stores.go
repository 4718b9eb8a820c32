// Package stores opens, once per process, the handles on the files cairn owns in a project, so
// that a flow is handed one value and every file is read at most once: a process builds its
// world ([project.Project]), opens its [Stores] from it, and passes both down. It stands apart
// because it sits between two layers: it imports every package that owns a file, which
// project, below them, cannot, and the flows above them (compaction, handback, handoff) and
// the hooks all take it, so none of them can own it.
package stores

import (
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// Stores are the handles of one process on one project's files. Opening them reads nothing;
// each handle reads its file on first use, at most once, and holds what its own writes leave.
type Stores struct {
	Catalog  *catalog.Catalog     // .claude/state/checkpoint-events.json, and the checkpoints it lists
	Runs     *runstate.Runs       // .agents/runs/: the active pointer, state.json, MEMORY.md
	Context  *sessionfile.Context // .claude/state/session-context.md: the snapshot and the parked items
	Parked   *parking.Store       // the parked items, read and written through Context
	Registry *registry.Registry   // .claude/state/session.json and its event log
	Timeline *timeline.Log        // memory/timeline.jsonl, which Catalog writes through too
	Claims   *claims.Store        // the checkout's file claims, which ask Registry who is live
}

// Open returns the handles on p's files, none of them read yet.
func Open(p *project.Project) *Stores {
	ctx := sessionfile.Open(p)
	log := timeline.Open(p)
	reg := registry.Open(p)
	return &Stores{
		Catalog:  catalog.Open(p, log),
		Runs:     runstate.Open(p),
		Context:  ctx,
		Parked:   parking.Open(p, ctx),
		Registry: reg,
		Timeline: log,
		Claims:   claims.Open(p, reg),
	}
}
