// Package handoff decides whether a session that ends leaves a hand-off checkpoint, and gathers
// what goes in it (README.md, Hand-back). SessionEnd calls [Write]; the checkpoint itself is
// package catalog's (Catalog.Handoff), and what SessionStart hands back from it is package brief's. It stands alone as SessionEnd's one
// decision, so that the hook links no more than that flow needs.
//
// A session leaves a hand-off when it did work since its last checkpoint of cairn's — its last
// automatic checkpoint or its last hand-off, from the catalog:
//   - it edited files (the transcript after that checkpoint and after the last boundary);
//   - its tasks changed (a task tool in those lines, or a task list whose fingerprint differs
//     from the one the catalog kept);
//   - it compacted (an automatic checkpoint newer than its last hand-off).
//
// Everything is read once and bounded: one small catalog, the transcript from its end (at most
// 256 MiB, and only what came after the last checkpoint for the edits), the task files, at most
// maxAutos automatic checkpoints and the parked items. SessionEnd shares 1.5 s with every other
// SessionEnd hook; this costs a few milliseconds (docs/BENCHMARKS.md).
package handoff

import (
	"errors"
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/tasks"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// maxAutos is how many of the session's automatic checkpoints give their files to the hand-off;
// maxPrompts how many of the user's last prompts it quotes.
const (
	maxAutos   = 5
	maxPrompts = 3
)

// Input describes the session that ends.
type Input struct {
	SessionID  string
	Transcript *transcript.File // the payload's transcript_path; nil when it names none
	Reason     string
}

// Write leaves the session's hand-off when it did work since its last checkpoint, and returns
// it; written is false when there was nothing new to hand off. st holds the project's handles
// the hook opened (SessionEnd has just expired parked items through st.Parked and ended the
// session through st.Registry).
func Write(p *project.Project, st *stores.Stores, in Input) (saved checkpoint.Saved, written bool, err error) {
	cat, runs := st.Catalog, st.Runs
	if in.SessionID == "" {
		return saved, false, errors.New("no session_id in the payload")
	}
	entries := cat.Entries()
	var autos []catalog.Entry // the session's, newest first
	var last *catalog.Entry   // its newest checkpoint of either kind
	var prev *catalog.Entry   // its hand-off
	// compacted: an automatic checkpoint comes after the session's hand-off in the catalog.
	// The catalog's order is the order of writing (times are whole seconds, and a turn's
	// hand-off and the next /compact can share one), so the order decides, not the times.
	compacted := false
	for i := len(entries) - 1; i >= 0; i-- {
		c := &entries[i]
		if c.Session != in.SessionID {
			continue
		}
		if last == nil {
			last = c
		}
		switch c.Kind {
		case checkpoint.KindAuto:
			if len(autos) == 0 && prev == nil {
				compacted = true
			}
			autos = append(autos, *c)
		case checkpoint.KindHandoff:
			if prev == nil {
				prev = c
			}
		}
	}

	// What came after the last checkpoint: an automatic one records the transcript's length at
	// its compaction in its identity, a hand-off its own.
	from := int64(0)
	if last != nil {
		from = max(from, sizeOf(*last))
	}
	var all []tasks.Task
	if p.Config != "" {
		if all, err = tasks.ForSession(p.Config, in.SessionID); err != nil {
			p.Warn("%v", err)
		}
	}
	// The session's previous hand-off carries what came before from: its files, its record and
	// the session's first request. This one replaces it, so it carries them on.
	var before catalog.HandoffFile
	if prev != nil {
		before, _ = catalog.ReadHandoff(cat.Root(), prev.Path(cat.Root()))
	}
	var tr transcript.Handoff
	if in.Transcript != nil {
		// Without task files, the client's todo list (TodoWrite) is the session's task list.
		if tr, err = in.Transcript.ForHandoff(p.Root, from, before.Record.First == "", len(all) == 0); err != nil {
			p.Warn("%v", err)
		}
		for _, td := range tr.Todos {
			all = append(all, tasks.Task{ID: td.ID, Subject: td.Subject, Status: td.Status})
		}
	}
	open, done := tasks.Open(all), tasks.Completed(all)
	print := catalog.TaskPrint(open, done)

	tasksChanged := tr.Tasks || print != "" && (last == nil || last.Tasks != print)
	if len(tr.Edited) == 0 && !tasksChanged && !compacted {
		return saved, false, nil
	}

	now := p.Now()
	hi := catalog.HandoffInput{
		SessionID: in.SessionID, Reason: in.Reason, Branch: p.Branch(), Now: now,
		Prompts: tr.Prompts, LastReply: tr.LastText, Open: open, Size: tr.Size, Tasks: print,
	}
	if started, ok := st.Registry.Started(in.SessionID); ok {
		hi.Started = started
	}
	if r, err := runs.Active(); err == nil {
		state, _, _ := runs.State()
		hi.Run, hi.State = &r, &state
	}
	if n, err := st.Parked.Count(); err == nil {
		hi.Parked = n
	}
	var files []string
	var earlier []checkpoint.Record // the session's automatic checkpoints' records, newest first
	for i, a := range autos {
		if i == maxAutos {
			break
		}
		sum, fs, rec := readAuto(cat.Root(), a)
		if i == 0 {
			hi.Summary, hi.SummaryOf = sum, a.File
		}
		files = append(files, fs...)
		earlier = append(earlier, rec)
	}
	if in.Transcript != nil {
		// The prompts before the last checkpoint are read where it recorded them (LastWords).
		var earlier []int64
		if last != nil {
			earlier = last.PromptsAt
		}
		w, err := in.Transcript.LastWords(maxPrompts, from, earlier)
		if err != nil {
			p.Warn("%v", err)
		}
		tr.Prompts, tr.LastText, hi.PromptsAt = w.Prompts, w.LastText, w.At
	}
	hi.Prompts, hi.LastReply = tr.Prompts, tr.LastText
	hi.Record = withEarlier(catalog.NewRecord(tr.Activity, tr.LastText, tr.Prompts), append(earlier, before.Record))
	hi.Record.First = tr.First
	if hi.Record.First == "" {
		hi.Record.First = before.Record.First
	}
	files = append(files, before.Files...)
	// The files since the last checkpoint, then those the compactions and the previous hand-off
	// recorded: a hand-off replaces the session's previous one, so it carries the whole session.
	hi.Files = tr.Edited
	for _, f := range files {
		if !slices.Contains(hi.Files, f) {
			hi.Files = append(hi.Files, f)
		}
	}
	hi.Doing = doing(open, tr.Prompts)
	saved, err = cat.Handoff(hi)
	return saved, err == nil || saved.Rel != "", err
}

// sizeOf is the transcript length a checkpoint of the catalog was taken at; 0 when unknown.
func sizeOf(c catalog.Entry) int64 {
	if c.Kind == checkpoint.KindHandoff {
		return max(c.Size, 0)
	}
	if id, ok := catalog.ParseCompactionID(c.Event); ok {
		return max(id.Size, 0)
	}
	return 0
}

// readAuto reads Claude Code's summary, the files and the session record an automatic
// checkpoint kept.
func readAuto(root string, c catalog.Entry) (summary string, files []string, rec checkpoint.Record) {
	data, err := safefile.ReadHead(root, c.Path(root), checkpoint.MaxRead)
	if err != nil {
		return "", nil, rec
	}
	fm, body := checkpoint.SplitLoose(data)
	_, sec := checkpoint.ParseBody(body)
	return catalog.ClaudeSummary(sec.Summary), checkpoint.ReadFrontmatter(fm).Files, checkpoint.ReadRecord(sec.Notes)
}

// withEarlier completes the record of what came after the last boundary with what the session's
// automatic checkpoints recorded before it (newest first): the commands after r's own, the last
// error and commit when r has none. A /compact run's SessionEnd sees an empty stretch after the
// boundary, and the hand-off still carries the session's commands.
func withEarlier(r checkpoint.Record, earlier []checkpoint.Record) checkpoint.Record {
	for _, e := range earlier {
		if r.LastError == "" {
			r.LastError = e.LastError
		}
		if r.LastCommit == "" {
			r.LastCommit = e.LastCommit
		}
		for _, c := range e.Commands {
			if !slices.ContainsFunc(r.Commands, func(o checkpoint.Command) bool { return o.Line == c.Line }) {
				r.Commands = append(r.Commands, c)
			}
		}
		r.More = max(r.More, e.More)
		for _, d := range e.Decisions {
			if !slices.Contains(r.Decisions, d) {
				r.Decisions = append(r.Decisions, d)
			}
		}
	}
	return r
}

// doing is the one line of what the session was doing: the task in progress, else the last
// thing the user asked.
func doing(open []tasks.Task, prompts []string) string {
	for _, t := range open {
		if t.Status == tasks.StatusInProgress && strings.TrimSpace(t.Subject) != "" {
			return t.Subject
		}
	}
	if len(prompts) > 0 {
		return prompts[0]
	}
	return ""
}
