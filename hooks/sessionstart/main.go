// Command sessionstart is cairn's SessionStart hook. Claude Code runs it when a session starts,
// resumes, is cleared, forked, or continues after a compaction. It always does the housekeeping
// a killed SessionEnd may have missed — register the session (marking orphans ended), expire
// parked items aged 30 days, log the start in memory/timeline.jsonl, sweep the temp files of
// writers killed mid-write and the file claims past their TTL (hourly, except after a
// compaction, mid-session) — and then prints what
// package handback decides to give back: a compaction's hand-back, a pointer to the last
// hand-off, an active run's read order and whiteboard (recording first a compaction whose
// PreCompact did not run).
package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/handback"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

var hook = hookio.Hook{
	Name:    "sessionstart",
	Event:   "SessionStart",
	Summary: "cairn's SessionStart hook: registers the session, finishes missed clean-up, and hands back: after a compaction what it recorded, at startup a pointer to the last hand-off, with a run its read order and whiteboard.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParseSessionStart(inv.Payload)
	now := inv.Now()
	branch := inv.Branch()
	st := stores.Open(inv.Project) // every file below is read through these handles, once
	// Housekeeping first; a failure here is reported but does not cost Claude the hand-back.
	if in.SessionID != "" {
		if err := st.Registry.Register(in.SessionID, branch, now); err != nil {
			inv.Warn("session registry: %v", err)
		}
	}
	if _, err := st.Parked.Expire(); err != nil {
		inv.Warn("parked items: %v", err)
	}
	if err := st.Timeline.Append(timeline.Event{
		Time: now, Event: timeline.SessionStart, Session: in.SessionID, Branch: branch, Source: in.Source,
	}); err != nil {
		inv.Warn("timeline: %v", err)
	}
	if !inv.DryRun && in.Source != "compact" && safefile.SweepDue(inv.Root, now) {
		// A compaction is mid-session: this session's own start swept already. And a temp file
		// is removed only once an hour old: one sweep an hour per project finds every one.
		r, err := st.Runs.Active()
		sweepTemps(inv.Project, r, err == nil, now)
		if err := st.Claims.Sweep(); err != nil {
			inv.Warn("claims: %v", err)
		}
	}
	text, err := handback.Text(inv.Project, st, handback.Start{
		SessionID: in.SessionID, Source: in.Source, Transcript: transcript.Named(in.TranscriptPath),
	})
	if err != nil {
		return err
	}
	// Repairs the hooks made to cairn's own state since the last start, this one's included, told
	// once (hookio.TakeRepairs), after the hand-back and outside its budget (one sentence of
	// cairn's own words, about 250 characters).
	if notice := hookio.RepairNotice(inv.TakeRepairs()); notice != "" {
		text = strings.TrimSpace(text + "\n\n" + notice)
	}
	if text == "" {
		return nil
	}
	return hookio.WriteContext(&inv.Out, "SessionStart", text)
}

// sweepTemps removes what writers killed mid-write left in the directories cairn writes: the
// project's, and the shared knowledge's under the main checkout when p is a linked worktree.
func sweepTemps(p *project.Project, r runstate.Run, active bool, now time.Time) {
	root, shared := p.Root, p.Shared()
	dirs := []string{project.StateDir(root), filepath.Join(root, ".notes", "logs"), filepath.Join(root, runstate.RunsDir)}
	if active {
		dirs = append(dirs, r.Dir)
	}
	for _, d := range dirs {
		safefile.SweepTemps(root, d, now)
	}
	dirs = []string{checkpoint.Dir(shared), filepath.Join(shared, "memory")}
	if shared != root {
		dirs = append(dirs, project.StateDir(shared)) // the catalog's
	}
	for _, d := range dirs {
		safefile.SweepTemps(shared, d, now)
	}
}
