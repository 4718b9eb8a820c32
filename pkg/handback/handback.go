// Package handback decides what SessionStart gives back to Claude, with or without a run. It is
// apart from brief, which lays text out, because it holds the decision and reads the handles;
// apart from compaction, which records, because only SessionStart asks it.
//
// The route of a SessionStart payload (docs/DESIGN.md follows it from the main): hooks/sessionstart
// builds the world once (hookio.Main: a [project.Project] with the root, the config directory, the
// confined writer, the clock), opens the project's handles ([stores.Stores]: the catalog, the runs,
// session-context.md, the parked items, the registry, the timeline), does its housekeeping through
// them, and calls [Text] with the world, the handles and the payload's transcript, opened once
// ([transcript.File]). Text passes the same values to [compaction.Record] when it records a
// compaction late, so the record's reads and writes go through the same handles, and no file is
// read twice outside a lock.
//
// [Text] is the whole decision, in this order:
//
//  1. After a compaction (source=compact) whose PreCompact did not run (compaction.Missed), the
//     compaction is recorded now, late (compaction.Record). A resume looks for a compaction since
//     the last snapshot instead (compaction.CompactedSince).
//  2. Without an active run: after a compaction, the hand-back of that compaction
//     (brief.AfterCompaction: exact paths, open tasks, parked count, checkpoint), and again at a
//     resume straight after one, before Claude has answered (compaction.PendingHandBack: a
//     client may have dropped SessionStart(compact)'s context); at startup and after /clear, a
//     pointer to this branch's newest hand-off of another session when it is under 7 days old
//     (brief.HandoffPointer); at any other resume and at fork, nothing — the conversation is
//     there.
//  3. With an active run: the read order of the run whiteboard (brief.ReadOrder), and after a
//     compaction the whiteboard itself, the restore protocol and the newest checkpoint; at startup
//     and after /clear the hand-off pointer follows the read order.
//
// CAIRN_HANDBACK=off (from settings.json's env) turns off everything but a run's read order,
// which was asked for by starting the run.
package handback

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/autopark"
	"github.com/cairn-hooks/cairn/pkg/brief"
	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/compaction"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/stores"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// enabled reads CAIRN_HANDBACK, which settings.json's env block passes to hooks: off, 0, false
// or no turn the hand-back off.
func enabled(env project.Env) bool {
	switch strings.ToLower(strings.TrimSpace(env.Get("CAIRN_HANDBACK"))) {
	case "off", "0", "false", "no":
		return false
	}
	return true
}

// pointerAge is how old a hand-off may be and still be pointed to at startup: a week, so that
// Monday's session is pointed to Friday's work and not to last month's.
const pointerAge = 7 * 24 * time.Hour

// maxPointerReads bounds how many hand-off files SessionStart reads to find the one to point to.
const maxPointerReads = 16

// Start is one SessionStart: the payload's fields that matter.
type Start struct {
	SessionID, Source string
	Transcript        *transcript.File // the payload's transcript_path; nil when it names none
}

