// Package compaction records what a session needs to survive a compaction: the snapshot block
// of the active run's MEMORY.md, the snapshot section of .claude/state/session-context.md, and
// one automatic checkpoint. The PreCompact hook calls it before each compaction; SessionStart
// calls it after one for which PreCompact did not run.
//
// Every write is idempotent: a repeated record for the same session, trigger and transcript
// length (the compaction's identity, SPEC §9) leaves every file byte-identical.
package compaction

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionctx"
	"github.com/cairn-hooks/cairn/pkg/tasks"
	"github.com/cairn-hooks/cairn/pkg/transcript"
	"github.com/cairn-hooks/cairn/pkg/whiteboard"
)

// promptsInCheckpoint is how many of the last user prompts the automatic checkpoint keeps.
const promptsInCheckpoint = 3

// Env is what Record needs of the hook that calls it.
type Env struct {
	Files        safefile.Writer
	Root, Config string
	Now          time.Time
	Warn         func(format string, args ...any)
	DryRun       bool // plan every write, even for a compaction recorded already
}

// Input describes the compaction.
type Input struct {
	SessionID, TranscriptPath string
	Trigger                   string  // manual or auto
	Instructions              *string // /compact's argument; nil when none
	// Late marks a record made after the compaction by SessionStart, because PreCompact did not
	// run for it (reference §6 #2); the whiteboard says so.
	Late bool
}

// Record writes what a compaction needs: the whiteboard snapshot (with an active run), the
// session-context snapshot and one automatic checkpoint. Every step runs even when another fails;
// the first failure is returned and the others are reported through Warn.
func Record(env Env, in Input) error {
	inv := &env
	if !env.DryRun && done(inv, in) {
		return nil // a repeat of a compaction recorded whole: nothing would change
	}
	f := gather(inv, in)
	var errs []error
	if err := refreshWhiteboard(inv, in, f); err != nil {
		errs = append(errs, err)
	}
	if err := refreshSessionContext(inv, in, f); err != nil {
		errs = append(errs, fmt.Errorf(".claude/state/session-context.md: %w", err))
	}
	if err := autoCheckpoint(inv, in, f); err != nil {
		errs = append(errs, fmt.Errorf("automatic checkpoint: %w", err))
	}
	return hookio.FirstError(inv.Warn, errs)
}

// facts is what the hook reads once and every step shares.
type facts struct {
	event     string
	size      int64 // transcript length, -1 when unknown
	open      []tasks.Task
	completed []tasks.Task
	edited    []string
	branch    string
}

// identity is the compaction's identity: a repeated PreCompact for the same session, trigger and
// transcript length is the same compaction (SPEC §9), with no wall-clock debounce window to tune.
func identity(in Input) (event string, size int64) {
	size = -1
	if in.TranscriptPath != "" {
		if fi, err := os.Stat(in.TranscriptPath); err == nil {
			size = fi.Size()
		}
	}
	return checkpoint.EventID(in.SessionID, in.Trigger, size), size
}

// done reports whether every file already records this compaction: the checkpoint (written
// last), the session-context snapshot and, with an active run, the whiteboard. Then a repeat
// costs a stat and three small reads instead of a transcript scan.
func done(inv *Env, in Input) bool {
	event, _ := identity(in)
	if !checkpoint.Recorded(inv.Root, event) {
		return false
	}
	data, err := safefile.Read(sessionctx.Path(inv.Root))
	if err != nil || sessionctx.Event(data) != event {
		return false
	}
	r, err := runstate.Active(inv.Root)
	if errors.Is(err, runstate.ErrNoActive) {
		return true
	}
	if err != nil {
		return false // let the full record report it
	}
	data, err = safefile.Read(r.MemoryPath())
	return err == nil && whiteboard.Event(data) == event
}

