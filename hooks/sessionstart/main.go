// Command sessionstart is cairn's SessionStart hook. Claude Code runs it when a session starts,
// resumes, is cleared, forked, or continues after a compaction. Without an active run it prints
// nothing. With one, it hands Claude the read order of seed 001 — AGENTS.md and the rules, the
// run's MEMORY.md and state.json, the lessons learned — and after a compaction (source=compact)
// also the whiteboard itself and the restore protocol, all within Claude Code's context budget.
package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
)

var hook = hookio.Hook{
	Name:    "sessionstart",
	Event:   "SessionStart",
	Summary: "cairn's SessionStart hook: prints the active run's read order, and re-injects the whiteboard after a compaction.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

var errNoRun = errors.New("no run")

func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParseSessionStart(inv.Payload)
	text, err := readOrder(inv.Root, in.Source == "compact")
	if errors.Is(err, errNoRun) {
		return nil
	}
	if err != nil {
		return err
	}
	return hookio.WriteContext(&inv.Out, "SessionStart", text)
}
