package transcript

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// File is the handle on one transcript for one process: opened once, on first use, through one
// descriptor whose size is taken then — every answer is about the transcript as it was at that
// moment, whatever Claude Code appends meanwhile. The compaction questions (CompactionsAfter,
// EndsWithCompaction, AnsweredSinceCompaction, LastBoundary) share one reading back from the end
// (bounds): each reads on from where the one before it stopped, so SessionStart's questions of a
// compaction cost one pass between them. A File is used by one goroutine at a time; Close
// releases the descriptor.
type File struct {
	path   string
	opened bool
	f      *os.File // nil when the transcript does not exist or could not be opened
	size   int64
	err    error // why it could not be opened; nil for a missing file
	bounds *bounds
}

// Open returns the handle on the transcript at path. Nothing is opened until asked.
func Open(path string) *File { return &File{path: path, size: -1} }

// Named is Open for the transcript_path of a hook's payload: nil when the payload names none,
// which the flows tell apart from a named transcript that does not exist (yet).
func Named(path string) *File {
	if path == "" {
		return nil
	}
	return Open(path)
}

// open opens the transcript, once.
func (t *File) open() {
	if t.opened {
		return
	}
	t.opened = true
	// The open file's stat is what counts: it is what we read, even if path is replaced.
	f, fi, err := safefile.OpenLoose(t.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		t.err = fmt.Errorf("transcript: %w", err)
	default:
		t.f, t.size = f, fi.Size()
	}
}

// Size is the transcript's length when it was opened; -1 when there is none, or it cannot be
// opened (a path that is not a regular file).
func (t *File) Size() int64 {
	t.open()
	return t.size
}

// Close releases the descriptor. The handle can be asked again: it opens the file anew.
func (t *File) Close() error {
	var err error
	if t.f != nil {
		err = t.f.Close()
	}
	*t = File{path: t.path, size: -1}
	return err
}

// with runs fn on the open transcript. A missing file is not an error: fn is not called and with
// returns false. When fn reports errShrunk (the file was truncated while read), the file is
// opened again and fn runs once more on the new content; a second failure is returned.
func (t *File) with(fn func(r io.ReaderAt, size int64) error) (bool, error) {
	for attempt := 0; ; attempt++ {
		t.open()
		if t.err != nil {
			return false, t.err
		}
		if t.f == nil {
			return false, nil
		}
		err := fn(t.f, t.size)
		if errors.Is(err, errShrunk) && attempt == 0 {
			t.Close()
			continue
		}
		if err != nil {
			return true, fmt.Errorf("transcript: %s: %w", t.path, err)
		}
		return true, nil
	}
}

// withFile runs fn on the transcript at path, opened for this one question.
func withFile(path string, fn func(r io.ReaderAt, size int64) error) (bool, error) {
	t := Open(path)
	defer t.Close()
	return t.with(fn)
}

// bounds is what one reading back from the end has found of a transcript's compactions, kept so
// that the next question reads on from where the last one stopped instead of from the end.
type bounds struct {
	s *backScanner
	p parser
	// what the lines passed so far showed, most recent first
	marks   []mark // the compaction boundaries of the main conversation
	lastSet bool   // the last line that parses has been seen
	last    bool   // ... and it is a boundary (EndsWithCompaction)
	ansSet  bool   // the most recent answer or boundary has been seen
	ans     bool   // ... and it is an answer (AnsweredSinceCompaction)
	low     int64  // every line starting at or after low has been passed
}

// mark is one compaction boundary line: where it starts, and whether it is the "system"
// compact_boundary line (else the isCompactSummary user line, which older transcripts have alone).
type mark struct {
	off    int64
	system bool
}

