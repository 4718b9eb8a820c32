// Command precompact is cairn's PreCompact hook. Claude Code runs it before every compaction,
// manual (/compact) or automatic — sometimes more than once for one compaction, and sometimes
// not at all (sessionstart repairs that case; docs/DESIGN.md, Facts about Claude Code). It
// writes what the session after the compaction will need, from the run state, Claude Code's
// task files and the transcript; compaction.Record is the one function to read to follow a
// payload to the files it writes:
//
//  1. the snapshot block of the active run's MEMORY.md (only with an active run);
//  2. the snapshot section of .claude/state/session-context.md (its parked items untouched);
//  3. one automatic checkpoint per compaction (status: auto), and its timeline line.
//
// A repeated PreCompact for the same session, trigger and transcript length leaves every file
// byte-identical. It never blocks a compaction and prints nothing on stdout (PreCompact stdout
// would be appended to the compaction instructions).
package main

import (
	"context"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/compaction"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

var hook = hookio.Hook{
	Name:    "precompact",
	Event:   "PreCompact",
	Summary: "cairn's PreCompact hook: before a compaction, refreshes the run whiteboard's snapshot, the session-context snapshot, and writes one automatic checkpoint.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParsePreCompact(inv.Payload)
	return compaction.Record(inv.Project, stores.Open(inv.Project),
		compaction.Input{SessionID: in.SessionID, Transcript: transcript.Named(in.TranscriptPath), Trigger: in.Trigger, Instructions: in.CustomInstructions},
	)
}
