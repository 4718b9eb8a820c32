// Command sessionend is cairn's SessionEnd hook. Claude Code runs it when a session ends
// (/clear, /resume to another session, logout, exit; in -p mode at the end of every run), with
// 1.5 s for all SessionEnd hooks together, after which it is killed. In this order, so that a
// kill costs the least:
//
//  1. it marks the session ended in the registry, ends its file claims (package claims) and logs
//     the end in memory/timeline.jsonl;
//  2. beside step 1, it deletes the parked items that are 30 days old or more — bullets by their
//     Raised date, legacy session-open-*.md files by their modification time — recording each
//     one whole in the audit log as "expired" first (SessionStart runs the same clean-up when a
//     SessionEnd was killed);
//  3. when the session did work since its last checkpoint (edited files, changed tasks,
//     compacted), it leaves a hand-off checkpoint (package handoff), which the next session on
//     the branch is pointed to.
//
// Each step reads little and is bounded, so it finishes far inside the budget. It prints nothing
// (SessionEnd output is discarded).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/handoff"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

var hook = hookio.Hook{
	Name:    "sessionend",
	Event:   "SessionEnd",
	Summary: "cairn's SessionEnd hook: marks the session ended, logs the end, deletes parked items 30 days old or more (each logged in the audit log), and leaves a hand-off checkpoint when the session did work.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

// run ends the session in the registry, logs the end in memory/timeline.jsonl, expires parked
// items aged 30 days and leaves the hand-off. Each step runs even when another fails; the
// failures are reported together.
func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParseSessionEnd(inv.Payload)
	now := inv.Now()
	var errs []error
	st := stores.Open(inv.Project)
	var expired <-chan error
	if !inv.DryRun {
		expired = expireBeside(st.Parked)
	}
	if in.SessionID != "" {
		if err := st.Registry.End(in.SessionID, now); err != nil {
			errs = append(errs, fmt.Errorf("session registry: %w", err))
		}
		if err := st.Claims.End(in.SessionID); err != nil {
			errs = append(errs, fmt.Errorf("claims: %w", err))
		}
	}
	if err := st.Timeline.Append(timeline.Event{
		Time: now, Event: timeline.SessionEnd, Session: in.SessionID, Reason: in.Reason,
	}); err != nil {
		errs = append(errs, fmt.Errorf("timeline: %w", err))
	}
	if expired == nil {
		// Under --dry-run every planned write goes to one buffer, in order: the expiry plans
		// its writes after step 1 has planned its own, not beside it.
		expired = expireBeside(st.Parked)
	}
	err := <-expired
	if ie, rest := parking.IndexWarning(err); ie != nil {
		inv.Warn("parked items: %v", ie) // expired and logged; a pointer may remain in Claude Code's index
		err = rest
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("parked items: %w", err))
	}
	if in.SessionID != "" {
		if _, _, err := handoff.Write(inv.Project, st,
			handoff.Input{SessionID: in.SessionID, Transcript: transcript.Named(in.TranscriptPath), Reason: in.Reason},
		); err != nil {
			errs = append(errs, fmt.Errorf("hand-off: %w", err))
		}
	}
	return errors.Join(errs...)
}

// expireBeside runs the parked items' expiry on its own goroutine and returns where its error
// arrives. It touches only the parked items' files (session-context.md, the legacy files, their
// audit log and Claude Code's memory index), none of those step 1 writes, and the store is safe
// for concurrent use: its first look stats every legacy file while the registry's rewrite waits
// on the file system, and side by side the hook ends sooner. A panic there fails open as one in
// run does (hookio recovers run's goroutine only): it arrives as an error.
func expireBeside(parked *parking.Store) <-chan error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("internal error: %v", p)
			}
		}()
		_, err := parked.Expire()
		done <- err
	}()
	return done
}
