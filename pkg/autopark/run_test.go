package autopark

import (
	"errors"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/parking"
)

// fakeStore records what Run asked of it.
type fakeStore struct {
	fresh      int
	parkErr    error
	added      bool
	counts     int
	parked     []parking.Bullet
	legacyOpen int  // items Park's own guard counts beyond the fresh bullets
	foreign    bool // no open item was parked on this machine
}

func (f *fakeStore) FreshBullets() int { f.counts++; return f.fresh }

func (f *fakeStore) AnyParkedHere() bool { return !f.foreign }

func (f *fakeStore) ParkAutomatically(b parking.Bullet) (parking.Item, bool, error) {
	f.parked = append(f.parked, b)
	if f.fresh+f.legacyOpen >= parking.MaxOpen {
		return parking.Item{}, false, &parking.FullError{Items: make([]parking.Item, f.fresh+f.legacyOpen)}
	}
	return parking.Item{Slug: "x"}, f.added, f.parkErr
}

const askedLast = "I can add the cache now. Should the cache be per-user or global?"

// Run is the whole decision: what it reads, what it asks the store, what it reports.
func TestRun(t *testing.T) {
	for _, c := range []struct {
		name, prompt string
		store        fakeStore
		reply        string
		// want
		storeOpened, replyRead bool
		counts, parks          int
		refused                int
		parked, warned         bool
	}{
		{name: "an answer reads nothing", prompt: "yes, per-user", reply: askedLast},
		{name: "a slash command reads nothing", prompt: "/compact", reply: askedLast},
		{name: "a deferral with the lot full is refused before the transcript", prompt: "let's park the logging idea for later",
			store: fakeStore{fresh: 10}, storeOpened: true, counts: 1, refused: 10},
		{name: "a deferral parks", prompt: "let's come back to the logging idea later", store: fakeStore{fresh: 3, added: true},
			reply: askedLast, storeOpened: true, replyRead: true, counts: 1, parks: 1, parked: true},
		{name: "a new request after a question parks", prompt: "Add a --verbose flag to the CLI", store: fakeStore{fresh: 0, added: true},
			reply: askedLast, storeOpened: true, replyRead: true, counts: 1, parks: 1, parked: true},
		{name: "a new request after a question, lot full: refused before the write", prompt: "Add a --verbose flag to the CLI",
			store: fakeStore{fresh: 10}, reply: askedLast, storeOpened: true, replyRead: true, counts: 1, refused: 10},
		{name: "a new request without a question parks nothing", prompt: "Add a --verbose flag to the CLI", store: fakeStore{added: true},
			reply: "Done: the tests pass.", storeOpened: true, replyRead: true},
		{name: "the store's own guard counts legacy files", prompt: "Add a --verbose flag to the CLI", store: fakeStore{fresh: 8, legacyOpen: 2},
			reply: askedLast, storeOpened: true, replyRead: true, counts: 1, parks: 1, refused: 10},
		{name: "a prompt submitted again parks nothing new", prompt: "Add a --verbose flag to the CLI", store: fakeStore{added: false},
			reply: askedLast, storeOpened: true, replyRead: true, counts: 1, parks: 1},
		{name: "a pointer left in the memory index is a warning", prompt: "Add a --verbose flag to the CLI",
			store: fakeStore{added: true, parkErr: &parking.IndexError{Errs: []error{errors.New("MEMORY.md: busy")}}},
			reply: askedLast, storeOpened: true, replyRead: true, counts: 1, parks: 1, parked: true, warned: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.store
			opened, read := false, false
			out, err := Run(c.prompt, func() Store { opened = true; return &s }, func() string { read = true; return c.reply })
			if err != nil {
				t.Fatal(err)
			}
			if opened != c.storeOpened || read != c.replyRead || s.counts != c.counts || len(s.parked) != c.parks {
				t.Errorf("store opened %v, reply read %v, %d counts, %d parks; want %v, %v, %d, %d",
					opened, read, s.counts, len(s.parked), c.storeOpened, c.replyRead, c.counts, c.parks)
			}
			if out.Refused != c.refused || (out.Parked != nil) != c.parked || (out.Warning != nil) != c.warned {
				t.Errorf("outcome %+v", out)
			}
		})
	}
	// Any other error of the store is the caller's.
	s := fakeStore{parkErr: errors.New("disk full")}
	if _, err := Run("Add a --verbose flag to the CLI", func() Store { return &s }, func() string { return askedLast }); err == nil {
		t.Error("a failed park returned no error")
	}
}
