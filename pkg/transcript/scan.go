package transcript

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// limits bounds what one query reads and holds. The package uses defaultLimits; tests shrink
// them to reach the huge-line and window-growth paths with small inputs.
type limits struct {
	// minWindow is the first window read from the end of the file. Most answers sit in the
	// last few lines, so one small read usually settles a "last" question.
	minWindow int
	// lineCap is the longest line held whole. A longer line is seen through its first lineCap
	// bytes only, and its extent is found by scanning for '\n' in lineCap-sized chunks. The
	// backward window doubles from minWindow up to steadyWindow (lineCap for a line that needs
	// it); the forward buffer is 1.5 times lineCap.
	lineCap int
	// maxBackScan is how many bytes a "last" question may read before it gives up and answers
	// with what it has found, so that even a multi-GB transcript of progress lines
	// (docs/TRANSCRIPT.md) costs a bounded time. Scans that must cover a region (the boundary
	// search, the edited files since it) are not bounded by it.
	maxBackScan int64
}

var defaultLimits = limits{
	minWindow:   64 << 10,  // a few typical lines: one read answers most hooks
	lineCap:     1 << 20,   // assistant text is at most ~128k output tokens ≈ 0.5 MB
	maxBackScan: 256 << 20, // above the largest transcripts reported, bounded time
}

// errShrunk means a read came back short: the file was truncated while we read it.
var errShrunk = errors.New("transcript shrank while being read")

// ErrNotRegular is returned when the transcript path names something other than a regular file
// (a directory, a FIFO, a device): such a path is opened without blocking and refused, so a FIFO
// cannot stall a hook.
var ErrNotRegular = safefile.ErrNotRegular

// readFull reads exactly len(p) bytes at off. Fewer bytes means the file shrank.
func readFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return errShrunk
	}
	return err
}

// line is one transcript line as a scanner yields it. data is valid until the next call.
type line struct {
	data      []byte // content without the '\n' (and a final '\r'); a prefix when truncated
	off       int64  // file offset of the line's first byte
	truncated bool   // the line is longer than lineCap; data holds its first lineCap bytes
	end       int64  // when truncated and read backwards: the offset just past the line's last byte
	open      bool   // read forwards: the range's last line, which has no '\n' (still being written)
}

// backScanner yields the lines of a file from the last to the first. It keeps a window
// [bufOff, bufOff+bufLen) that always ends where the next line to yield ends; the window starts
// at minWindow and doubles, up to steadyWindow (lineCap for a line that needs it), each time it
// must be refilled.
type backScanner struct {
	r       io.ReaderAt
	lim     limits
	size    int64
	buf     []byte
	bufOff  int64
	bufLen  int
	end     int64 // exclusive end of the next line's content; -1 when done
	read    int64 // bytes read so far
	budget  int64 // stop once read exceeds it; 0 means unbounded
	stopped bool  // the budget ran out
	err     error

	// The newlines of buf[idxFrom:bufLen], ascending. The window is indexed a block at a time
	// from its end, with bytes.IndexByte, which is vectorised where bytes.LastIndexByte is not.
	nl      []int32
	idxFrom int
}

// nlBlock is how much of the window is indexed at a time; it bounds len(nl).
const nlBlock = 32 << 10

// lastNL returns the position of the last '\n' in buf[:bufLen] and drops it from the index,
// or -1 when there is none.
func (s *backScanner) lastNL() int {
	for {
		if n := len(s.nl); n > 0 {
			j := int(s.nl[n-1])
			s.nl = s.nl[:n-1]
			return j
		}
		if s.idxFrom == 0 {
			return -1
		}
		from := max(0, s.idxFrom-nlBlock)
		for b, off := s.buf[from:s.idxFrom], 0; ; {
			k := bytes.IndexByte(b[off:], '\n')
			if k < 0 {
				break
			}
			s.nl = append(s.nl, int32(from+off+k))
			off += k + 1
		}
		s.idxFrom = from
	}
}

func newBackScanner(r io.ReaderAt, size int64, lim limits, budget int64) *backScanner {
	s := &backScanner{r: r, lim: lim, size: size, end: size, bufOff: size, budget: budget}
	if w, ok := windows.Get().(*[]byte); ok {
		s.buf = (*w)[:0]
	}
	return s
}

// windows keeps the windows of the backward scans that ended (release), so that the questions a
// process asks one after another (a compaction's three) read into one window instead of a fresh
// one each: in a short-lived hook, touching a fresh page costs more than reading a page into it.
var windows sync.Pool // of *[]byte

