// Package compaction records what a session needs to survive a compaction, and holds every
// policy about a compaction's identity (catalog.CompactionID, which it builds): which
// compaction a record belongs to, whether one was recorded already, and whether PreCompact missed
// one.
//
// The route of a PreCompact payload, from hooks/precompact/main.go to the files it writes, is
// Record, given the world, the project's handles ([stores.Stores]) and the payload's transcript,
// opened once ([transcript.File]). It calls, in order:
//
//  1. identityOf: the compaction's identity — session, trigger and the transcript's length as the
//     handle opened it (catalog.CompactionID);
//  2. activeRun: the active run and its state.json (st.Runs), resolved and read once;
//  3. done: whether the catalog (st.Catalog), the session-context snapshot (st.Context) and the
//     whiteboard (st.Runs.Whiteboard) all carry that identity already; then it returns, so a
//     repeated PreCompact costs a few small reads;
//  4. gather: Claude Code's task list (tasks), the branch (project), and one read of the
//     transcript from its end (transcript.File.ForCompaction: the files edited since the last
//     compaction, the commands, the last prompts). When the session's claims (st.Claims: the
//     files PreToolUse saw it edit) can name the files edited further back, that read stops
//     4 MiB from the end (editScan) and beyondBound adds them, so that a compaction costs the same
//     whatever was written since the last one;
//  5. runstate.RefreshWhiteboard into the run's MEMORY.md (st.Runs.UpdateWhiteboard), when a run
//     is active;
//  6. sessionfile.Refresh into .claude/state/session-context.md (st.Context; its parked items
//     untouched);
//  7. st.Catalog.Auto: the automatic checkpoint, once per identity;
//  8. st.Timeline.Append: one "compaction" line in memory/timeline.jsonl, when the checkpoint is new.
//
// Every write is idempotent: a repeated record for the same identity leaves every file
// byte-identical. SessionStart asks Missed and CompactedSince (the policy on the transcript's
// boundaries) and calls Record itself, marked Late, for a compaction PreCompact did not see.
package compaction

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/tasks"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// identityOf returns the identity of the compaction in: its transcript's length is the one the
// handle opened (-1 without one).
func identityOf(in Input) catalog.CompactionID {
	id := catalog.CompactionID{Session: in.SessionID, Trigger: in.Trigger, Size: -1}
	if in.Transcript != nil {
		id.Size = in.Transcript.Size()
	}
	return id
}

// promptsInCheckpoint is how many of the last user prompts the automatic checkpoint keeps.
const promptsInCheckpoint = 3

// Input describes the compaction.
type Input struct {
	SessionID    string
	Transcript   *transcript.File // the payload's transcript_path; nil when it names none
	Trigger      string           // manual or auto
	Instructions *string          // /compact's argument; nil when none
	// Late marks a record made after the compaction by SessionStart, because PreCompact did not
	// run for it (it sometimes does not: docs/DESIGN.md, Facts about Claude Code); the whiteboard
	// says so.
	Late bool
}

// run is the active run, resolved once per event.
type run struct {
	active bool
	run    runstate.Run
	state  runstate.State
	note   string // why state.json is not read whole; "" when it is
	err    error  // the active pointer could not be resolved
}

func activeRun(p *project.Project, runs *runstate.Runs) run {
	r, err := runs.Active()
	if errors.Is(err, runstate.ErrNoActive) {
		return run{}
	}
	if err != nil {
		return run{err: err}
	}
	ar := run{active: true, run: r}
	st, warnings, err := runs.State()
	for _, w := range warnings {
		p.Warn("%s/%s", r.Rel, w)
	}
	switch {
	case err != nil:
		p.Warn("%s/state.json: %v", r.Rel, err)
		ar.note = fmt.Sprintf("state.json could not be read (%v); fix it so the next snapshot is complete", err)
	case !safefile.IsFile(p.Root, r.StatePath()):
		ar.note = "state.json is missing; run `cairn run set key=value` to record the run's state"
	}
	ar.state = st
	return ar
}