// Text records a compaction PreCompact missed and returns what SessionStart tells Claude in
// project p ("" for nothing). cat and runs are p's catalog and runs, opened by the hook: Text
// reads each once, and a late record leaves the catalog holding what it wrote. An error is one
// that leaves nothing to say (a damaged active run); the rest are warnings, through p.Warn.
func Text(p *project.Project, st *stores.Stores, s Start) (string, error) {
	cat, runs := st.Catalog, st.Runs
	run, runErr := runs.Active()
	now := p.Now()
	on := enabled(p.Env)
	tr := compaction.BoundariesOf(s.Transcript)
	compacted := false
	switch s.Source {
	case "compact":
		compacted = true
		missed, err := compaction.Missed(s.SessionID, compaction.LastRecorded(cat, s.SessionID), tr)
		if err != nil {
			p.Warn("%v", err)
		}
		if missed {
			if err := compaction.Record(p, st,
				compaction.Input{SessionID: s.SessionID, Transcript: s.Transcript, Trigger: "auto", Late: true},
			); err != nil {
				p.Warn("recording the compaction PreCompact missed: %v", err)
			}
		}
	case "resume":
		last := compaction.LastRecorded(cat, s.SessionID)
		var err error
		if runErr == nil {
			// With a run, the whiteboard comes again at any resume after a compaction since the
			// last snapshot: it is kept current (README.md, Hand-back).
			compacted, err = compaction.CompactedSince(s.SessionID, last, tr)
		} else if on {
			compacted, err = compaction.PendingHandBack(s.SessionID, last, tr)
		}
		if err != nil {
			p.Warn("%v", err)
		}
	}
	var pointer string
	if on && (s.Source == "startup" || s.Source == "clear") {
		pointer = handoffPointer(p, cat.Entries(), s.SessionID, p.Branch(), now)
	}
	if errors.Is(runErr, runstate.ErrNoActive) {
		// After a compaction, and at a resume straight after one (a client that drops
		// SessionStart(compact)'s context, as 2.1.100 does after /compact, hands it back at the
		// next resume).
		if on && compacted {
			return afterCompaction(p, st, s), nil
		}
		return pointer, nil
	}
	if runErr != nil {
		return "", runErr
	}
	newest := ""
	if compacted {
		if c, ok := cat.Latest(checkpoint.KindAuto, s.SessionID, ""); ok && s.SessionID != "" {
			newest = c.Path(cat.Root()) // this compaction's own checkpoint
		} else if path, ok := checkpoint.Newest(cat.Root(), now); ok {
			newest = path
		}
		newest = readable(p.Root, newest)
	}
	var board []byte
	if compacted {
		board, _ = runs.Whiteboard()
	}
	text := brief.ReadOrder(p.Root, run, compacted, newest, runs.StartedHere(run), board)
	if pointer != "" {
		text += "\n" + pointer // the read order at startup is a short list: both fit the budget
	}
	return text, nil
}

// readable is path as Claude, working in root, can read it: relative to root when it lies inside,
// with '/'; else absolute (a linked worktree's checkpoints live in the main checkout).
func readable(root, path string) string {
	if path == "" {
		return ""
	}
	if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return path
}

// handoffPointer is the pointer to this branch's newest hand-off of a session other than sid, or
// "" when there is none under pointerAge. The catalog only says where to look: what the pointer
// says comes from the hand-off file itself, and only a hand-off of a session Claude Code ran on
// this machine (p.SessionRanHere) is pointed to — a clone can commit a catalog and checkpoints,
// but not the user's transcripts. Nothing dated in the future is the newest.
func handoffPointer(p *project.Project, cat []catalog.Entry, sid, branch string, now time.Time) string {
	shared := p.Shared() // where the catalog and its checkpoints live
	read := 0
	for i := len(cat) - 1; i >= 0 && read < maxPointerReads; i-- {
		c := cat[i]
		if c.Kind != checkpoint.KindHandoff || c.Branch != branch {
			continue
		}
		if now.Sub(c.Time) > pointerAge+24*time.Hour {
			break // the catalog is in time order: it bounds the search, the file's date decides
		}
		read++
		h, ok := catalog.ReadHandoff(shared, c.Path(shared))
		if !ok || h.Branch != branch || h.Session == sid && sid != "" {
			continue
		}
		if h.Time.After(now.Add(time.Minute)) {
			continue // written under a clock that was ahead, or by hand: not pointed to for ever
		}
		if now.Sub(h.Time) > pointerAge {
			continue
		}
		if !p.SessionRanHere(h.Session) {
			continue
		}
		doing, rec := notDeferred(h.Doing, h.Record)
		return brief.HandoffPointer(brief.Pointer{
			Checkpoint: c.File, Branch: h.Branch, Ended: h.Time, Doing: doing,
			Files: h.Files, Record: rec, Tasks: h.Tasks, Pending: h.Pending(), Decided: h.Decided(), Next: h.Next(), Short: shortName(c.File, cat),
		}, now)
	}
	return ""
}

