package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// tiny limits reach every path of the scanners (window growth, long lines, the budget) with
// inputs of a few hundred bytes.
var tiny = limits{minWindow: 4, lineCap: 16, maxBackScan: 0}

// wantLine is a line as the scanners must report it.
type wantLine struct {
	off  int64
	data string
	long bool // longer than lineCap: data is a prefix, or the whole line when exactly lineCap
}

// naiveLines splits b the obvious way.
func naiveLines(b []byte, lineCap int) []wantLine {
	var out []wantLine
	off := 0
	for _, raw := range bytes.SplitAfter(b, []byte("\n")) {
		l := bytes.TrimSuffix(raw, []byte("\n"))
		if len(l) > 0 {
			w := wantLine{off: int64(off), data: string(trimCR(l))}
			if len(l) >= lineCap {
				w.long = true
				w.data = string(l[:lineCap])
			}
			if len(trimCR(l)) > 0 {
				out = append(out, w)
			}
		}
		off += len(raw)
	}
	return out
}

func checkLine(t *testing.T, got line, want wantLine, lineCap int) {
	t.Helper()
	if got.off != want.off {
		t.Fatalf("line at %d, want at %d", got.off, want.off)
	}
	if got.truncated && !want.long {
		t.Fatalf("line at %d: truncated, want whole %q", got.off, want.data)
	}
	if want.long && !got.truncated {
		// A line of exactly lineCap bytes may be seen whole; its data is then trimmed of '\r'.
		if string(got.data) != string(trimCR([]byte(want.data))) || len(want.data) != lineCap {
			t.Fatalf("line at %d: whole %q, want truncated %q", got.off, got.data, want.data)
		}
		return
	}
	if string(got.data) != want.data {
		t.Fatalf("line at %d = %q, want %q", got.off, got.data, want.data)
	}
}

func randomContent(r *rand.Rand) []byte {
	var b []byte
	for range r.IntN(30) {
		n := r.IntN(40)
		if r.IntN(10) == 0 {
			n = r.IntN(200)
		}
		for range n {
			b = append(b, "abc{}\"\r"[r.IntN(7)])
		}
		switch r.IntN(6) {
		case 0:
			b = append(b, '\r', '\n')
		case 1:
			// no newline: lines run together
		default:
			b = append(b, '\n')
		}
	}
	return b
}

func TestScannersMatchNaiveSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		b := randomContent(r)
		lim := tiny
		lim.minWindow = 1 + r.IntN(8)
		lim.lineCap = lim.minWindow + 1 + r.IntN(40)
		want := naiveLines(b, lim.lineCap)

		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s := newBackScanner(bytes.NewReader(b), int64(len(b)), lim, 0)
			for k := len(want) - 1; k >= 0; k-- {
				got, ok := s.next()
				if !ok {
					t.Fatalf("backward: stopped early (err %v), want %+v\ncontent %q", s.err, want[k], b)
				}
				checkLine(t, got, want[k], lim.lineCap)
			}
			if got, ok := s.next(); ok {
				t.Fatalf("backward: extra line %+v", got)
			}
			f := newFwdScanner(bytes.NewReader(b), int64(len(b)), 0, lim)
			for k := range want {
				got, ok := f.next()
				if !ok {
					t.Fatalf("forward: stopped early (err %v), want %+v\ncontent %q", f.err, want[k], b)
				}
				checkLine(t, got, want[k], lim.lineCap)
			}
			if got, ok := f.next(); ok {
				t.Fatalf("forward: extra line %+v", got)
			}
		})
		if t.Failed() {
			return
		}
	}
}

