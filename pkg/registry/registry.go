// Package registry keeps the sessions of one project and the messages they send each other
// (/session list, inbox and broadcast: docs/DESIGN.md, What cairn is for):
// .claude/state/session.json lists the sessions, one to a line, so that a prompt reads and
// rewrites its own session's line alone (lookup, OnPrompt; the layout is in doc.go), and
// .claude/state/session.events.jsonl is an append-only log of events, broadcasts among them.
//
// Sessions. SessionStart registers a session, UserPromptSubmit touches it on every prompt and
// SessionEnd ends it. Claude Code gives SessionEnd 1.5 s and often kills it, so many sessions never
// end: a session with no activity for orphanAfter is marked ended (an orphan) when the next session
// registers (at its SessionStart, or at its first prompt when that was missed). The mark is
// reversible: a later prompt or SessionStart for the same id makes the session active again.
//
// Cursors. Each session has a cursor: a byte offset into the event log before which everything is
// seen. Reading what is unseen reads the log from the cursor only, never the whole of it, so the
// per-prompt cost grows with what is new, not with the log. A new session's cursor starts at the
// end of the log when it registers: it receives what is broadcast after it started, not the
// history. A session's own broadcasts are never delivered to it. Delivery and the cursor's advance
// happen under the registry's lock, so a message is delivered to each other session exactly once,
// whatever runs concurrently.
//
// Delivery. UserPromptSubmit hands Claude the unseen broadcasts under a character budget (see
// OnPrompt); messages that do not fit stay unseen, so the next prompt or `cairn session inbox`
// delivers them, and the delivery ends with a "… N more: run cairn session inbox" line.
//
// Writers take the lock of the file they change (safefile), always session.json before the event
// log when they take both; readers take no lock and use only complete lines of the log.
package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Files of the registry, relative to the project root (docs/DESIGN.md, Where state lives).
const (
	File       = ".claude/state/session.json"
	EventsFile = ".claude/state/session.events.jsonl"
)

// orphanAfter is how long a session may go without activity (a prompt, a start, a broadcast read)
// before the next Register marks it ended. A session the user is at prompts more often than that;
// one that stays silent longer is almost always one whose SessionEnd was killed (the common case:
// docs/DESIGN.md, Facts about Claude Code). A long autonomous turn or a lunch break can be
// mislabelled for a while, which costs nothing but a wrong line in `cairn session list` until its
// next prompt makes it active again: its cursor, and so its messages, are kept.
const orphanAfter = 2 * time.Hour

// activeWithin splits "active" from "idle" in session list (the original /session list's example
// shows a session 2 minutes since its last activity as active and one at 15 minutes as idle).
const activeWithin = 10 * time.Minute

// touchEvery is the resolution of last_activity: a prompt within a minute of the recorded
// activity does not rewrite session.json, which keeps the hot path free of writes and fsyncs.
const touchEvery = time.Minute

// Bounds on session.json: ended sessions are forgotten keepEnded after they ended, and at most
// maxSessions are kept (oldest ended first). Only a session's start time is ever looked up
// later, by `cairn session summary` for the session it runs in, which is not ended.
const (
	keepEnded   = 30 * 24 * time.Hour
	maxSessions = 200
)

// Session statuses.
const (
	StatusActive = "active"
	StatusEnded  = "ended"
)

// How a session ended.
const (
	endedBySessionEnd = "session_end"
	endedAsOrphan     = "orphan"
)

// Session is one session of the project.
type Session struct {
	ID           string    `json:"id"`
	Started      time.Time `json:"started"`
	LastActivity time.Time `json:"last_activity"`
	Branch       string    `json:"branch,omitempty"`
	Status       string    `json:"status"`
	Ended        time.Time `json:"ended,omitzero"`
	EndedBy      string    `json:"ended_by,omitempty"`
	Cursor       int64     `json:"cursor"` // byte offset into EventsFile: everything before it is seen
}

type document struct {
	Sessions []Session `json:"sessions"`
}

