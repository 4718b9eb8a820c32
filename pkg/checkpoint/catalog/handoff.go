package catalog

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tasks"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// statusHandoff is the status of a hand-off checkpoint, as auto is an automatic one's.
const statusHandoff = "handoff"

// Bounds on what a hand-off copies (docs/DESIGN.md, Invariants: "Bounded").
const (
	maxHandoffPrompts = 3
	maxReplyRunes     = 1500 // the tail of Claude's last message
	maxDoingRunes     = 160  // the one line of what the session was doing
)

// HandoffInput is what SessionEnd knows of a session that did work.
type HandoffInput struct {
	SessionID string
	Reason    string // SessionEnd's reason
	Branch    string
	Now       time.Time
	Started   time.Time       // the session's start, from the registry; zero when unknown
	Run       *runstate.Run   // nil without an active run
	State     *runstate.State // the run's state.json; nil without an active run
	Doing     string          // one line: what the session was doing, as typed (redacted here)
	Summary   string          // Claude Code's summary at the session's last compaction (CompactSummary's text)
	SummaryOf string          // the automatic checkpoint that summary comes from, relative to the root
	Prompts   []string        // the last user requests, most recent first, as typed
	LastReply string          // Claude's last message, as written: its tail is kept
	Files     []string        // the files the session edited, most recent first
	Open      []tasks.Task
	Parked    int               // open parked items in the project
	Size      int64             // the transcript's length now, so the next hand-off knows what is new
	PromptsAt []int64           // where the lines of Prompts start in the transcript (Entry.PromptsAt)
	Tasks     string            // TaskPrint of the session's tasks now
	Record    checkpoint.Record // the commands, the last error and commit, Claude's question and next step
}

// Handoff writes the session's hand-off checkpoint (kind handoff) and returns it. A session has
// one hand-off: a new one (the session resumed, did more and ended again) replaces the one
// before, whose removal is logged. It runs the retention rule as Auto does.
func (x *Catalog) Handoff(in HandoffInput) (checkpoint.Saved, error) {
	files, root := x.files, x.root
	var saved checkpoint.Saved
	err := x.writeCataloged(in.Now, in.SessionID, func(cat []Entry) (Entry, bool, []Entry, error) {
		var old []Entry
		for _, c := range cat {
			if c.Kind == checkpoint.KindHandoff && c.Session == in.SessionID && in.SessionID != "" {
				old = append(old, c)
			}
		}
		var err error
		// Not synced: a hand-off is a digest of the transcript Claude Code keeps, and SessionEnd
		// shares 1.5 s with every other SessionEnd hook, of which an fsync on a busy disk can take
		// a real share (docs/BENCHMARKS.md). A power cut right after a session ends can cost its
		// hand-off.
		if saved, err = checkpoint.Save(files, root, handoffEntry(in, x.worktree), safefile.NoSync); err != nil {
			return Entry{}, false, nil, err
		}
		return Entry{
			File: saved.Rel, Kind: checkpoint.KindHandoff, Session: in.SessionID, Branch: in.Branch, Time: in.Now,
			Size: in.Size, Line: plain.Field(in.Doing, maxDoingRunes), Tasks: in.Tasks, PromptsAt: in.PromptsAt,
		}, true, old, nil
	})
	if saved.Rel == "" {
		return saved, err
	}
	errLog := x.log.Append(timeline.Event{
		Time: in.Now, Event: timeline.Handoff, Session: in.SessionID, Branch: in.Branch, Worktree: x.worktree, Reason: in.Reason, Checkpoint: saved.Rel,
	})
	return saved, errors.Join(err, errLog)
}

func handoffEntry(in HandoffInput, worktree string) checkpoint.Entry {
	doing := plain.Field(in.Doing, maxDoingRunes)
	title := "session-handoff"
	if doing != "" {
		title = "handoff " + doing
	}
	e := checkpoint.Entry{
		Title: title, Status: statusHandoff, Kind: checkpoint.KindHandoff, Branch: in.Branch, Worktree: worktree, Time: in.Now,
		Files: in.Files, Session: in.SessionID,
	}
	if !in.Started.IsZero() && !in.Now.Before(in.Started) {
		e.Duration, e.HasDuration = in.Now.Sub(in.Started), true
	}

	sid := in.SessionID
	if sid == "" {
		sid = "(unknown)"
	}
	reason := in.Reason
	if reason == "" {
		reason = "other"
	}
	var sum []string
	sum = append(sum, fmt.Sprintf("Hand-off written by cairn when session %s ended (%s), on branch %s.", plain.Line(sid, 80), plain.Line(reason, 40), orDash(redact.Redact(in.Branch))))
	if in.Run != nil {
		st := in.State
		if st == nil {
			st = &runstate.State{}
		}
		sum = append(sum, plain.Line(redact.Redact("Run "+orDash(in.Run.ID)+": phase "+orDash(st.Get("phase"))), 0)+".")
	}
	if doing != "" {
		sum = append(sum, workingOnLine+doing)
	}
	if in.Summary != "" {
		sum = append(sum, "", "Claude Code's own summary at the session's last compaction ("+plain.Name(in.SummaryOf)+"; secrets redacted):", "", in.Summary)
	}
	e.Summary = strings.Join(sum, "\n")

	if in.Summary != "" {
		e.Decisions = "Not recorded separately: Claude Code's summary above covers the decisions up to that compaction; the last requests and Claude's last words are under Notes."
	} else {
		e.Decisions = "Not recorded automatically: decisions need the conversation, which a hook cannot summarise; the last requests and Claude's last words are under Notes."
	}
	if in.Run != nil {
		e.Decisions += " See the run's MEMORY.md, ## Decisions."
	}

	rem := taskLines(in.Open, true)
	if len(rem) == 0 {
		rem = append(rem, "No open tasks recorded.")
	}
	if in.Parked > 0 {
		rem = append(rem, "", fmt.Sprintf("%d parked %s open: `/session resume` lists them.", in.Parked, plural(in.Parked, "item", "items")))
	}
	e.Remaining = strings.Join(rem, "\n")

	var notes []string
	prompts := in.Prompts
	if len(prompts) > maxHandoffPrompts {
		prompts = prompts[:maxHandoffPrompts]
	}
	if len(prompts) > 0 {
		notes = append(notes, "Last user requests, most recent first (secrets redacted):")
		for _, p := range prompts {
			notes = append(notes, "- "+plain.Field(p, maxPromptRunes))
		}
	}
	if tail := replyTail(in.LastReply); tail != "" {
		if len(notes) > 0 {
			notes = append(notes, "")
		}
		notes = append(notes, "Claude's last message ended (secrets redacted):", "")
		for _, l := range strings.Split(tail, "\n") {
			notes = append(notes, strings.TrimRight("> "+l, " "))
		}
	}
	if rec := checkpoint.RecordBlock(in.Record); rec != "" {
		if len(notes) > 0 {
			notes = append(notes, "")
		}
		notes = append(notes, rec)
	}
	if len(in.Files) > 0 {
		if len(notes) > 0 {
			notes = append(notes, "")
		}
		notes = append(notes, fmt.Sprintf("%d %s edited in the session (files_modified).", len(in.Files), plural(len(in.Files), "file", "files")))
	}
	e.Notes = strings.Join(notes, "\n")
	return e
}

