// Command postcompact is cairn's PostCompact hook. Claude Code runs it after a compaction,
// manual (/compact) or automatic, once the model has written its summary: after PreCompact and
// SessionStart(compact), before the compaction's boundary reaches the transcript
// (testscripts/e2e/FINDINGS.md). It keeps that summary — compact_summary, redacted — in the automatic
// checkpoint of the same compaction, marked as Claude Code's own (compaction.Summarize), and
// records the compaction itself first when PreCompact did not. A repeated PostCompact changes
// nothing. It prints nothing: Claude Code discards PostCompact output, or shows it to the user
// after /compact.
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
	Name:    "postcompact",
	Event:   "PostCompact",
	Summary: "cairn's PostCompact hook: keeps Claude Code's own compaction summary in that compaction's automatic checkpoint.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParsePostCompact(inv.Payload)
	return compaction.Summarize(inv.Project, stores.Open(inv.Project),
		compaction.Input{SessionID: in.SessionID, Transcript: transcript.Named(in.TranscriptPath), Trigger: in.Trigger},
		in.CompactSummary,
	)
}