// Registry is the handle of a project's session registry: session.json is read at most once
// per process (read), and each write through the handle leaves it holding what was written, so
// a hook that registers a session and later asks when it started reads the file once. A
// process opens it once ([Open]) and passes it down. A Registry is used by one goroutine at a
// time.
type Registry struct {
	files safefile.Writer
	root  string

	data   []byte // session.json as last read or written; nil when missing or unreadable
	loaded bool   // data holds the file (read or written by this handle)
}

// Open returns the registry of p's project, written through p's writer. Nothing is read yet.
func Open(p *project.Project) *Registry { return open(p.Files, p.Root) }

func open(files safefile.Writer, root string) *Registry { return &Registry{files: files, root: root} }

func (r *Registry) path() string       { return filepath.Join(r.root, File) }
func (r *Registry) eventsPath() string { return filepath.Join(r.root, EventsFile) }

// read returns session.json without taking the lock: the first call reads the file, later calls
// return what was read or what this handle wrote since. A missing file, or one that cannot be
// read, is nil (the error is returned to the first caller only when it is not "missing").
func (r *Registry) read() ([]byte, error) {
	if r.loaded {
		return r.data, nil
	}
	data, _, err := safefile.ReadFile(r.root, r.path(), maxRegistry)
	r.loaded = true
	if err != nil {
		r.data = nil
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	r.data = data
	return data, nil
}

// maxID bounds a session id, in bytes.
const maxID = 128

// errBadID reports a session id that cannot be recorded.
var errBadID = errors.New("invalid session id")

// checkID accepts what Claude Code sends (a UUID) and any other printable id up to maxID bytes.
func checkID(id string) error {
	if id == "" || len(id) > maxID {
		return fmt.Errorf("%w %q", errBadID, id)
	}
	for _, r := range id {
		if plain.IsControl(r) {
			return fmt.Errorf("%w %q", errBadID, id)
		}
	}
	return nil
}

func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// Sessions returns the recorded sessions, without taking the lock. A missing registry has none.
func (r *Registry) Sessions() ([]Session, error) {
	data, err := r.read()
	if err != nil || data == nil {
		return nil, err
	}
	d, err := decodeDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	return d.Sessions, nil
}

// lookup returns the session with id sid, without taking the lock. It decodes only that
// session's line of session.json (lineOf), and the whole file only when it is not in the layout
// this package writes or does not hold sid: every prompt asks, and the registry holds up to 200
// sessions.
func (r *Registry) lookup(sid string) (Session, bool) {
	data, err := r.read()
	if err != nil || data == nil {
		return Session{}, false
	}
	if s, _, _, ok := lineOf(data, sid); ok {
		return s, true
	}
	d, err := decodeDocument(data)
	if err != nil {
		return Session{}, false
	}
	if s := find(&d, sid); s != nil {
		return *s, true
	}
	return Session{}, false
}

// Lookup returns the session with id sid as recorded, without taking the lock, decoding its own
// line of session.json alone when the file is in this package's layout (lookup); ok is false for
// a session the registry does not hold.
func (r *Registry) Lookup(sid string) (Session, bool) { return r.lookup(sid) }

// Started returns when session sid started. Its method value has the shape the parking code
// takes (func(sid string) (time.Time, bool)).
func (r *Registry) Started(sid string) (time.Time, bool) {
	s, ok := r.lookup(sid)
	return s.Started, ok && !s.Started.IsZero()
}

// Current returns the session the CLI serves (docs/DESIGN.md, Facts about Claude Code): envSID
// ($CLAUDE_CODE_SESSION_ID) when set, else the active session with the most recent activity
// (recorded to the minute; on a tie, the one registered last); ok is false when there is none.
func (r *Registry) Current(envSID string) (string, bool) {
	if envSID != "" {
		return envSID, checkID(envSID) == nil
	}
	ss, _ := r.Sessions()
	var best Session
	for _, s := range ss {
		if s.Status == StatusActive && !s.LastActivity.Before(best.LastActivity) {
			best = s
		}
	}
	return best.ID, best.ID != ""
}

// update runs fn on the registry under its lock. A registry that is not valid JSON is kept as
// session.json.bad and replaced by an empty one, so that one bad edit cannot stop every hook.
//
// session.json is replaced atomically but not synced (safefile.NoSync): it describes
// live sessions, which a power cut ends anyway, and everything in it heals on its own — the next
// SessionStart or prompt registers its session again, and a cursor that fell back redelivers a
// broadcast rather than losing one. The broadcasts themselves are synced (appendEvents).
func (r *Registry) update(fn func(d *document) (changed bool, err error)) error {
	return r.edit(func(old []byte, exists bool) ([]byte, error) { return r.whole(old, exists, fn) })
}

// updateOne is update for a change to session sid alone, such as a prompt's: when session.json
// is in its layout and holds sid's line (lineOf), one changes that session and only its line is
// rewritten, the other sessions copied as bytes; otherwise all runs on the whole document, as
// update's fn would, and the file is written back in the layout.
func (r *Registry) updateOne(sid string, one func(s *Session) (changed bool, err error), all func(d *document) (changed bool, err error)) error {
	return r.edit(func(old []byte, exists bool) ([]byte, error) {
		s, start, end, ok := lineOf(old, sid)
		if !ok {
			return r.whole(old, exists, all)
		}
		changed, err := one(&s)
		if err != nil {
			return nil, err
		}
		if !changed {
			return nil, safefile.ErrNoChange
		}
		return splice(old, start, end, s), nil
	})
}

// edit replaces session.json with what fn makes of it, under its lock (see update), and leaves
// the handle holding the file as the lock left it: what fn made, or what it found when it
// changed nothing. After a failed write the handle reads the file again when next asked.
func (r *Registry) edit(fn safefile.Edit) error {
	h, _, err := safefile.UpdateHeld(r.files, r.path(), 0o600, fn, safefile.NoSync, safefile.Limit(maxRegistry))
	r.loaded, r.data = h.Known, nil
	if h.Exists {
		r.data = h.Data
	}
	return err
}

// whole decodes old, runs fn on it and encodes the result; a registry that does not decode is
// kept as session.json.bad and fn starts from an empty one.
func (r *Registry) whole(old []byte, exists bool, fn func(d *document) (bool, error)) ([]byte, error) {
	var d document
	if exists && len(old) > 0 {
		var err error
		if d, err = decodeDocument(old); err != nil {
			if _, berr := r.files.Update(r.path()+".bad", 0o600, func([]byte, bool) ([]byte, error) { return old, nil }); berr != nil {
				return nil, fmt.Errorf("%s: %v; and keeping a copy failed: %w", File, err, berr)
			}
			d = document{}
		}
	}
	changed, err := fn(&d)
	if err != nil {
		return nil, err
	}
	if !changed {
		return nil, safefile.ErrNoChange
	}
	return encodeDocument(d), nil
}

// maxRegistry bounds session.json: 200 sessions take about 50 KiB.
const maxRegistry = 1 << 20

func find(d *document, sid string) *Session {
	for i := range d.Sessions {
		if d.Sessions[i].ID == sid {
			return &d.Sessions[i]
		}
	}
	return nil
}

// logSize is the size of the event log: where a new cursor starts.
func (r *Registry) logSize() int64 {
	fi, err := safefile.Stat(r.root, r.eventsPath())
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Register records that session sid started (or resumed) now on branch, and marks ended every
// other active session idle for orphanAfter or longer. A new session's cursor is the end of the
// event log; a session registered before keeps its cursor and its start time.
func (r *Registry) Register(sid, branch string, now time.Time) error {
	if err := checkID(sid); err != nil {
		return err
	}
	now = stamp(now)
	return r.update(func(d *document) (bool, error) {
		if s := find(d, sid); s != nil {
			s.Status, s.LastActivity, s.Ended, s.EndedBy = StatusActive, now, time.Time{}, ""
			if branch != "" {
				s.Branch = branch
			}
			return true, r.appendEvents(append(sweep(d, sid, now), Event{Time: now, From: sid, Type: TypeStart}))
		}
		return true, r.add(d, sid, branch, now)
	})
}

// add registers a session the registry has not seen: it marks orphans ended, logs the start and
// puts the new session's cursor at the end of the log, after that line.
func (r *Registry) add(d *document, sid, branch string, now time.Time) error {
	if err := r.appendEvents(append(sweep(d, sid, now), Event{Time: now, From: sid, Type: TypeStart})); err != nil {
		return err
	}
	d.Sessions = append(d.Sessions, Session{
		ID: sid, Started: now, LastActivity: now, Branch: branch, Status: StatusActive,
		Cursor: r.logSize(),
	})
	prune(d, now)
	return nil
}

// sweep marks ended every active session but sid idle for orphanAfter or longer, and returns the
// events that record it.
func sweep(d *document, sid string, now time.Time) []Event {
	var events []Event
	for i := range d.Sessions {
		s := &d.Sessions[i]
		if s.ID != sid && s.Status == StatusActive && now.Sub(s.LastActivity) >= orphanAfter {
			s.Status, s.Ended, s.EndedBy = StatusEnded, now, endedAsOrphan
			events = append(events, Event{Time: now, From: s.ID, Type: typeOrphaned})
		}
	}
	return events
}

// touch changes d for activity of sid at now and reports whether it changed anything.
func (r *Registry) touch(d *document, sid string, now time.Time) (bool, error) {
	s := find(d, sid)
	if s == nil {
		return true, r.add(d, sid, "", now)
	}
	return touchOne(s, now), nil
}

// touchOne records activity of a registered session at now: it makes an ended session active
// again, and moves last_activity when the recorded one is a minute old or more.
func touchOne(s *Session, now time.Time) bool {
	if s.Status != StatusActive {
		s.Status, s.LastActivity, s.Ended, s.EndedBy = StatusActive, now, time.Time{}, ""
		return true
	}
	if now.Sub(s.LastActivity) >= touchEvery {
		s.LastActivity = now
		return true
	}
	return false
}

// End marks session sid ended now (SessionEnd). An unknown session is not an error.
func (r *Registry) End(sid string, now time.Time) error {
	if err := checkID(sid); err != nil {
		return err
	}
	now = stamp(now)
	return r.update(func(d *document) (bool, error) {
		s := find(d, sid)
		if s == nil || s.Status == StatusEnded && s.EndedBy == endedBySessionEnd {
			return false, nil
		}
		if err := r.appendEvents([]Event{{Time: now, From: sid, Type: TypeEnd}}); err != nil {
			return false, err
		}
		s.Status, s.LastActivity, s.Ended, s.EndedBy = StatusEnded, now, now, endedBySessionEnd
		prune(d, now)
		return true, nil
	})
}

// prune forgets sessions that ended more than keepEnded ago, then the oldest sessions beyond
// maxSessions, ended ones first.
func prune(d *document, now time.Time) {
	d.Sessions = slices.DeleteFunc(d.Sessions, func(s Session) bool {
		ended := s.Ended
		if ended.IsZero() {
			ended = s.LastActivity
		}
		return s.Status == StatusEnded && now.Sub(ended) > keepEnded
	})
	for len(d.Sessions) > maxSessions {
		victim := 0
		for i, s := range d.Sessions {
			v := d.Sessions[victim]
			if (s.Status == StatusEnded) != (v.Status == StatusEnded) {
				if s.Status == StatusEnded {
					victim = i
				}
				continue
			}
			if s.LastActivity.Before(v.LastActivity) {
				victim = i
			}
		}
		d.Sessions = slices.Delete(d.Sessions, victim, victim+1)
	}
}

// Display is how session list shows a session's state: "ended", "active" within activeWithin
// of its last activity, else "idle".
func (s Session) Display(now time.Time) string {
	switch {
	case s.Status == StatusEnded:
		return StatusEnded
	case now.Sub(s.LastActivity) < activeWithin:
		return StatusActive
	}
	return "idle"
}
