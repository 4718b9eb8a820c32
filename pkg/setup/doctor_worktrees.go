package setup

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// The rule for a repository's worktrees, as doctor prints it and the README states it
// (docs/DESIGN.md, Where state lives).
const (
	sharedRule     = "project knowledge (checkpoints: saved, automatic and hand-offs, their catalog, the timeline, and what cairn search finds of them) is shared by the repository's worktrees and lives in its main checkout"
	ownRule        = "working state (the run whiteboard, parked items, the session registry, file claims, session-context.md) stays with each worktree"
	checkpointRule = "checkpoints in %s (kept under the name of the one the main checkout holds, whatever it is called; a new one is named after the main checkout's directory, its real path)"
)

// checkWorktrees says which checkout of its repository the project is, and where its shared and
// its own state live: the rule, then this checkout's places.
func (d *doctor) checkWorktrees() {
	p := d.world
	shared := p.Shared()
	r := p.Repo()
	where := func() string {
		return "; " + fmt.Sprintf(checkpointRule, checkpoint.Dir(shared)) + ", the timeline in " + filepath.Join(shared, timeline.File)
	}
	switch {
	case r.Linked():
		d.add(statusOK, "worktrees", "linked worktree %q of the repository whose main checkout is %s: %s%s", r.Worktree, r.Main, sharedRule, where())
	case r.Common == "":
		d.add(statusOK, "worktrees", "%s is not in a git repository: no worktree shares its knowledge%s", d.world.Root, where())
	case r.Main == "":
		d.add(statusOK, "worktrees", "worktree %q of a bare repository, which has no main checkout: its knowledge stays with it%s", r.Worktree, where())
	default:
		n := len(project.Worktrees(d.world.Root)) - 1
		d.add(statusOK, "worktrees", "the main checkout (%d linked worktrees): %s%s", n, sharedRule, where())
	}
	own := fmt.Sprintf("%s: this one's in %s (parked items, the registry, session-context.md) and %s", ownRule, project.StateDir(d.world.Root), filepath.Join(d.world.Root, ".agents", "runs"))
	if dir := claims.Open(p, nil).Dir(); dir != "" {
		own += ", its claims in " + dir
	}
	d.add(statusOK, "worktrees", "%s", own)
}
