package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Event types in the log. Only broadcasts are delivered; the others record the registry's
// history for people reading the log.
const (
	TypeBroadcast = "broadcast"
	TypeStart     = "session_start"
	TypeEnd       = "session_end"
	typeOrphaned  = "session_orphaned"
)

// maxMessage bounds a broadcast, in characters: a message is a note to other sessions, and
// every one of them gets it as context.
const maxMessage = 2000

// anonymous is the sender of a broadcast made outside any session (a person at a terminal).
const anonymous = "cli"

// Event is one line of the event log: {"ts","from","type","msg"}.
type Event struct {
	Time time.Time
	From string
	Type string
	Msg  string
}

func (e Event) appendJSON(dst []byte) []byte {
	o := jsonw.Open(dst)
	o.Str("ts", e.Time.UTC().Format(time.RFC3339))
	o.Str("from", e.From)
	o.Str("type", e.Type)
	o.StrOmitEmpty("msg", e.Msg)
	return o.Close()
}

// ParseEvent reads one line of the event log. ok is false for anything that is not a JSON
// object with a string "type"; a missing or malformed ts reads as the zero time, a missing
// from as "".
func ParseEvent(line []byte) (Event, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !gjson.ValidBytes(line) {
		return Event{}, false
	}
	r := gjson.GetManyBytes(line, "type", "from", "msg", "ts")
	if r[0].Type != gjson.String || r[0].Str == "" {
		return Event{}, false
	}
	e := Event{Type: strings.ToValidUTF8(r[0].Str, "\uFFFD")}
	if r[1].Type == gjson.String {
		e.From = r[1].Str
	}
	if r[2].Type == gjson.String {
		e.Msg = r[2].Str
	}
	if r[3].Type == gjson.String {
		e.Time, _ = time.Parse(time.RFC3339, r[3].Str)
	}
	e.From = strings.ToValidUTF8(e.From, "\uFFFD")
	e.Msg = strings.ToValidUTF8(e.Msg, "\uFFFD")
	return e, true
}

// appendEvents appends evs to the log. A broadcast carries a person's words and is synced to
// disk; the lifecycle lines (start, end, orphaned) only tell a story that session.json also
// holds, and are appended without the fsync (safefile's Log), which keeps SessionStart and
// SessionEnd off the disk's flush.
func (r *Registry) appendEvents(evs []Event) error {
	var b []byte
	durable := false
	for _, e := range evs {
		durable = durable || e.Type == TypeBroadcast
		b = append(e.appendJSON(b), '\n')
	}
	if len(b) == 0 {
		return nil
	}
	if durable {
		return r.files.Append(r.eventsPath(), b, 0o600)
	}
	return r.files.Append(r.eventsPath(), b, 0o600, safefile.NoSync)
}

// errEmptyMessage and errLongMessage refuse a broadcast.
var (
	errEmptyMessage = errors.New("empty message")
	errLongMessage  = fmt.Errorf("message longer than %d characters", maxMessage)
)

// Broadcast appends msg from session from ("" means anonymous) to the event log, for every
// other session to receive once. It takes only the log's lock.
func (r *Registry) Broadcast(from, msg string, now time.Time) error {
	msg = strings.TrimSpace(plain.Body(msg)) // every other session reads it, and so does the log
	if msg == "" {
		return errEmptyMessage
	}
	if utf8.RuneCountInString(msg) > maxMessage {
		return errLongMessage
	}
	if from == "" {
		from = anonymous
	} else if err := checkID(from); err != nil {
		return err
	}
	return r.appendEvents([]Event{{Time: stamp(now), From: from, Type: TypeBroadcast, Msg: msg}})
}

// Message is a broadcast read from the log.
type Message struct {
	Event
	End int64 // offset just past its line: a cursor there has seen it
}

// scanWindow bounds how much of the log one delivery reads (about 2,000 messages of ordinary
// length); what lies beyond is read by the next prompt or by the inbox.
const scanWindow = 256 << 10

// maxSkip bounds how far one read of the log looks for the end of the lines it passes over (a
// cursor left inside a line, lines longer than the window). cairn's records are short; a line
// without an end for this long is not one of them — a repository can commit a log of gigabytes
// without a newline — and a prompt must not pay for reading all of it. The read stops inside
// such a line, its cursor there, and the next read goes on from it: the line costs each read
// at most this much, and what follows it is delivered once it has been passed.
const maxSkip = 4 << 20

