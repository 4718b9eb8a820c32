// Command sessionend is cairn's SessionEnd hook. Claude Code runs it when a session ends
// (/clear, /resume to another session, logout, exit), with 1.5 s for all SessionEnd hooks
// together, after which it is killed. It marks the session ended in the registry, logs the end in
// memory/timeline.jsonl, and deletes the parked items that are 30 days old or more —
// bullets by their Raised date, legacy session-open-*.md files by their modification time —
// recording each one whole in the audit log as "expired" first. It reads two small files and
// one or two directories, and writes only when something expired, so it finishes far inside the
// budget; SessionStart runs the same clean-up when a SessionEnd was killed. It prints nothing
// (SessionEnd output is discarded).
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

var hook = hookio.Hook{
	Name:    "sessionend",
	Event:   "SessionEnd",
	Summary: "cairn's SessionEnd hook: marks the session ended, logs the end, and deletes parked items 30 days old or more (each logged in the audit log).",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

// run ends the session in the registry, logs the end in memory/timeline.jsonl and expires parked
// items aged 30 days. Each step runs even when another fails; the first failure is the error.
func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParseSessionEnd(inv.Payload)
	now := inv.Now()
	var errs []error
	if in.SessionID != "" {
		if err := registry.OnSessionEnd(inv.Files, inv.Root, in.SessionID, now); err != nil {
			errs = append(errs, fmt.Errorf("session registry: %w", err))
		}
	}
	if err := timeline.Append(inv.Files, inv.Root, timeline.Event{
		Time: now, Event: timeline.SessionEnd, Session: in.SessionID, Reason: in.Reason,
	}); err != nil {
		errs = append(errs, fmt.Errorf("timeline: %w", err))
	}
	if _, err := parking.Expire(inv.Root, inv.Config, inv.Files, inv.Now); err != nil {
		errs = append(errs, fmt.Errorf("parked items: %w", err))
	}
	return hookio.FirstError(inv.Warn, errs)
}
