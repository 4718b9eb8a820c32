// Command sessionstart is cairn's SessionStart hook. Claude Code runs it when a session starts,
// resumes, is cleared, forked, or continues after a compaction. It always does the housekeeping
// a killed SessionEnd may have missed — register the session (marking orphans ended), expire
// parked items aged 30 days, log the start in memory/timeline.jsonl, sweep the temp files of
// writers killed mid-write (except after a compaction, mid-session) — and then:
//
//   - without an active run it prints nothing;
//   - with one, it hands Claude the read order of seed 001 (AGENTS.md and the rules, the run's
//     MEMORY.md and state.json, the lessons learned);
//   - after a compaction (source=compact, or a resume whose transcript shows a compaction since
//     the last snapshot) it also injects the whiteboard itself, the restore protocol and the
//     newest checkpoint, within Claude Code's context budget; and when PreCompact did not run for
//     that compaction it records the compaction itself first (pkg/compaction).
package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/compaction"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionctx"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

var hook = hookio.Hook{
	Name:    "sessionstart",
	Event:   "SessionStart",
	Summary: "cairn's SessionStart hook: registers the session, finishes missed clean-up, prints the active run's read order, and re-injects the whiteboard after a compaction.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

var errNoRun = errors.New("no run")

func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParseSessionStart(inv.Payload)
	now := inv.Now()
	branch := project.Branch(inv.Root)
	// Housekeeping first; a failure here is reported but does not cost Claude the read order.
	if in.SessionID != "" {
		if err := registry.OnSessionStart(inv.Files, inv.Root, in.SessionID, branch, now); err != nil {
			inv.Warn("session registry: %v", err)
		}
	}
	if _, err := parking.Expire(inv.Root, inv.Config, inv.Files, inv.Now); err != nil {
		inv.Warn("parked items: %v", err)
	}
	if err := timeline.Append(inv.Files, inv.Root, timeline.Event{
		Time: now, Event: timeline.SessionStart, Session: in.SessionID, Branch: branch, Source: in.Source,
	}); err != nil {
		inv.Warn("timeline: %v", err)
	}
	if !inv.DryRun && in.Source != "compact" {
		// A compaction is mid-session: this session's own start swept already, and what a writer
		// killed since leaves is swept at the next start. That keeps 6 directory reads off the
		// hook that runs right after a compaction, when Claude Code is waiting to go on.
		sweepTemps(inv.Root, now)
	}

	compacted := false
	switch in.Source {
	case "compact":
		compacted = true
		if missedPreCompact(inv, in) {
			if err := compaction.Record(
				compaction.Env{Files: inv.Files, Root: inv.Root, Config: inv.Config, Now: now, Warn: inv.Warn, DryRun: inv.DryRun},
				compaction.Input{SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Trigger: "auto", Late: true},
			); err != nil {
				inv.Warn("recording the compaction PreCompact missed: %v", err)
			}
		}
	case "resume":
		compacted = compactedSinceSnapshot(inv, in)
	}
	text, err := readOrder(inv.Root, compacted)
	if errors.Is(err, errNoRun) {
		return nil
	}
	if err != nil {
		return err
	}
	return hookio.WriteContext(&inv.Out, "SessionStart", text)
}

// sweepTemps removes what writers killed mid-write left in the directories cairn writes.
func sweepTemps(root string, now time.Time) {
	dirs := []string{project.StateDir(root), checkpoint.Dir(root), filepath.Join(root, "memory"), filepath.Join(root, ".notes", "logs"), filepath.Join(root, runstate.RunsDir)}
	if r, err := runstate.Active(root); err == nil {
		dirs = append(dirs, r.Dir)
	}
	for _, d := range dirs {
		safefile.SweepTemps(d, now)
	}
}

// recorded returns the compaction last recorded in session-context.md.
func recorded(inv *hookio.Invocation) (sid string, size int64, ok bool) {
	data, err := safefile.Read(sessionctx.Path(inv.Root))
	if err != nil {
		return "", 0, false
	}
	return sessionctx.Recorded(data)
}

// missedPreCompact reports whether PreCompact did not run for the compaction this session just
// went through. PreCompact records the transcript's length S. Claude Code 2.1.332 runs
// SessionStart(compact) before it appends the compaction's boundary to the transcript, so when
// PreCompact ran there is no boundary after S; a Claude Code that writes the boundary first
// shows exactly one, as the transcript's last line. Anything else — no record of this session,
// a boundary after S followed by more conversation, or two boundaries — means an earlier
// compaction came after the record and this one was missed (reference §6 #2).
func missedPreCompact(inv *hookio.Invocation, in hookio.SessionStart) bool {
	if in.SessionID == "" || in.TranscriptPath == "" {
		return false // nothing to judge by
	}
	sid, size, ok := recorded(inv)
	if !ok || sid != in.SessionID {
		return true
	}
	if size < 0 {
		return false // PreCompact ran but saw no transcript
	}
	n, err := transcript.CompactionsAfter(in.TranscriptPath, size)
	if err != nil {
		inv.Warn("transcript: %v", err)
		return false
	}
	switch n {
	case 0:
		return false
	case 1:
		ends, err := transcript.EndsWithCompaction(in.TranscriptPath)
		return err == nil && !ends
	default:
		return true
	}
}

// compactedSinceSnapshot reports whether a resumed session's transcript shows a compaction after
// the last snapshot cairn took of it (or at all, when cairn has none of this session).
func compactedSinceSnapshot(inv *hookio.Invocation, in hookio.SessionStart) bool {
	if in.TranscriptPath == "" {
		return false
	}
	sid, size, ok := recorded(inv)
	if !ok || sid != in.SessionID || size < 0 {
		_, found, err := transcript.LastBoundary(in.TranscriptPath)
		return err == nil && found
	}
	n, err := transcript.CompactionsAfter(in.TranscriptPath, size)
	return err == nil && n > 0
}