// scan is what a read of the log from a cursor found.
type scan struct {
	msgs    []Message // broadcasts from other sessions, in log order
	skipEnd []int64   // skipEnd[i]: cursor after message i and the lines not for us following it
	start   int64     // cursor before the first message (past the lines not for us preceding it)
	end     int64     // offset past the last complete line read
	more    bool      // the log goes on past end (beyond the window)
}

// readFrom reads complete lines of the log from cursor, at most limit bytes, and keeps the
// broadcasts not sent by sid. A cursor past the end of the log (the log was removed and
// restarted) starts again at 0; a cursor in the middle of a line (a damaged registry) skips to
// the next line. A line longer than the window is skipped whole. A line without its newline yet
// (being appended) is never consumed. Skipping reads at most maxSkip bytes in all: past that,
// the scan ends inside the line it was skipping.
func (r *Registry) readFrom(sid string, cursor, limit int64) (scan, error) {
	f, fi, err := safefile.Open(r.root, r.eventsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return scan{start: cursor, end: cursor}, nil
	}
	if err != nil {
		return scan{}, err
	}
	defer f.Close()
	size := fi.Size()
	if cursor > size || cursor < 0 {
		cursor = 0
	}
	budget := int64(maxSkip)
	if cursor > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], cursor-1); err != nil {
			return scan{}, err
		}
		if prev[0] != '\n' {
			next, complete, err := skipLine(f, cursor, size, budget)
			if err != nil {
				return scan{}, err
			}
			if !complete {
				return scan{start: cursor, end: cursor}, nil
			}
			budget -= next - cursor
			if budget <= 0 {
				return scan{start: next, end: next, more: next < size}, nil
			}
			cursor = next
		}
	}
	s := scan{start: cursor, end: cursor}
	for s.end < size {
		n := min(size-s.end, limit-(s.end-cursor))
		if n <= 0 {
			break
		}
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, s.end); err != nil && !errors.Is(err, io.EOF) {
			return scan{}, err
		}
		last := bytes.LastIndexByte(buf, '\n')
		if last < 0 {
			if s.end == cursor && n == limit {
				// One line fills the window: skip it whole, as garbage, once it is complete.
				next, complete, err := skipLine(f, s.end, size, budget)
				if err != nil {
					return scan{}, err
				}
				if !complete {
					break
				}
				budget -= next - s.end
				s.start, s.end, cursor = next, next, next
				if budget <= 0 {
					break // the skip budget is spent, maybe inside the line
				}
				continue
			}
			break // a partial last line: being written, or cut by the window
		}
		s.add(sid, buf[:last+1], s.end)
		s.end += int64(last + 1)
		break
	}
	s.more = s.end < size
	return s, nil
}

// add reads the complete lines of buf, which starts at offset off.
func (s *scan) add(sid string, buf []byte, off int64) {
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		line := buf[:i+1]
		buf = buf[i+1:]
		off += int64(len(line))
		e, ok := ParseEvent(line)
		if ok && e.Type == TypeBroadcast && e.From != sid && e.Msg != "" {
			s.msgs = append(s.msgs, Message{Event: e, End: off})
			s.skipEnd = append(s.skipEnd, off)
			continue
		}
		if len(s.msgs) == 0 {
			s.start = off
		} else {
			s.skipEnd[len(s.skipEnd)-1] = off
		}
	}
}

// skipLine returns the offset just past the line that contains off; complete is false when
// that line has no end yet (it runs to the end of the log). It reads at most limit bytes: when
// they hold no newline and the log goes on, next is off+limit, inside the line, and complete
// is true (see maxSkip).
func skipLine(f *os.File, off, size, limit int64) (next int64, complete bool, err error) {
	buf := make([]byte, 64<<10)
	stop := min(size, off+limit)
	for off < stop {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), stop-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, true, nil
		}
		off += int64(n)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, false, err
		}
		if n == 0 {
			return off, false, nil // shrank since fstat
		}
	}
	return off, off < size, nil
}

