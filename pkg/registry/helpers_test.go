package registry

import (
	"fmt"
	"time"
)

// Test-only operations on the registry: the hooks and the CLI go through Register, OnPrompt,
// Inbox and End, which do these under one lock with the rest of their work.

// touchNow records activity of session sid now, making it active again if it was ended. A session
// the registry does not know (its SessionStart was missed, or it started before cairn was
// installed) is registered as Register would, with its cursor at the end of the log. Activity
// within a minute of the recorded one writes nothing.
func (r *Registry) touchNow(sid string, now time.Time) error {
	if err := checkID(sid); err != nil {
		return err
	}
	now = stamp(now)
	return r.update(func(d *document) (bool, error) {
		return r.touch(d, sid, now)
	})
}

// advance moves session sid's cursor forward to offset (never backwards), marking everything
// before it seen.
func (r *Registry) advance(sid string, offset int64) error {
	return r.update(func(d *document) (bool, error) {
		s := find(d, sid)
		if s == nil {
			return false, fmt.Errorf("session %s is not registered", sid)
		}
		if offset <= s.Cursor {
			return false, nil
		}
		s.Cursor = offset
		return true, nil
	})
}

// unseen returns the broadcasts from other sessions after session sid's cursor (at most a
// window of the log; more reports that the log goes on), and the offset to advance to once they
// are shown. It reads without a lock and changes nothing.
func (r *Registry) unseen(sid string) (msgs []Message, next int64, more bool, err error) {
	cursor, err := r.cursorOf(sid)
	if err != nil {
		return nil, 0, false, err
	}
	s, err := r.readFrom(sid, cursor, scanWindow)
	if err != nil {
		return nil, 0, false, err
	}
	return s.msgs, s.end, s.more, nil
}