// scanBounds reads back until done says the question is answered or the file's start is
// passed, and returns what is known.
func (t *File) scanBounds(done func(b *bounds) bool) (*bounds, error) {
	_, err := t.with(func(r io.ReaderAt, size int64) error {
		if t.bounds == nil {
			t.bounds = newBounds(r, size, defaultLimits)
		}
		return t.bounds.scan(done)
	})
	if t.bounds == nil {
		return &bounds{low: -1}, err // no transcript: nothing to find
	}
	return t.bounds, err
}

func newBounds(r io.ReaderAt, size int64, lim limits) *bounds {
	return &bounds{s: newBackScanner(r, size, lim, 0), low: size}
}

// scan passes lines, from the end, until done(b) or the start of the file.
func (b *bounds) scan(done func(b *bounds) bool) error {
	for !done(b) {
		l, ok := b.s.next()
		if !ok {
			b.low = -1 // the start of the file: nothing is left to pass
			return b.s.err
		}
		b.low = l.off
		b.see(l)
	}
	return nil
}

// see records what line l shows. Lines are parsed whole only until the last line and the last
// answer are known; after that only those that may be boundaries are.
func (b *bounds) see(l line) {
	if b.lastSet && b.ansSet && !mayBeBoundary(l.data) {
		return
	}
	e, ok := b.p.entry(l)
	if !ok {
		return // not JSON: a line still being written, or not a line cairn reads
	}
	boundary := !e.sidechain && e.isBoundary()
	if !b.lastSet {
		b.lastSet, b.last = true, boundary
	}
	if !b.ansSet && !e.sidechain {
		if answered := e.kind() == "assistant" && !e.synthetic(); answered || boundary {
			b.ansSet, b.ans = true, answered
		}
	}
	if boundary {
		b.marks = append(b.marks, mark{off: l.off, system: e.kind() == "system"})
	}
}

// CompactionsAfter counts the compactions whose boundary starts at or after offset: the
// "system" compact_boundary lines, or — for older transcripts that have none there — the
// isCompactSummary lines. SessionStart uses it to tell whether PreCompact ran for the latest
// compaction: PreCompact records the transcript's size, and exactly one compaction after that
// size means it did. It reads only the bytes after offset (less when an earlier question has).
func (t *File) CompactionsAfter(offset int64) (int, error) {
	offset = max(offset, 0)
	b, err := t.scanBounds(func(b *bounds) bool { return b.low < offset })
	return b.after(offset), err
}

// after counts the boundaries passed that start at or after offset (see CompactionsAfter).
func (b *bounds) after(offset int64) int {
	systems, summaries := 0, 0
	for _, m := range b.marks {
		switch {
		case m.off < offset:
		case m.system:
			systems++
		default:
			summaries++
		}
	}
	if systems == 0 {
		return summaries
	}
	return systems
}

// EndsWithCompaction reports whether the last line of the transcript that parses is a
// compaction boundary (the compact_boundary line or the summary after it): the compaction that
// just happened has been written and nothing came after it yet. A final line still being
// written (not valid JSON) is passed over.
func (t *File) EndsWithCompaction() (bool, error) {
	b, err := t.scanBounds(func(b *bounds) bool { return b.lastSet })
	return b.last, err
}

// AnsweredSinceCompaction reports whether Claude answered — an assistant message of the main
// conversation, not a synthetic one — after the transcript's last compaction boundary, or at all
// when there is none. It reads from the end and stops at the first answer or boundary, so it
// reads little either way: a session that went on after its compaction answers near its end,
// and one that did not ends near the boundary.
func (t *File) AnsweredSinceCompaction() (bool, error) {
	b, err := t.scanBounds(func(b *bounds) bool { return b.ansSet })
	return b.ans, err
}

// LastBoundary returns the offset of the transcript's last compaction boundary line; found is
// false when it was never compacted.
func (t *File) LastBoundary() (offset int64, found bool, err error) {
	b, err := t.scanBounds(func(b *bounds) bool { return len(b.marks) > 0 })
	if len(b.marks) == 0 {
		return 0, false, err
	}
	return b.marks[0].off, true, err
}