func TestForwardFromMidLine(t *testing.T) {
	b := []byte("first line\nsecond\nthird line here\n")
	for from := int64(0); from <= int64(len(b))+2; from++ {
		var want []string
		for _, w := range naiveLines(b, 1<<10) {
			if w.off >= from {
				want = append(want, w.data)
			}
		}
		f := newFwdScanner(bytes.NewReader(b), int64(len(b)), from, tiny)
		var got []string
		for l, ok := f.next(); ok; l, ok = f.next() {
			got = append(got, string(l.data))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || f.err != nil {
			t.Errorf("from %d: %q (err %v), want %q", from, got, f.err, want)
		}
	}
}

func TestBackScannerBudget(t *testing.T) {
	b := bytes.Repeat([]byte("0123456789abcde\n"), 100)
	lim := limits{minWindow: 32, lineCap: 64}
	s := newBackScanner(bytes.NewReader(b), int64(len(b)), lim, 200)
	n := 0
	for _, ok := s.next(); ok; _, ok = s.next() {
		n++
	}
	if !s.stopped || s.err != nil || n == 0 || n > 20 {
		t.Errorf("budget 200: %d lines, stopped=%v err=%v", n, s.stopped, s.err)
	}
}

// shrinking is a file that loses its second half after the first read.
type shrinking struct {
	b     []byte
	reads int
}

func (s *shrinking) ReadAt(p []byte, off int64) (int, error) {
	s.reads++
	if s.reads > 1 {
		s.b = s.b[:len(s.b)/2]
	}
	return bytes.NewReader(s.b).ReadAt(p, off)
}

func TestScannersReportShrink(t *testing.T) {
	b := bytes.Repeat([]byte(`{"type":"x"}`+"\n"), 1000)
	s := newBackScanner(&shrinking{b: b}, int64(len(b)), limits{minWindow: 64, lineCap: 128}, 0)
	for _, ok := s.next(); ok; _, ok = s.next() {
	}
	if !errors.Is(s.err, errShrunk) {
		t.Errorf("backward: err %v, want errShrunk", s.err)
	}
	f := newFwdScanner(&shrinking{b: b}, int64(len(b)), 0, limits{minWindow: 64, lineCap: 128})
	for _, ok := f.next(); ok; _, ok = f.next() {
	}
	if !errors.Is(f.err, errShrunk) {
		t.Errorf("forward: err %v, want errShrunk", f.err)
	}
}

type failing struct{}

func (failing) ReadAt([]byte, int64) (int, error) { return 0, io.ErrNoProgress }

func TestScannersReportReadErrors(t *testing.T) {
	s := newBackScanner(failing{}, 100, tiny, 0)
	if _, ok := s.next(); ok || !errors.Is(s.err, io.ErrNoProgress) {
		t.Errorf("backward: ok=%v err=%v", ok, s.err)
	}
	f := newFwdScanner(failing{}, 100, 0, tiny)
	if _, ok := f.next(); ok || !errors.Is(f.err, io.ErrNoProgress) {
		t.Errorf("forward: ok=%v err=%v", ok, f.err)
	}
}

func TestWithFile(t *testing.T) {
	dir := t.TempDir()
	called := false
	fn := func(io.ReaderAt, int64) error { called = true; return nil }

	if ok, err := withFile(filepath.Join(dir, "missing.jsonl"), fn); ok || err != nil || called {
		t.Errorf("missing file: ok=%v err=%v called=%v", ok, err, called)
	}
	if _, err := withFile(dir, fn); !errors.Is(err, ErrNotRegular) || called {
		t.Errorf("directory: err=%v called=%v, want ErrNotRegular", err, called)
	}
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	attempts := 0
	_, err := withFile(path, func(io.ReaderAt, int64) error { attempts++; return errShrunk })
	if !errors.Is(err, errShrunk) || attempts != 2 {
		t.Errorf("always shrinking: err=%v after %d attempts, want errShrunk after 2", err, attempts)
	}
	attempts = 0
	_, err = withFile(path, func(io.ReaderAt, int64) error {
		if attempts++; attempts == 1 {
			return errShrunk
		}
		return nil
	})
	if err != nil || attempts != 2 {
		t.Errorf("shrinking once: err=%v after %d attempts, want success after 2", err, attempts)
	}
}

func TestLastIndexNL(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = "\n\x0a\x0b\x09\x8a\xff a"[r.IntN(8)]
			if r.IntN(3) > 0 && b[i] == '\n' {
				b[i] = 'x'
			}
		}
		if got, want := lastIndexNL(b), bytes.LastIndexByte(b, '\n'); got != want {
			t.Fatalf("lastIndexNL(%q) = %d, want %d", b, got, want)
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r    io.ReaderAt
	read int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read += int64(n)
	return n, err
}

// The forward scanner reads a window that grows: the session's first prompt, on the first line of
// a 2 MiB transcript, costs one minWindow read, not the first MiB (SessionEnd asks for it when no
// hand-off holds it yet). A scan of the whole range still reads every byte once and yields every line.
func TestForwardWindowGrows(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"user","message":{"role":"user","content":"the first request"}}` + "\n")
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"reply %d %s"}]}}`+"\n", i, strings.Repeat("x", 200))
	}
	data := b.Bytes()
	c := &countingReader{r: bytes.NewReader(data)}
	first, err := defaultLimits.firstPromptAt(c, int64(len(data)))
	if err != nil || first != "the first request" {
		t.Fatalf("first prompt %q, %v", first, err)
	}
	if c.read > int64(defaultLimits.minWindow) {
		t.Errorf("the first prompt read %d bytes, want at most %d", c.read, defaultLimits.minWindow)
	}
	c = &countingReader{r: bytes.NewReader(data)}
	f := newFwdScanner(c, int64(len(data)), 0, defaultLimits)
	lines := 0
	for _, ok := f.next(); ok; _, ok = f.next() {
		lines++
	}
	if f.err != nil || c.read != int64(len(data)) || lines != bytes.Count(data, []byte("\n")) {
		t.Errorf("whole range: %d lines of %d, %d bytes read of %d, err %v", lines, bytes.Count(data, []byte("\n")), c.read, len(data), f.err)
	}
}