// release gives the window back for the next scan. The lines s yielded must not be used after.
func (s *backScanner) release() {
	if cap(s.buf) > 0 {
		w := s.buf[:0]
		windows.Put(&w)
	}
	s.buf, s.bufLen = nil, 0
}

func (s *backScanner) readAt(p []byte, off int64) bool {
	if s.budget > 0 && s.read >= s.budget {
		s.stopped = true
		return false
	}
	s.read += int64(len(p))
	if err := readFull(s.r, p, off); err != nil {
		s.err = err
		return false
	}
	return true
}

// next returns the previous non-empty line, or false at the start of the file, on error (see
// err) or when the budget is spent.
func (s *backScanner) next() (line, bool) {
	for s.end >= 0 && s.err == nil {
		if j := s.lastNL(); j >= 0 || s.bufOff == 0 {
			// The window holds the whole line: it starts after j (or at the file's start).
			l := line{data: s.buf[j+1 : s.bufLen], off: s.bufOff + int64(j) + 1}
			s.end = s.bufOff + int64(j) // the '\n' before the line, or -1
			s.bufLen = max(j, 0)
			if l.data = trimCR(l.data); len(l.data) == 0 {
				continue
			}
			return l, true
		}
		if s.bufLen < s.lim.lineCap {
			if !s.slide() {
				return line{}, false
			}
			continue
		}
		return s.huge()
	}
	return line{}, false
}

// steadyWindow is as far as the window grows while the lines fit in half of it. A window the
// cache holds is read by the scan while the copy from the page cache is still there, and a
// process that reads a few MiB once does not pay for fresh pages of a larger one: the tail a
// compaction reads costs less with 256 KiB windows than with 1 MiB ones, and a 200 MB scan the
// same (BenchmarkForCompactionTail, BenchmarkLastBoundaryNone).
const steadyWindow = 256 << 10

// slide moves the window back so that it ends at s.end and holds more bytes before the
// partial line it contains. Each slide doubles the window, up to steadyWindow (lineCap when the
// partial line fills half of it): a question that the last 64 KiB did not answer is likely to
// need many more, and bigger reads move bytes faster (docs/TRANSCRIPT.md).
func (s *backScanner) slide() bool {
	size := 2 * len(s.buf)
	if size == 0 {
		size = s.lim.minWindow
	}
	size = min(size, max(steadyWindow, 2*s.bufLen), s.lim.lineCap)
	size = int(min(int64(size), s.end)) // never past the start of the file
	if size > len(s.buf) {
		nb := s.buf[:0]
		if size > cap(s.buf) {
			// Room for the steady window at once: its pages are touched only as it grows into
			// them, and the window is not allocated again on the way.
			nb = make([]byte, 0, max(size, min(steadyWindow, s.lim.lineCap)))
		}
		nb = nb[:size]
		copy(nb[size-s.bufLen:], s.buf[:s.bufLen]) // may overlap: copy moves
		s.buf = nb
	} else {
		copy(s.buf[size-s.bufLen:size], s.buf[:s.bufLen])
	}
	newOff := s.end - int64(size)
	if !s.readAt(s.buf[:size-s.bufLen], newOff) {
		return false
	}
	// The partial line moved to the tail has no newline: only the new bytes need indexing.
	s.idxFrom, s.nl = size-s.bufLen, s.nl[:0]
	s.bufOff, s.bufLen = newOff, size
	return true
}

// huge handles a line longer than the window: it finds the line's start by scanning back for
// '\n' chunk by chunk (holding nothing), then reads the line's first lineCap bytes.
func (s *backScanner) huge() (line, bool) {
	end := s.end
	pos, start := s.bufOff, int64(0)
	for pos > 0 {
		c := max(0, pos-int64(len(s.buf)))
		chunk := s.buf[:pos-c]
		if !s.readAt(chunk, c) {
			return line{}, false
		}
		if j := lastIndexNL(chunk); j >= 0 {
			start = c + int64(j) + 1
			break
		}
		pos = c
	}
	// The prefix is read regardless of the budget: the line has been paid for already.
	prefix := s.buf[:s.lim.lineCap]
	s.read += int64(len(prefix))
	if err := readFull(s.r, prefix, start); err != nil {
		s.err = err
		return line{}, false
	}
	// The window now holds the prefix, not the bytes before start: start over from there.
	s.end, s.bufOff, s.bufLen = start-1, start-1, 0
	s.idxFrom, s.nl = 0, s.nl[:0]
	return line{data: prefix, off: start, truncated: true, end: end}, true
}