// cursorOf returns session sid's cursor, reading the registry without its lock.
func (r *Registry) cursorOf(sid string) (int64, error) {
	s, ok := r.lookup(sid)
	if !ok {
		return 0, fmt.Errorf("session %s is not registered", sid)
	}
	return s.Cursor, nil
}

// ShortID is how tables and deliveries name a session: the first 8 characters of its id.
func ShortID(id string) string {
	if utf8.RuneCountInString(id) <= 8 {
		return id
	}
	return string([]rune(id)[:8])
}

// OnPrompt is what the UserPromptSubmit hook calls on every prompt: it touches session sid and
// offers show the unseen broadcasts of other sessions, oldest first (at most a window of the
// log: more says that it goes on). show lays them out for Claude and returns how many of them,
// from the first, it delivered; the cursor advances past exactly those, in the same pass under
// the registry's lock, so each is delivered once. An unregistered session is registered (its
// cursor at the end of the log) and is offered nothing. When there is nothing new and the
// activity is recent it takes no lock and writes nothing: the common case costs a read of
// session.json, the decoding of this session's line alone (lookup), and a stat of the log. When
// it writes, it rewrites this session's line alone (updateOne).
func (r *Registry) OnPrompt(sid string, now time.Time, show func(msgs []Message, more bool) int) error {
	if err := checkID(sid); err != nil {
		return err
	}
	now = stamp(now)
	if s, ok := r.lookup(sid); ok && s.Status == StatusActive && now.Sub(s.LastActivity) < touchEvery && s.Cursor == r.logSize() {
		return nil // the fast path: nothing new, nothing to record
	}
	deliver := func(s *Session) (bool, error) {
		changed := touchOne(s, now)
		sc, err := r.readFrom(sid, s.Cursor, scanWindow)
		if err != nil {
			return changed, err
		}
		next := sc.end
		if len(sc.msgs) > 0 {
			switch n := show(sc.msgs, sc.more); {
			case n <= 0:
				next = sc.start
			case n < len(sc.msgs):
				next = sc.skipEnd[n-1]
			}
		}
		if next != s.Cursor {
			s.Cursor = next
			changed = true
		}
		return changed, nil
	}
	return r.updateOne(sid, deliver, func(d *document) (bool, error) {
		if s := find(d, sid); s != nil {
			return deliver(s)
		}
		return r.touch(d, sid, now)
	})
}

// Inbox returns every unseen broadcast of other sessions for session sid and marks them seen,
// in one pass under the registry's lock; it reads the log from the cursor in windows until the
// end. It also counts as activity. An unregistered session is registered and has nothing.
func (r *Registry) Inbox(sid string, now time.Time) ([]Message, error) {
	if err := checkID(sid); err != nil {
		return nil, err
	}
	now = stamp(now)
	var msgs []Message
	err := r.update(func(d *document) (bool, error) {
		changed, err := r.touch(d, sid, now)
		if err != nil {
			return false, err
		}
		s := find(d, sid)
		cursor := s.Cursor
		for {
			sc, err := r.readFrom(sid, cursor, scanWindow)
			if err != nil {
				return changed, err
			}
			msgs = append(msgs, sc.msgs...)
			advanced := sc.end != cursor
			cursor = sc.end
			if !sc.more || !advanced || len(msgs) > maxInbox || cursor-s.Cursor > maxInboxScan {
				break
			}
		}
		if cursor != s.Cursor {
			s.Cursor, changed = cursor, true
		}
		return changed, nil
	})
	return msgs, err
}

// maxInbox and maxInboxScan bound one inbox read, in messages and in bytes of the log passed;
// the rest stays unseen for the next.
const (
	maxInbox     = 10000
	maxInboxScan = 64 << 20
)

// Recent returns the last n broadcasts in the log's final window, oldest first, for a reader
// outside any session (which has no cursor). It changes nothing.
func (r *Registry) Recent(n int) ([]Message, error) {
	fi, err := safefile.Stat(r.root, r.eventsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	from := max(fi.Size()-scanWindow, 0)
	s, err := r.readFrom("", from, scanWindow)
	if err != nil {
		return nil, err
	}
	if len(s.msgs) > n {
		s.msgs = s.msgs[len(s.msgs)-n:]
	}
	return s.msgs, nil
}