// Record writes what a compaction needs: the whiteboard snapshot (with an active run), the
// session-context snapshot, the automatic checkpoint and its timeline line. Every step runs even
// when another fails; the failures are returned together.
func Record(p *project.Project, st *stores.Stores, in Input) error {
	id := identityOf(in)
	r := activeRun(p, st.Runs)
	if !p.DryRun && done(p, st, id, r) {
		return nil // a repeat of a compaction recorded whole: nothing would change
	}
	f := gather(p, st, in, id)
	var errs []error
	if err := refreshWhiteboard(p, st.Runs, in, f, r); err != nil {
		errs = append(errs, err)
	}
	if err := refreshSessionFile(st.Context, in, f); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", sessionfile.Rel, err))
	}
	if err := autoCheckpoint(p, st, in, f, r); err != nil {
		errs = append(errs, fmt.Errorf("automatic checkpoint: %w", err))
	} else if err := st.Claims.NoteCompaction(in.SessionID, id.Size); err != nil {
		// Where this compaction stood, among the notes of the session's commands: the next one
		// reads none before it (olderCommands).
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// done reports whether every file already records compaction id: the checkpoint (written last),
// the session-context snapshot and, with an active run, the whiteboard.
func done(p *project.Project, st *stores.Stores, id catalog.CompactionID, r run) bool {
	event := id.String()
	if !st.Catalog.Recorded(event) || recorded(st.Context) != event {
		return false
	}
	if r.err != nil {
		return false // let the full record report it
	}
	if !r.active {
		return true
	}
	data, err := st.Runs.Whiteboard()
	return err == nil && runstate.WhiteboardEvent(data) == event
}

// recorded returns the identity, as written, of the last compaction recorded in
// session-context.md's snapshot, or "".
func recorded(ctx *sessionfile.Context) string {
	data, _, err := ctx.Read()
	if err != nil {
		return ""
	}
	return sessionfile.Event(data)
}

// facts is what the event reads once and every step shares.
type facts struct {
	id        catalog.CompactionID
	at        time.Time // the event's one instant: every file it writes says the same time
	open      []tasks.Task
	completed []tasks.Task
	edited    []string
	prompts   []string
	promptsAt []int64 // where the prompts' lines start in the transcript
	branch    string
	record    checkpoint.Record
}

// editScan bounds how far back from the transcript's end a compaction looks for the files edited
// since the last boundary when the session's claims (PreToolUse's record, pkg/claims) can name
// those further back: the same bound as the commands' (4 MiB), so that a compaction costs the
// same whatever was written since the last one. Without claims the whole stretch is read.
const editScan = 4 << 20

// maxClaimed bounds the claimed paths a compaction reads.
const maxClaimed = 4096

func gather(p *project.Project, st *stores.Stores, in Input, id catalog.CompactionID) facts {
	f := facts{id: id, at: p.Now(), branch: p.Branch()}
	var all []tasks.Task
	if p.Config != "" && in.SessionID != "" {
		ts, err := tasks.ForSession(p.Config, in.SessionID)
		if err != nil {
			p.Warn("tasks: %v", err)
		}
		all = ts
	}
	if in.Transcript != nil {
		claimed := st.Claims.Paths(in.SessionID, maxClaimed)
		var bound int64
		if len(claimed) > 0 {
			bound = editScan
		}
		tr, err := in.Transcript.ForCompaction(p.Root, promptsInCheckpoint, len(all) == 0, bound)
		if err != nil {
			p.Warn("%v", err)
		}
		f.edited, f.prompts, f.promptsAt = tr.Edited, tr.Prompts, tr.At
		if tr.EditsCut {
			f.edited = appendNew(f.edited, beyondBound(st, in.SessionID, claimed, tr.Size-bound)...)
		}
		f.record = catalog.NewRecord(olderCommands(p, st, in, tr), tr.LastText, tr.Prompts)
		for _, td := range tr.Todos {
			all = append(all, tasks.Task{ID: td.ID, Subject: td.Subject, Status: td.Status})
		}
	}
	f.open, f.completed = tasks.Open(all), tasks.Completed(all)
	return f
}

// maxSpots bounds the notes of commands a compaction reads (from the end of the session's list).
const maxSpots = 256

// olderCommands is the activity the read from the end found (tr), with the commands further back
// since the last compaction added while its list has room: those the session noted as it ran them
// (PreToolUse: claims.NoteCommand), read where the transcript stood then
// (transcript.File.CommandsAt), so that a compaction lists the same commands however much was
// written after them. The last compaction is the boundary the read met, or else the latest one
// the notes or the session's automatic checkpoints say was recorded before the stretch the read
// covered (one inside it was recorded for this very compaction: beyondBound says why).
func olderCommands(p *project.Project, st *stores.Stores, in Input, tr transcript.Compaction) transcript.Activity {
	act := tr.Activity
	upto := tr.Size - transcript.ActivityWindow
	if upto <= 0 || act.Full() || tr.Boundary >= upto || in.SessionID == "" {
		return act // the read covered the stretch since the last boundary, or the list is full
	}
	// The notes since the last compaction: the first compaction noted before the stretch the read
	// covered (one inside it was noted by a PreCompact of this very compaction).
	floor := max(tr.Boundary, 0)
	var spots []transcript.Spot
	for _, n := range st.Claims.CommandSpots(in.SessionID, maxSpots) {
		if n.Compaction {
			if n.At < upto {
				floor = max(floor, n.At)
				break
			}
			continue
		}
		spots = append(spots, transcript.Spot{At: n.At, ID: n.ID})
	}
	if len(spots) == 0 {
		return act
	}
	for _, e := range st.Catalog.Entries() {
		if id, ok := catalog.ParseCompactionID(e.Event); ok && e.Kind == checkpoint.KindAuto && e.Session == in.SessionID && id.Size < upto {
			floor = max(floor, id.Size)
		}
	}
	older, err := in.Transcript.CommandsAt(spots, floor, upto)
	if err != nil {
		p.Warn("%v", err)
		return act
	}
	act.AddOlder(older)
	return act
}

// beyondBound is what lies before the bounded read of the transcript (which began at offset
// window) among the files edited since the last compaction, from what the session recorded
// apart from the transcript: its previous automatic checkpoint's files and its claims (PreToolUse's
// record of each file it edited, most recent first). A compaction's records all precede its
// boundary (PreCompact, and SessionStart's late record, run before Claude Code writes it:
// testscripts/e2e/FINDINGS.md), so a previous record inside the window was taken for this very
// compaction (PreCompact fires several times) after the last boundary, and its files are this
// stretch's too; one before the window belongs to the compaction before, whose files the claims
// are then read without. A path edited before that compaction and again since, further back than
// the window, is the one this cannot tell.
func beyondBound(st *stores.Stores, sid string, claimed []string, window int64) []string {
	c, ok := st.Catalog.Latest(checkpoint.KindAuto, sid, "")
	if !ok || sid == "" {
		return claimed
	}
	data, err := safefile.ReadHead(st.Catalog.Root(), c.Path(st.Catalog.Root()), checkpoint.MaxRead)
	if err != nil {
		return claimed
	}
	fm, _ := checkpoint.SplitLoose(data)
	recorded := checkpoint.ReadFrontmatter(fm).Files
	if id, ok := catalog.ParseCompactionID(c.Event); ok && id.Size >= window {
		return recorded
	}
	in := set(recorded)
	return slices.DeleteFunc(slices.Clone(claimed), func(path string) bool { return in[path] })
}

// appendNew appends to list the items of more it does not hold yet. Both may hold thousands of
// paths (a session's claims), so membership is a set's, not a search of list.
func appendNew(list []string, more ...string) []string {
	in := set(list)
	for _, m := range more {
		if !in[m] {
			in[m] = true
			list = append(list, m)
		}
	}
	return list
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
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

func refreshWhiteboard(p *project.Project, runs *runstate.Runs, in Input, f facts, r run) error {
	if r.err != nil {
		return r.err
	}
	if !r.active {
		return nil // the whiteboard exists only inside a run
	}
	s := runstate.Snapshot{
		Event: f.id.String(), At: f.at, RunID: r.run.ID, State: r.state, StateNote: r.note,
		Trigger: in.Trigger, Instructions: in.Instructions, Tasks: taskLines(f.open), Files: f.edited,
	}
	if id := r.state.Get("run_id"); id != "" {
		s.RunID = id
	}
	if in.Late {
		s.Trigger += ", recorded late by SessionStart (PreCompact did not run)"
	}
	var res runstate.WhiteboardResult
	// The snapshot block is derived (run state, tasks, transcript): where the file system orders a
	// replacing rename after the data, a power cut leaves the old whiteboard or the new one, the
	// prose intact either way, so the fsync is skipped (safefile.NoSyncWhereOrdered).
	if _, err := runs.UpdateWhiteboard(func(old []byte, exists bool) ([]byte, error) {
		res = runstate.RefreshWhiteboard(old, exists, s)
		return res.Data, nil
	}, safefile.NoSyncWhereOrdered); err != nil {
		return fmt.Errorf("%s: %w", r.run.MemoryRel(), err)
	}
	if res.ProseOver {
		p.Warn("%s/MEMORY.md: the prose alone is over %d lines; the snapshot was cut to its minimum", r.run.Rel, runstate.WhiteboardLines-3)
	} else if res.Dropped > 0 {
		p.Warn("%s/MEMORY.md: snapshot shortened by %d lines to stay within %d lines", r.run.Rel, res.Dropped, runstate.WhiteboardLines)
	}
	return nil
}

func refreshSessionFile(ctx *sessionfile.Context, in Input, f facts) error {
	snap := sessionfile.Snapshot{
		Event: f.id.String(), At: f.at, SessionID: in.SessionID, Trigger: in.Trigger, Branch: f.branch,
		Tasks: taskLines(f.open), Files: f.edited,
	}
	_, err := ctx.Update(func(old []byte, exists bool) ([]byte, error) {
		return sessionfile.Refresh(old, exists, snap), nil
	}, safefile.NoSyncWhereOrdered) // a derived snapshot, the parked items kept: as the whiteboard
	return err
}

func autoCheckpoint(p *project.Project, st *stores.Stores, in Input, f facts, r run) error {
	ai := catalog.AutoInput{
		SessionID: in.SessionID, Trigger: in.Trigger, Event: f.id.String(),
		Instructions: in.Instructions, Branch: f.branch, Now: f.at,
		Open: f.open, Completed: f.completed, FilesEdited: f.edited, Prompts: f.prompts, PromptsAt: f.promptsAt, Record: f.record,
	}
	if in.SessionID != "" {
		if started, ok := st.Registry.Started(in.SessionID); ok {
			ai.Started = started
		}
	}
	if r.active {
		ai.Run, ai.State = &r.run, &r.state
	}
	saved, written, err := st.Catalog.Auto(ai)
	if err != nil || !written {
		return err
	}
	trigger := in.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	if err := st.Timeline.Append(timeline.Event{
		Time: f.at, Event: timeline.Compaction, Session: in.SessionID, Branch: f.branch,
		Trigger: trigger, Checkpoint: saved.Rel,
	}); err != nil {
		return fmt.Errorf("%s: %w", timeline.File, err)
	}
	return nil
}
