// Command precompact is cairn's PreCompact hook. Claude Code runs it before every compaction,
// manual (/compact) or automatic, often 2–4 times for one compaction and sometimes not at all.
// It refreshes the active run's MEMORY.md snapshot block from state.json so the session that
// continues after the compaction can re-read what it was doing. It never blocks a compaction and
// prints nothing on stdout (PreCompact stdout would be appended to the compaction instructions).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/whiteboard"
)

var hook = hookio.Hook{
	Name:    "precompact",
	Event:   "PreCompact",
	Summary: "cairn's PreCompact hook: refreshes the active run's MEMORY.md snapshot before a compaction.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParsePreCompact(inv.Payload)
	r, err := runstate.Active(inv.Root)
	if errors.Is(err, runstate.ErrNoActive) {
		return nil // inert without an active run
	}
	if err != nil {
		return err
	}
	snap := snapshot(inv, in, r)
	var res whiteboard.Result
	if _, err := inv.Files.Update(r.MemoryPath(), 0o644, func(old []byte, exists bool) ([]byte, error) {
		res = whiteboard.Refresh(old, exists, snap)
		return res.Data, nil
	}); err != nil {
		return fmt.Errorf("%s: %w", r.Rel+"/MEMORY.md", err)
	}
	if res.ProseOver {
		inv.Warn("%s/MEMORY.md: the prose alone is over %d lines; the snapshot was cut to its minimum", r.Rel, whiteboard.MaxLines-3)
	} else if res.Dropped > 0 {
		inv.Warn("%s/MEMORY.md: snapshot shortened by %d lines to stay within %d lines", r.Rel, res.Dropped, whiteboard.MaxLines)
	}
	return nil
}

// eventID identifies one compaction: the same session, trigger and transcript length mean a
// repeated PreCompact for the same compaction (SPEC §9), not a new one.
func eventID(in hookio.PreCompact) string {
	size := int64(-1)
	if in.TranscriptPath != "" {
		if fi, err := os.Stat(in.TranscriptPath); err == nil {
			size = fi.Size()
		}
	}
	trigger := in.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	sid := in.SessionID
	if sid == "" {
		sid = "nosession"
	}
	return fmt.Sprintf("%s/%s/%d", sid, trigger, size)
}

func snapshot(inv *hookio.Invocation, in hookio.PreCompact, r runstate.Run) whiteboard.Snapshot {
	s := whiteboard.Snapshot{
		Event:        eventID(in),
		At:           inv.Now(),
		RunID:        r.ID,
		Trigger:      in.Trigger,
		Instructions: in.CustomInstructions,
	}
	st, warnings, err := runstate.Load(r)
	for _, w := range warnings {
		inv.Warn("%s/%s", r.Rel, w)
	}
	if err != nil {
		inv.Warn("%s/state.json: %v", r.Rel, err)
		s.StateNote = fmt.Sprintf("state.json could not be read (%v); fix it so the next snapshot is complete", err)
		return s
	}
	if _, err := os.Stat(r.StatePath()); err != nil {
		s.StateNote = "state.json is missing; run `cairn run set key=value` to record the run's state"
	}
	if id := st.Get("run_id"); id != "" {
		s.RunID = id
	}
	s.Issue, s.Phase, s.Branch, s.Worktree, s.PR = st.Get("issue"), st.Get("phase"), st.Get("branch"), st.Get("worktree"), st.Get("pr")
	for i, g := range whiteboard.GateNames {
		s.Gates[i] = st.Get("gate_" + g)
	}
	s.PlanOpen, s.UpdatedAt = st.Get("plan_open"), st.Get("updated_at")
	return s
}