func gather(inv *Env, in Input) facts {
	f := facts{branch: project.Branch(inv.Root)}
	f.event, f.size = identity(in)

	var all []tasks.Task
	if inv.Config != "" && in.SessionID != "" {
		ts, err := tasks.ForSession(inv.Config, in.SessionID)
		if err != nil {
			inv.Warn("tasks: %v", err)
		}
		all = ts
	}
	if len(all) == 0 && in.TranscriptPath != "" {
		if todos, ok, err := transcript.LastTodos(in.TranscriptPath); err == nil && ok {
			all = todos
		}
	}
	f.open, f.completed = tasks.Open(all), tasks.Completed(all)
	if in.TranscriptPath != "" {
		edited, err := transcript.EditedFilesSinceBoundary(in.TranscriptPath, inv.Root)
		if err != nil {
			inv.Warn("transcript: %v", err)
		}
		f.edited = edited
	}
	return f
}

// taskLines labels open tasks, in progress first (tasks.Open's order).
func taskLines(ts []tasks.Task) []string {
	var out []string
	for _, t := range ts {
		label := "[pending]"
		if t.Status == tasks.StatusInProgress {
			label = "[in progress]"
		}
		out = append(out, label+" "+t.Subject)
	}
	return out
}

func refreshWhiteboard(inv *Env, in Input, f facts) error {
	r, err := runstate.Active(inv.Root)
	if errors.Is(err, runstate.ErrNoActive) {
		return nil // the whiteboard exists only inside a run
	}
	if err != nil {
		return err
	}
	snap := snapshot(inv, in, r)
	snap.Event = f.event
	if in.Late {
		snap.Trigger += ", recorded late by SessionStart (PreCompact did not run)"
	}
	snap.Tasks, snap.Files = taskLines(f.open), f.edited
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

func snapshot(inv *Env, in Input, r runstate.Run) whiteboard.Snapshot {
	s := whiteboard.Snapshot{
		At:           inv.Now,
		RunID:        r.ID,
		Trigger:      in.Trigger,
		Instructions: in.Instructions,
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

func refreshSessionContext(inv *Env, in Input, f facts) error {
	snap := sessionctx.Snapshot{
		Event: f.event, At: inv.Now, SessionID: in.SessionID, Trigger: in.Trigger, Branch: f.branch,
		Tasks: taskLines(f.open), Files: f.edited,
	}
	_, err := inv.Files.Update(sessionctx.Path(inv.Root), 0o644, func(old []byte, exists bool) ([]byte, error) {
		return sessionctx.Refresh(old, exists, snap), nil
	})
	return err
}

func autoCheckpoint(inv *Env, in Input, f facts) error {
	ai := checkpoint.AutoInput{
		SessionID: in.SessionID, Trigger: in.Trigger, Event: f.event, TranscriptSize: f.size,
		Instructions: in.Instructions, Branch: f.branch, Now: inv.Now,
		Open: f.open, Completed: f.completed, FilesEdited: f.edited,
	}
	if in.SessionID != "" {
		if started, ok := registry.New(inv.Files, inv.Root).Started(in.SessionID); ok {
			ai.Started = started
		}
	}
	if r, err := runstate.Active(inv.Root); err == nil {
		st, _, _ := runstate.Load(r)
		cr := &checkpoint.Run{ID: r.ID, Issue: st.Get("issue"), Phase: st.Get("phase"), PR: st.Get("pr"), PlanOpen: st.Get("plan_open")}
		for _, g := range whiteboard.GateNames {
			cr.Gates = append(cr.Gates, checkpoint.Gate{Name: g, Verdict: st.Get("gate_" + g)})
		}
		ai.Run = cr
	}
	if in.TranscriptPath != "" {
		if prompts, err := transcript.LastUserPrompts(in.TranscriptPath, promptsInCheckpoint); err == nil {
			ai.Prompts = prompts
		}
	}
	_, _, err := checkpoint.Auto(inv.Files, inv.Root, ai)
	return err
}
