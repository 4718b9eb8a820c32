package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

var t0 = time.Date(2026, 4, 18, 12, 0, 0, 0, time.UTC)

func newReg(t *testing.T) *Registry {
	t.Helper()
	root := t.TempDir()
	return open(safefile.Disk{Roots: []string{root}}, root)
}

func mustSession(t *testing.T, r *Registry, sid string) Session {
	t.Helper()
	s, ok := r.lookup(sid)
	if !ok {
		t.Fatalf("session %s not registered", sid)
	}
	return s
}

func TestRegisterTouchEnd(t *testing.T) {
	r := newReg(t)
	if err := r.Register("a", "main", t0); err != nil {
		t.Fatal(err)
	}
	a := mustSession(t, r, "a")
	if !a.Started.Equal(t0) || !a.LastActivity.Equal(t0) || a.Status != StatusActive || a.Branch != "main" || a.Cursor != r.logSize() {
		t.Fatalf("%+v (log %d)", a, r.logSize())
	}
	if err := r.touchNow("a", t0.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if a := mustSession(t, r, "a"); !a.LastActivity.Equal(t0) {
		t.Fatalf("touch within a minute rewrote last_activity: %v", a.LastActivity)
	}
	r.touchNow("a", t0.Add(5*time.Minute))
	if a := mustSession(t, r, "a"); !a.LastActivity.Equal(t0.Add(5 * time.Minute)) {
		t.Fatal(a.LastActivity)
	}
	// A resume keeps the start time and the cursor.
	r.Broadcast("b", "hello", t0)
	cursor := mustSession(t, r, "a").Cursor
	r.Register("a", "feat", t0.Add(10*time.Minute))
	if a := mustSession(t, r, "a"); !a.Started.Equal(t0) || a.Branch != "feat" || a.Cursor != cursor {
		t.Fatalf("%+v", a)
	}
	if started, ok := r.Started("a"); !ok || !started.Equal(t0) {
		t.Fatal(started, ok)
	}
	if err := r.End("a", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	a = mustSession(t, r, "a")
	if a.Status != StatusEnded || a.EndedBy != endedBySessionEnd || !a.Ended.Equal(t0.Add(time.Hour)) {
		t.Fatalf("%+v", a)
	}
	if err := r.End("unknown", t0); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "a\nb", strings.Repeat("x", 129)} {
		if err := r.Register(bad, "", t0); err == nil {
			t.Errorf("registered %q", bad)
		}
	}
}

func TestOrphans(t *testing.T) {
	r := newReg(t)
	r.Register("old", "main", t0)
	r.Register("busy", "main", t0)
	r.touchNow("busy", t0.Add(90*time.Minute))
	r.Register("new", "main", t0.Add(orphanAfter-time.Second))
	if s := mustSession(t, r, "old"); s.Status != StatusActive {
		t.Fatalf("orphaned before the idle period: %+v", s)
	}
	r.Register("newer", "main", t0.Add(orphanAfter))
	if s := mustSession(t, r, "old"); s.Status != StatusEnded || s.EndedBy != endedAsOrphan || !s.Ended.Equal(t0.Add(orphanAfter)) {
		t.Fatalf("%+v", s)
	}
	for _, id := range []string{"busy", "new", "newer"} {
		if s := mustSession(t, r, id); s.Status != StatusActive {
			t.Fatalf("%s: %+v", id, s)
		}
	}
	// The mark is reversible: the orphan's next prompt makes it active again.
	if _, err := prompt(r, "old", t0.Add(3*time.Hour), 1000); err != nil {
		t.Fatal(err)
	}
	if s := mustSession(t, r, "old"); s.Status != StatusActive || !s.Ended.IsZero() {
		t.Fatalf("%+v", s)
	}
	log, _ := os.ReadFile(r.eventsPath())
	if n := bytes.Count(log, []byte(`"type":"session_orphaned"`)); n != 1 {
		t.Fatalf("%d orphan events:\n%s", n, log)
	}

	// A session whose SessionStart was missed registers at its first prompt, and sweeps too;
	// a known session's prompt does not.
	later := t0.Add(3*time.Hour + orphanAfter)
	prompt(r, "busy", later, 1000)
	if s := mustSession(t, r, "new"); s.Status != StatusActive {
		t.Fatalf("a known session's prompt swept: %+v", s)
	}
	prompt(r, "unseen-start", later, 1000)
	for _, id := range []string{"old", "new", "newer"} {
		if s := mustSession(t, r, id); s.Status != StatusEnded || s.EndedBy != endedAsOrphan {
			t.Fatalf("%s: %+v", id, s)
		}
	}
}

// prompt runs OnPrompt with a stand-in for the hook's layout: it shows messages while their
// texts fit in budget bytes, and returns the texts shown (brief.Deliveries is the real layout,
// tested with the registry in package brief).
func prompt(r *Registry, sid string, now time.Time, budget int) ([]string, error) {
	var shown []string
	err := r.OnPrompt(sid, now, func(msgs []Message, more bool) int {
		used := 0
		for _, m := range msgs {
			if used+len(m.Msg) > budget {
				break
			}
			used += len(m.Msg)
			shown = append(shown, m.Msg)
		}
		return len(shown)
	})
	return shown, err
}

func TestCurrent(t *testing.T) {
	r := newReg(t)
	if _, ok := r.Current(""); ok {
		t.Fatal("current session in an empty registry")
	}
	r.Register("a", "", t0)
	r.Register("b", "", t0.Add(time.Minute))
	r.touchNow("a", t0.Add(5*time.Minute))
	if id, ok := r.Current(""); !ok || id != "a" {
		t.Fatal(id, ok)
	}
	r.End("a", t0.Add(6*time.Minute))
	if id, ok := r.Current(""); !ok || id != "b" {
		t.Fatal(id, ok)
	}
	if id, ok := r.Current("from-env"); !ok || id != "from-env" {
		t.Fatal(id, ok)
	}
}

func TestBroadcastOnceNeverToSender(t *testing.T) {
	r := newReg(t)
	for _, s := range []string{"a", "b", "c"} {
		r.Register(s, "main", t0)
	}
	if err := r.Broadcast("a", "  Ready for review\n", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(6 * time.Minute)
	got, err := prompt(r, "b", now, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "Ready for review" {
		t.Fatalf("got %q", got)
	}
	if got, _ := prompt(r, "b", now, 2000); len(got) != 0 {
		t.Fatalf("delivered twice: %q", got)
	}
	if got, _ := prompt(r, "a", now, 2000); len(got) != 0 {
		t.Fatalf("delivered to the sender: %q", got)
	}
	msgs, err := r.Inbox("c", now)
	if err != nil || len(msgs) != 1 || msgs[0].Msg != "Ready for review" || msgs[0].From != "a" {
		t.Fatalf("%+v %v", msgs, err)
	}
	if msgs, _ := r.Inbox("c", now); len(msgs) != 0 {
		t.Fatalf("inbox twice: %+v", msgs)
	}
	if got, _ := prompt(r, "c", now, 2000); len(got) != 0 {
		t.Fatalf("delivered after the inbox showed it: %q", got)
	}
	for _, bad := range []string{"", " \n\t", strings.Repeat("x", maxMessage+1)} {
		if err := r.Broadcast("a", bad, now); err == nil {
			t.Errorf("broadcast %q", bad)
		}
	}
	if err := r.Broadcast("", strings.Repeat("é", maxMessage), now); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := r.Inbox("a", now); len(msgs) != 1 || msgs[0].From != anonymous {
		t.Fatalf("%+v", msgs)
	}
}

func TestNewSessionGetsNoHistory(t *testing.T) {
	r := newReg(t)
	r.Register("a", "", t0)
	r.Broadcast("a", "before b", t0)
	r.Register("b", "", t0.Add(time.Minute))
	if got, _ := prompt(r, "b", t0.Add(2*time.Minute), 2000); len(got) != 0 {
		t.Fatalf("history delivered: %q", got)
	}
	// An unknown session touched by a prompt is registered the same way.
	if got, _ := prompt(r, "late", t0.Add(2*time.Minute), 2000); len(got) != 0 {
		t.Fatalf("history delivered: %q", got)
	}
	r.Broadcast("a", "after", t0.Add(3*time.Minute))
	for _, s := range []string{"b", "late"} {
		if got, _ := prompt(r, s, t0.Add(4*time.Minute), 2000); len(got) != 1 || got[0] != "after" {
			t.Fatalf("%s: %q", s, got)
		}
	}
}

// A delivery that shows only some messages advances the cursor past exactly those: the rest
// come with the next prompt or the inbox, each once; one that shows none keeps all.
func TestPartialDelivery(t *testing.T) {
	r := newReg(t)
	r.Register("a", "", t0)
	r.Register("b", "", t0)
	const n = 10
	for i := range n {
		r.Broadcast("a", fmt.Sprintf("message %02d", i), t0)
		r.Broadcast("b", "own message, never delivered to b", t0)
	}
	now := t0.Add(time.Minute)
	got := map[string]int{}
	first, err := prompt(r, "b", now, 30) // three of them
	if err != nil || len(first) != 3 {
		t.Fatal(first, err)
	}
	second, _ := prompt(r, "b", now, 30)
	msgs, _ := r.Inbox("b", now)
	for _, m := range append(append(first, second...), texts(msgs)...) {
		got[m]++
	}
	for i := range n {
		if k := fmt.Sprintf("message %02d", i); got[k] != 1 {
			t.Errorf("%s delivered %d times", k, got[k])
		}
	}
	if left, _ := prompt(r, "b", now, 30); len(left) != 0 {
		t.Fatalf("left over: %q", left)
	}
	// Showing none keeps everything.
	r.Broadcast("a", "kept", now)
	if shown, _ := prompt(r, "b", now.Add(time.Hour), 1); len(shown) != 0 {
		t.Fatalf("%q", shown)
	}
	if msgs, _ := r.Inbox("b", now); len(msgs) != 1 || msgs[0].Msg != "kept" {
		t.Fatalf("%+v", msgs)
	}
}

func texts(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Msg)
	}
	return out
}

// countingWriter counts the locked operations, to show the fast path takes none.
type countingWriter struct {
	safefile.Writer
	updates int
}

func (c *countingWriter) Update(path string, perm fs.FileMode, fn safefile.Edit, opts ...safefile.Option) (bool, error) {
	c.updates++
	return c.Writer.Update(path, perm, fn, opts...)
}

func TestOnPromptFastPath(t *testing.T) {
	root := t.TempDir()
	cw := &countingWriter{Writer: safefile.Disk{Roots: []string{root}}}
	r := open(cw, root)
	r.Register("a", "", t0)
	cw.updates = 0
	for i := range 5 {
		if got, err := prompt(r, "a", t0.Add(time.Duration(i)*10*time.Second), 1000); len(got) != 0 || err != nil {
			t.Fatal(got, err)
		}
	}
	if cw.updates != 0 {
		t.Fatalf("%d locked updates with nothing new", cw.updates)
	}
	r.Broadcast("b", "x", t0)
	prompt(r, "a", t0.Add(50*time.Second), 1000)
	if cw.updates != 1 {
		t.Fatalf("%d updates", cw.updates)
	}
	// Its own broadcast moves the cursor once, silently.
	r.Broadcast("a", "mine", t0)
	if got, _ := prompt(r, "a", t0.Add(55*time.Second), 1000); len(got) != 0 {
		t.Fatal(got)
	}
	if s := mustSession(t, r, "a"); s.Cursor != r.logSize() {
		t.Fatal("cursor not past own message")
	}
}

// A prompt reads its own session's line of session.json and rewrites only that line: another
// session's line, here with a field this package does not know, is neither decoded nor rewritten
// (a whole-document rewrite would drop the field), and a damaged line of another session costs
// the prompt nothing either.
func TestPromptTouchesOnlyItsOwnLine(t *testing.T) {
	r := newReg(t)
	for _, sid := range []string{"a", "b", "c"} {
		if err := r.Register(sid, "main", t0); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(r.path())
	keep := `{"id":"a","started":"2026-04-18T12:00:00Z","last_activity":"2026-04-18T12:00:00Z","status":"active","cursor":0,"note":"kept"}`
	lines := strings.Split(string(data), "\n")
	if !strings.HasPrefix(lines[1], `{"id":"a",`) {
		t.Fatalf("layout:\n%s", data)
	}
	lines[1] = keep + ","
	os.WriteFile(r.path(), []byte(strings.Join(lines, "\n")), 0o600)

	// A minute later the prompt records c's activity (and delivers nothing): one line changes.
	if got, err := prompt(r, "c", t0.Add(2*time.Minute), 1000); err != nil || len(got) != 0 {
		t.Fatal(got, err)
	}
	after, _ := os.ReadFile(r.path())
	if !strings.Contains(string(after), keep+",\n") {
		t.Fatalf("a's line was rewritten:\n%s", after)
	}
	if c := mustSession(t, r, "c"); !c.LastActivity.Equal(t0.Add(2 * time.Minute)) {
		t.Fatalf("c: %+v", c)
	}

	// b's line damaged: c's prompt still finds c without a write (the fast path), and c's next
	// touch leaves b's line as it is.
	damaged := strings.Replace(string(after), `{"id":"b",`, `{"id":"b",,`, 1)
	os.WriteFile(r.path(), []byte(damaged), 0o600)
	root := filepath.Dir(filepath.Dir(filepath.Dir(r.path())))
	cw := &countingWriter{Writer: safefile.Disk{Roots: []string{root}}}
	rc := open(cw, root)
	if _, err := prompt(rc, "c", t0.Add(150*time.Second), 1000); err != nil || cw.updates != 0 {
		t.Fatalf("%v, %d updates", err, cw.updates)
	}
	if _, err := prompt(rc, "c", t0.Add(5*time.Minute), 1000); err != nil || cw.updates != 1 {
		t.Fatalf("%v, %d updates", err, cw.updates)
	}
	if now, _ := os.ReadFile(r.path()); !strings.Contains(string(now), `{"id":"b",,`) {
		t.Fatalf("b's damaged line was rewritten:\n%s", now)
	}
	// A change to the whole registry (a session registering) heals it.
	if err := r.Register("d", "", t0.Add(6*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.path() + ".bad"); err != nil {
		t.Fatalf("the damaged registry was not kept: %v", err)
	}
	mustSession(t, r, "d")
}

// A registry written by an earlier cairn (json.MarshalIndent's layout) is read whole, and the
// next change writes it back one session per line, every session kept.
func TestEarlierLayoutMigrates(t *testing.T) {
	r := newReg(t)
	old := document{Sessions: []Session{
		{ID: "a", Started: t0, LastActivity: t0, Branch: "main", Status: StatusActive, Cursor: 0},
		{ID: "b", Started: t0, LastActivity: t0, Status: StatusEnded, Ended: t0, EndedBy: endedBySessionEnd, Cursor: 0},
	}}
	data, _ := json.MarshalIndent(old, "", "  ")
	os.MkdirAll(filepath.Dir(r.path()), 0o755)
	os.WriteFile(r.path(), append(data, '\n'), 0o600)
	if s := mustSession(t, r, "a"); s.Branch != "main" {
		t.Fatalf("%+v", s)
	}
	if _, err := prompt(r, "a", t0.Add(2*time.Minute), 1000); err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(r.path())
	if !bytes.HasPrefix(now, []byte(docHead+"\n")) {
		t.Fatalf("not migrated:\n%s", now)
	}
	ss, err := r.Sessions()
	if err != nil || len(ss) != 2 || ss[1].EndedBy != endedBySessionEnd || !ss[0].LastActivity.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("%+v %v", ss, err)
	}
}

func TestCursorResilience(t *testing.T) {
	r := newReg(t)
	r.Register("a", "", t0)
	r.Register("b", "", t0)
	// Garbage, blank and foreign lines are passed over.
	f, _ := os.OpenFile(r.eventsPath(), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString("not json\n\n{\"type\":5}\n{\"type\":\"broadcast\",\"from\":\"a\"}\n[1]\n")
	f.Close()
	r.Broadcast("a", "one", t0)
	// A line still being written (no newline yet) is not consumed.
	f, _ = os.OpenFile(r.eventsPath(), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(`{"ts":"2026-04-18T12:00:00Z","from":"a","type":"broadcast","msg":"tw`)
	f.Close()
	msgs, err := r.Inbox("b", t0)
	if err != nil || len(msgs) != 1 || msgs[0].Msg != "one" {
		t.Fatalf("%+v %v", msgs, err)
	}
	f, _ = os.OpenFile(r.eventsPath(), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString("o\"}\n")
	f.Close()
	if msgs, _ := r.Inbox("b", t0); len(msgs) != 1 || msgs[0].Msg != "two" {
		t.Fatalf("%+v", msgs)
	}

	// The log removed and restarted: a cursor past its end starts again at 0.
	os.Remove(r.eventsPath())
	r.Broadcast("a", "fresh", t0)
	if msgs, _ := r.Inbox("b", t0); len(msgs) != 1 || msgs[0].Msg != "fresh" {
		t.Fatalf("%+v", msgs)
	}
	// A cursor in the middle of a line (a hand-edited registry) skips to the next line.
	r.Broadcast("a", "next", t0)
	size := r.logSize()
	r.Broadcast("a", "after the cut", t0)
	r.advance("b", size+5)
	if msgs, _ := r.Inbox("b", t0); len(msgs) != 0 {
		t.Fatalf("%+v", msgs)
	}
	r.Broadcast("a", "last", t0)
	if msgs, _ := r.Inbox("b", t0); len(msgs) != 1 || msgs[0].Msg != "last" {
		t.Fatalf("%+v", msgs)
	}
	// Advance never moves back.
	s := mustSession(t, r, "b")
	r.advance("b", 0)
	if mustSession(t, r, "b").Cursor != s.Cursor {
		t.Fatal("cursor moved back")
	}
}

func TestGiantLineSkipped(t *testing.T) {
	r := newReg(t)
	r.Register("a", "", t0)
	r.Register("b", "", t0)
	f, _ := os.OpenFile(r.eventsPath(), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(`{"type":"broadcast","from":"x","msg":"` + strings.Repeat("g", 3*scanWindow) + "\"}\n")
	f.Close()
	r.Broadcast("a", "after the giant", t0)
	got, err := prompt(r, "b", t0.Add(time.Hour), 2000)
	if err != nil || len(got) != 1 || got[0] != "after the giant" {
		t.Fatalf("%q %v", got, err)
	}
}

func TestCorruptRegistryKept(t *testing.T) {
	r := newReg(t)
	os.MkdirAll(filepath.Dir(r.path()), 0o755)
	os.WriteFile(r.path(), []byte("{not json"), 0o600)
	if err := r.Register("a", "", t0); err != nil {
		t.Fatal(err)
	}
	if bad, _ := os.ReadFile(r.path() + ".bad"); string(bad) != "{not json" {
		t.Fatalf("%q", bad)
	}
	mustSession(t, r, "a")
}

func TestPrune(t *testing.T) {
	r := newReg(t)
	r.Register("ancient", "", t0)
	r.End("ancient", t0)
	for i := range maxSessions + 5 {
		r.Register(fmt.Sprint("s", i), "", t0.Add(keepEnded+time.Duration(i)*time.Second))
	}
	ss, _ := r.Sessions()
	if len(ss) != maxSessions {
		t.Fatalf("%d sessions", len(ss))
	}
	if _, ok := r.lookup("ancient"); ok {
		t.Fatal("ended session kept past keepEnded")
	}
	if _, ok := r.lookup(fmt.Sprint("s", maxSessions+4)); !ok {
		t.Fatal("newest session pruned")
	}
}

func TestDisplay(t *testing.T) {
	s := Session{Status: StatusActive, LastActivity: t0}
	for d, want := range map[time.Duration]string{0: "active", activeWithin - time.Second: "active", activeWithin: "idle", 5 * time.Hour: "idle"} {
		if got := s.Display(t0.Add(d)); got != want {
			t.Errorf("%v: %s", d, got)
		}
	}
	if (Session{Status: StatusEnded}).Display(t0) != "ended" {
		t.Error("ended")
	}
}

func TestEventLineFormat(t *testing.T) {
	b := Event{Time: t0, From: "a", Type: TypeBroadcast, Msg: "hi \"there\""}.appendJSON(nil)
	if want := `{"ts":"2026-04-18T12:00:00Z","from":"a","type":"broadcast","msg":"hi \"there\""}`; string(b) != want {
		t.Fatal(string(b))
	}
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"ts":"2026-04-18T12:00:00Z","from":"a","type":"broadcast","msg":"hi"}`))
	f.Add([]byte(`{"type":"broadcast","msg":"\ud800"}`))
	f.Add([]byte(`{"type":`))
	f.Add([]byte("\xff{}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, ok := ParseEvent(line)
		if !ok {
			return
		}
		if e.Type == "" {
			t.Fatal("event without a type")
		}
		b := e.appendJSON(nil)
		e2, ok := ParseEvent(b)
		if !ok || e2.From != e.From || e2.Type != e.Type || e2.Msg != e.Msg || !e2.Time.Equal(e.Time.UTC().Truncate(time.Second)) {
			t.Fatalf("%+v → %s → %+v", e, b, e2)
		}
	})
}

// FuzzReadFrom: whatever the log holds and wherever the cursor points, reading stops at a line
// boundary inside the log, only returns broadcasts of others, and reading again from where it
// stopped finds nothing it already returned.
func FuzzReadFrom(f *testing.F) {
	f.Add([]byte("{\"type\":\"broadcast\",\"from\":\"a\",\"msg\":\"x\"}\ngarbage\n{\"type\":\"broadcast\",\"from\":\"b\",\"msg\":\"y\"}\npartial"), int64(3))
	f.Add([]byte("\n\n\n"), int64(100))
	f.Fuzz(func(t *testing.T, log []byte, cursor int64) {
		r := open(nil, t.TempDir())
		t.Cleanup(safefile.Release) // a new project per input (see FuzzReadAudit)
		os.MkdirAll(filepath.Dir(r.eventsPath()), 0o755)
		os.WriteFile(r.eventsPath(), log, 0o600)
		s, err := r.readFrom("b", cursor, 64)
		if err != nil {
			t.Fatal(err)
		}
		size := int64(len(log))
		from := cursor
		if from < 0 || from > size {
			from = 0
		}
		if s.end < from || s.end > size || (s.end > from && log[s.end-1] != '\n') || s.start > s.end || s.start < from {
			t.Fatalf("from %d: end %d start %d size %d", from, s.end, s.start, size)
		}
		for i, m := range s.msgs {
			if m.From == "b" || m.Type != TypeBroadcast || m.End > s.end || log[m.End-1] != '\n' || s.skipEnd[i] < m.End {
				t.Fatalf("%+v", m)
			}
		}
		if s.end > 0 && s.end < size {
			next, err := r.readFrom("b", s.end, 64)
			if err != nil || next.end < s.end {
				t.Fatalf("went back: %d → %d %v", s.end, next.end, err)
			}
		}
	})
}

// durabilityWriter records which kind of write each file got.
type durabilityWriter struct {
	safefile.Writer
	calls []string
}

func synced(opts []safefile.Option) string {
	if slices.Contains(opts, safefile.NoSync) {
		return " (no sync)"
	}
	return ""
}

func (w *durabilityWriter) Update(path string, perm fs.FileMode, fn safefile.Edit, opts ...safefile.Option) (bool, error) {
	w.calls = append(w.calls, "Update "+filepath.Base(path)+synced(opts))
	return w.Writer.Update(path, perm, fn, opts...)
}

func (w *durabilityWriter) Append(path string, data []byte, perm fs.FileMode, opts ...safefile.Option) error {
	w.calls = append(w.calls, "Append "+filepath.Base(path)+synced(opts))
	return w.Writer.Append(path, data, perm, opts...)
}

// A broadcast is a person's words and is synced; the session lifecycle (session.json and the
// start/end lines) is written without an fsync, since it heals itself after a machine crash.
func TestWhatIsSynced(t *testing.T) {
	root := t.TempDir()
	w := &durabilityWriter{Writer: safefile.Disk{Roots: []string{root}}}
	r := open(w, root)
	step := func(name string, f func() error, want ...string) {
		t.Helper()
		w.calls = nil
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Join(w.calls, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s: %q, want %q", name, w.calls, want)
		}
	}
	step("register", func() error { return r.Register("a", "main", t0) }, "Update session.json (no sync)", "Append session.events.jsonl (no sync)")
	step("broadcast", func() error { return r.Broadcast("a", "hello", t0) }, "Append session.events.jsonl")
	step("end", func() error { return r.End("a", t0) }, "Update session.json (no sync)", "Append session.events.jsonl (no sync)")
}

// What a power cut can leave of session.json now that it is not synced — nothing, an empty file,
// or a file of NULs — heals: the next prompt of a session registers it again.
func TestRegistryHealsAfterPowerCut(t *testing.T) {
	for name, left := range map[string][]byte{"empty": {}, "zeros": make([]byte, 512)} {
		r := newReg(t)
		os.MkdirAll(filepath.Dir(r.path()), 0o755)
		os.WriteFile(r.path(), left, 0o600)
		if _, err := prompt(r, "a", t0, 1000); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		mustSession(t, r, "a")
	}
}

// A line with no end for gigabytes — a repository can commit such a log — costs each read at
// most maxSkip: the cursor moves into the line, the next prompt goes on from there, and what
// follows the line is delivered once it has been passed. Before, every prompt read the log to
// its end looking for a newline (a 3 GB log: 6 s per prompt).
func TestHugeLineReadInBoundedSteps(t *testing.T) {
	r := newReg(t)
	r.Register("a", "", t0)
	r.Register("b", "", t0)
	f, err := os.OpenFile(r.eventsPath(), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Repeat("g", 10<<20) + "\n")
	f.Close()
	r.Broadcast("a", "after the huge line", t0)
	now := t0.Add(time.Hour)
	var got []string
	prompts := 0
	for prev := mustSession(t, r, "b").Cursor; len(got) == 0; prompts++ {
		if prompts > 10<<20/maxSkip+2 {
			t.Fatalf("not delivered after %d prompts", prompts)
		}
		if got, err = prompt(r, "b", now, 2000); err != nil {
			t.Fatal(err)
		}
		cur := mustSession(t, r, "b").Cursor
		if len(got) == 0 && (cur <= prev || cur-prev > maxSkip+scanWindow) {
			t.Fatalf("prompt %d moved the cursor from %d to %d: want forward, at most %d", prompts, prev, cur, maxSkip+scanWindow)
		}
		prev = cur
	}
	if len(got) != 1 || got[0] != "after the huge line" || prompts < 2 {
		t.Fatalf("after %d prompts: %q", prompts, got)
	}
	if again, _ := prompt(r, "b", now, 2000); len(again) != 0 {
		t.Fatalf("delivered twice: %q", again)
	}

	// A cursor inside 200 MB of NULs without a newline, as a committed sparse file leaves it:
	// each read moves on by at most maxSkip and never past the end; the inbox stops after
	// maxInboxScan.
	r.advance("b", r.logSize()+3)
	if err := os.Truncate(r.eventsPath(), r.logSize()+200<<20); err != nil {
		t.Fatal(err)
	}
	size := r.logSize()
	before := mustSession(t, r, "b").Cursor
	if _, err := prompt(r, "b", now.Add(time.Hour), 2000); err != nil {
		t.Fatal(err)
	}
	if cur := mustSession(t, r, "b").Cursor; cur <= before || cur-before > maxSkip {
		t.Fatalf("a prompt moved the cursor from %d to %d in a line without an end: want at most %d", before, cur, maxSkip)
	}
	before = mustSession(t, r, "b").Cursor
	if _, err := r.Inbox("b", now.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if cur := mustSession(t, r, "b").Cursor; cur <= before || cur-before > maxInboxScan+maxSkip || cur > size {
		t.Fatalf("the inbox moved the cursor from %d to %d (log %d bytes): want at most %d", before, cur, size, maxInboxScan+maxSkip)
	}
}

// The registry is a handle: session.json is read once per process, and a write through the
// handle leaves it holding what was written, so SessionStart's Register and the late compaction
// record's Started read the file once between them. The file is swapped underneath the handle
// to prove that nothing is read again.
func TestHandleReadsOnce(t *testing.T) {
	root := t.TempDir()
	files := safefile.Disk{Roots: []string{root}}
	if err := open(files, root).Register("a", "main", t0); err != nil {
		t.Fatal(err)
	}
	r := open(files, root)
	if ss, err := r.Sessions(); err != nil || len(ss) != 1 {
		t.Fatalf("first read: %+v %v", ss, err)
	}
	other := open(files, root) // another process registers b
	if err := other.Register("b", "main", t0); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Started("b"); ok {
		t.Error("the handle read session.json again")
	}
	// A write through the handle starts from the file under the lock (b is kept) and leaves the
	// handle holding the result, which it answers from even when the file is gone.
	if err := r.Register("c", "", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, File))
	for _, sid := range []string{"a", "b", "c"} {
		if _, ok := r.Started(sid); !ok {
			t.Errorf("after its own write the handle does not know %s", sid)
		}
	}
	// A write that changes nothing leaves the handle holding what it saw under the lock.
	if err := open(files, root).Register("d", "", t0); err != nil {
		t.Fatal(err)
	}
	if err := r.End("unknown", t0); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Started("d"); !ok {
		t.Error("an unchanged write did not refresh the handle")
	}
}