// replyTail is the end of Claude's last message, redacted before it is cut (so no part of a
// secret is left at the cut), at most maxReplyRunes, starting at a line when one starts near.
func replyTail(s string) string {
	s = strings.TrimSpace(plain.Body(s))
	r := []rune(s)
	if len(r) <= maxReplyRunes {
		return s
	}
	t := string(r[len(r)-maxReplyRunes:])
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < maxReplyRunes/3 {
		t = t[i+1:]
	}
	return "…" + strings.TrimLeft(t, "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TaskPrint is a fingerprint of a session's task list: ids, statuses and subjects. The catalog
// keeps it with each of cairn's checkpoints, so that SessionEnd can tell whether the tasks
// changed since the session's last one without keeping them.
func TaskPrint(open, completed []tasks.Task) string {
	ts := append(slices.Clone(open), completed...)
	if len(ts) == 0 {
		return ""
	}
	slices.SortFunc(ts, func(a, b tasks.Task) int { return strings.Compare(a.ID+"\x00"+a.Subject, b.ID+"\x00"+b.Subject) })
	h := fnv.New64a()
	for _, t := range ts {
		h.Write([]byte(t.ID + "\x00" + t.Status + "\x00" + t.Subject + "\x00"))
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// workingOnLine opens the hand-off Summary's line of what the session was doing.
const workingOnLine = "It was working on: "

// HandoffFile is what a hand-off checkpoint's own file says of its session: the pointer
// SessionStart prints is built from it, never from the catalog, which only says where to look.
type HandoffFile struct {
	Session string    // the session it was written for
	Branch  string    // the branch it was left on
	Time    time.Time // when the session ended (its timestamp)
	Doing   string    // one line of what the session was doing; "" when unknown
	Files   []string  // files_modified: the files the session edited, most recent first
	Tasks   []string  // the open tasks its Remaining Work lists (TaskLines)
	Record  checkpoint.Record
	// summary is the file's Summary section, which quotes Claude Code's summary at the session's
	// last compaction. It is read by Pending, Decided and Next only for the hand-off a caller
	// settles on: SessionStart reads up to 16 candidates, and a clone can commit each of them at
	// the size a checkpoint may have.
	summary string
}

// Pending is what Claude Code's summary at the session's last compaction listed as pending
// (pendingInSummary).
func (h HandoffFile) Pending() []string { return pendingInSummary(h.summary) }

// Decided is what that summary states was decided (decidedInSummary).
func (h HandoffFile) Decided() []string { return decidedInSummary(h.summary) }

// Next is that summary's next step (nextInSummary).
func (h HandoffFile) Next() string { return nextInSummary(h.summary) }

// ReadHandoff reads the hand-off checkpoint at path, inside the project at root. ok is false
// for anything that is not one (another kind, a frontmatter that does not parse, no session).
// The session is the frontmatter's session: field, or for hand-offs written before it, the one
// the Summary's first line names.
func ReadHandoff(root, path string) (h HandoffFile, ok bool) {
	data, err := safefile.ReadHead(root, path, checkpoint.MaxRead)
	if err != nil {
		return h, false
	}
	fields, body := checkpoint.SplitLoose(data)
	fm := checkpoint.ReadFrontmatter(fields)
	if fm.Kind != checkpoint.KindHandoff || fm.Time.IsZero() {
		return h, false
	}
	_, sec := checkpoint.ParseBody(body)
	h = HandoffFile{Session: fm.Session, Branch: fm.Branch, Time: fm.Time, Files: fm.Files,
		Tasks: TaskLines(sec.Remaining), Record: checkpoint.ReadRecord(sec.Notes), summary: sec.Summary}
	for _, l := range strings.Split(sec.Summary, "\n") {
		if h.Session == "" {
			if rest, found := strings.CutPrefix(l, "Hand-off written by cairn when session "); found {
				h.Session, _, _ = strings.Cut(rest, " ")
			}
		}
		if d, found := strings.CutPrefix(l, workingOnLine); found && h.Doing == "" {
			h.Doing = plain.Line(d, maxDoingRunes)
		}
	}
	return h, h.Session != "" && h.Session != "(unknown)"
}