// notDeferred is what the pointer says the session was doing, and its record, without the
// requests the user deferred (autopark.Defers): a deferral is what the session was not working
// on, and parking took its text, which is never surfaced unasked. When the working-on line is a
// deferral, the latest request that is not one takes its place.
func notDeferred(doing string, r checkpoint.Record) (string, checkpoint.Record) {
	var reqs []string
	for _, q := range r.Requests {
		if !autopark.Defers(q) {
			reqs = append(reqs, q)
		}
	}
	r.Requests = reqs
	if doing != "" && autopark.Defers(doing) {
		doing = ""
		if len(reqs) > 0 {
			doing = reqs[0]
		}
	}
	return doing, r
}

// shortName is how the pointer names checkpoint file (relative to the root) for
// `/context-restore`, which matches a fragment of a name: its date, time and first title word
// ("20261207-003736-handoff"), when no other checkpoint of the catalog starts the same way; else
// its whole name.
func shortName(file string, cat []catalog.Entry) string {
	base := strings.TrimSuffix(filepath.Base(file), ".md")
	short := base
	if parts := strings.SplitN(base, "-", 4); len(parts) >= 3 {
		short = strings.Join(parts[:3], "-")
	}
	for _, e := range cat {
		if e.File != file && strings.HasPrefix(filepath.Base(e.File), short) {
			return base
		}
	}
	return short
}

// afterCompaction is the hand-back of the compaction this session just went through, from its
// automatic checkpoint, or "" when there is none.
func afterCompaction(p *project.Project, st *stores.Stores, s Start) string {
	cat := st.Catalog
	c, ok := cat.Latest(checkpoint.KindAuto, s.SessionID, "")
	if !ok || s.SessionID == "" {
		return ""
	}
	data, err := safefile.ReadHead(cat.Root(), c.Path(cat.Root()), checkpoint.MaxRead)
	if err != nil {
		p.Warn("%s: %v", c.File, err)
		return ""
	}
	fm, body := checkpoint.SplitLoose(data)
	_, sec := checkpoint.ParseBody(body)
	h := brief.Compacted{
		Checkpoint: readable(p.Root, c.Path(cat.Root())), Branch: p.Branch(), Files: checkpoint.ReadFrontmatter(fm).Files,
		Record: checkpoint.ReadRecord(sec.Notes), Tasks: catalog.TaskLines(sec.Remaining),
	}
	h.Files = appendNew(h.Files, earlierFiles(p, cat, s.SessionID, c.File)...)
	if n, err := st.Parked.Count(); err == nil {
		h.Parked = n
	}
	return brief.AfterCompaction(h)
}

// maxEarlier is how many of the session's earlier automatic checkpoints give their files to the
// hand-back: the session's exact paths, not only those since the last compaction.
const maxEarlier = 4

// earlierFiles is the files the session's automatic checkpoints before newest recorded, most
// recent first.
func earlierFiles(p *project.Project, cat *catalog.Catalog, sid, newest string) []string {
	var out []string
	entries, read := cat.Entries(), 0
	for i := len(entries) - 1; i >= 0 && read < maxEarlier; i-- {
		e := entries[i]
		if e.Kind != checkpoint.KindAuto || e.Session != sid || e.File == newest {
			continue
		}
		read++
		data, err := safefile.ReadHead(cat.Root(), e.Path(cat.Root()), checkpoint.MaxRead)
		if err != nil {
			continue
		}
		fm, _ := checkpoint.SplitLoose(data)
		out = appendNew(out, checkpoint.ReadFrontmatter(fm).Files...)
	}
	return out
}

// appendNew appends to list the items of more it does not hold yet.
func appendNew(list []string, more ...string) []string {
	for _, m := range more {
		if !slices.Contains(list, m) {
			list = append(list, m)
		}
	}
	return list
}