// A line of exactly lineCap bytes is read whole by the forward scanner, whatever the window has
// grown to when it meets it; one byte more is cut at lineCap.
func TestForwardLineAtTheCap(t *testing.T) {
	lim := limits{minWindow: 64, lineCap: 128}
	for pre := 0; pre < 300; pre += 7 {
		for _, n := range []int{127, 128, 129} {
			var b bytes.Buffer
			if pre > 0 {
				b.WriteString(strings.Repeat("p", pre) + "\n")
			}
			b.WriteString(strings.Repeat("x", n) + "\n" + "tail\n")
			f := newFwdScanner(bytes.NewReader(b.Bytes()), int64(b.Len()), 0, lim)
			if pre > 0 {
				f.next()
			}
			l, ok := f.next()
			whole := n <= 128
			wantLen := min(n, 128)
			if !ok || len(l.data) != wantLen || l.truncated == whole {
				t.Fatalf("prefix %d, a line of %d: %d bytes, truncated %v", pre, n, len(l.data), l.truncated)
			}
			if next, ok := f.next(); !ok || string(next.data) != "tail" {
				t.Fatalf("prefix %d, a line of %d: then %q", pre, n, next.data)
			}
		}
	}
}

// A backward scan reads into the window an earlier one released (windows): what it answers does
// not depend on what that window held, nor on how large it grew.
func TestWindowReuse(t *testing.T) {
	small, _ := generate(t, transcripttest.Options{Size: 256 << 10, Boundaries: 1, Seed: 7})
	large, _ := generate(t, transcripttest.Options{Size: 3 << 20, LongLine: 2 << 20, Boundaries: 2, Seed: 8})
	first, err := Open(small).ForCompaction("/home/dev/project", 3, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{large, small, large} {
		if _, err := Open(other).ForCompaction("/home/dev/project", 3, true, 0); err != nil {
			t.Fatal(err)
		}
		again, err := Open(small).ForCompaction("/home/dev/project", 3, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, first) {
			t.Fatalf("after a scan of %s:\n%+v\nwant\n%+v", filepath.Base(other), again, first)
		}
	}
}