// fwdScanner yields the lines of [from, size) in order. A line longer than lineCap is yielded
// as its first lineCap bytes, after which the rest of it is skipped chunk by chunk.
type fwdScanner struct {
	r        io.ReaderAt
	lim      limits
	size     int64
	buf      []byte
	bufOff   int64 // file offset of buf[0]
	lo, hi   int   // unread bytes are buf[lo:hi]
	skipping bool  // inside a long line whose prefix was yielded: drop bytes up to '\n'
	err      error
}

// newFwdScanner starts at from. When from is inside a line (the byte before it is not '\n'),
// that partial line is skipped.
func newFwdScanner(r io.ReaderAt, size, from int64, lim limits) *fwdScanner {
	s := &fwdScanner{r: r, lim: lim, size: size, bufOff: from}
	if from > 0 && from <= size {
		var b [1]byte
		if err := readFull(r, b[:], from-1); err != nil {
			s.err = err
		} else {
			s.skipping = b[0] != '\n'
		}
	}
	return s
}

// fill compacts the unread bytes to the front of the buffer and reads more after them.
// It returns false at the end of the range or on error. The window starts at minWindow and
// doubles at each fill, up to a line and a half (lineCap), never past the end of the range: a
// question the first lines answer (the session's first prompt) reads a few KiB, not the first
// MiB, and a scan that needs another read is likely to need many, which bigger reads serve.
func (s *fwdScanner) fill() bool {
	pos := s.bufOff + int64(s.hi)
	if pos >= s.size || s.err != nil {
		return false
	}
	n := s.hi - s.lo
	want := min(max(2*len(s.buf), s.lim.minWindow, 1), s.lim.lineCap+s.lim.lineCap/2)
	// The unread bytes and the rest of the range; more than n, as pos < size.
	want = int(min(int64(want), s.size-s.bufOff-int64(s.lo)))
	if want > len(s.buf) {
		nb := make([]byte, want)
		copy(nb, s.buf[s.lo:s.hi])
		s.buf = nb
	} else {
		copy(s.buf, s.buf[s.lo:s.hi])
	}
	s.bufOff += int64(s.lo)
	s.lo, s.hi = 0, n
	more := int(min(int64(len(s.buf)-n), s.size-pos))
	if err := readFull(s.r, s.buf[n:n+more], pos); err != nil {
		s.err = err
		return false
	}
	s.hi += more
	return true
}

func (s *fwdScanner) next() (line, bool) {
	for s.err == nil {
		if s.skipping {
			if j := bytes.IndexByte(s.buf[s.lo:s.hi], '\n'); j >= 0 {
				s.lo += j + 1
				s.skipping = false
				continue
			}
			s.lo = s.hi
			if !s.fill() {
				return line{}, false
			}
			continue
		}
		if j := bytes.IndexByte(s.buf[s.lo:s.hi], '\n'); j >= 0 {
			l := line{data: trimCR(s.buf[s.lo : s.lo+j]), off: s.bufOff + int64(s.lo)}
			if j > s.lim.lineCap {
				// Held whole by chance of the buffer; seen like any long line.
				l.data, l.truncated = s.buf[s.lo:s.lo+s.lim.lineCap], true
			}
			s.lo += j + 1
			if len(l.data) == 0 {
				continue
			}
			return l, true
		}
		// Over lineCap and no '\n' yet: cut. (A line of exactly lineCap bytes waits for its
		// '\n', which the window, a line and a half, has room for: it is read whole, as when the
		// window was read at that size at once.)
		if s.hi-s.lo > s.lim.lineCap {
			l := line{data: s.buf[s.lo : s.lo+s.lim.lineCap], off: s.bufOff + int64(s.lo), truncated: true}
			s.lo += s.lim.lineCap
			s.skipping = true
			return l, true
		}
		if !s.fill() {
			if s.err != nil || s.lo == s.hi {
				return line{}, false
			}
			// The last line has no '\n': it may still be being written, and is then invalid
			// JSON, which the caller rejects like any other.
			l := line{data: trimCR(s.buf[s.lo:s.hi]), off: s.bufOff + int64(s.lo), open: true}
			s.lo = s.hi
			if len(l.data) == 0 {
				return line{}, false
			}
			return l, true
		}
	}
	return line{}, false
}

// pos is the offset of the first byte next will look at: after it yielded a line whole, the
// start of the line after it.
func (s *fwdScanner) pos() int64 { return s.bufOff + int64(s.lo) }

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// lastIndexNL is bytes.LastIndexByte(b, '\n') for a chunk of a long line, which has few
// newlines or none: forward bytes.IndexByte is vectorised, LastIndexByte is a byte loop.
func lastIndexNL(b []byte) int {
	last := -1
	for {
		k := bytes.IndexByte(b[last+1:], '\n')
		if k < 0 {
			return last
		}
		last += k + 1
	}
}
