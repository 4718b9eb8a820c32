package transcript

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// A hand-off reads the prompts before its session's last checkpoint at the offsets that
// checkpoint recorded (wordsAt): the answer is the one a reading from the end gives, at every
// point the checkpoint could have been taken (between lines, inside one), from far fewer bytes
// when the prompts lie far back; and whatever the recorded offsets say, it is still that answer.
func TestWordsAtMatchesAReadingFromTheEnd(t *testing.T) {
	var b bytes.Buffer
	if _, err := transcripttest.Generate(&b, transcripttest.Options{Size: 600 << 10, Boundaries: 1, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	size := int64(len(data))
	full, fullAt, _, err := defaultLimits.promptLinesAt(bytes.NewReader(data), size, 3, 0)
	if err != nil || len(full) != 3 {
		t.Fatalf("a reading from the end: %q, %v", full, err)
	}
	t.Logf("size %d, the last prompts at %v", size, fullAt)
	cuts := []int64{1, 4096, size / 3, size / 2, fullAt[0], fullAt[0] + 1, fullAt[1], fullAt[2], size - 1, size}
	for nl, i := 0, 0; i < 5; i++ { // and a few line ends
		nl += bytes.IndexByte(data[nl:], '\n') + 1
		cuts = append(cuts, int64(nl))
	}
	for _, from := range cuts {
		prefix := data[:from]
		_, earlier, _, err := defaultLimits.promptLinesAt(bytes.NewReader(prefix), from, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := &countingReader{r: bytes.NewReader(data)}
		got, at, err := defaultLimits.wordsAt(c, size, 3, from, earlier)
		if err != nil || !slices.Equal(got, full) || !slices.Equal(at, fullAt) {
			t.Errorf("from %d (earlier %v): %q at %v, %v; want %q at %v", from, earlier, got, at, err, full, fullAt)
		}
		if from > fullAt[0] && len(earlier) == 3 && c.read > size-from+int64(defaultLimits.minWindow+3*(promptWindow+1)) {
			t.Errorf("from %d: read %d bytes, want about %d (what came after from, and the prompts' lines)", from, c.read, size-from)
		}
	}
	// Offsets that do not hold what they claim: a line's middle, a line that is not a prompt, out of
	// order, past from, negative, repeated. Each gives a reading from the end.
	from := size - 10
	notPrompt := int64(bytes.LastIndexByte(data[:from-1], '\n') + 1)
	for _, earlier := range [][]int64{
		{fullAt[0] + 3, fullAt[1], fullAt[2]},
		{notPrompt, fullAt[1], fullAt[2]},
		{fullAt[1], fullAt[0], fullAt[2]},
		{from + 5, fullAt[0], fullAt[1]},
		{-1, fullAt[0], fullAt[1]},
		{fullAt[0], fullAt[0], fullAt[1]},
		{fullAt[0]},
	} {
		got, at, err := defaultLimits.wordsAt(bytes.NewReader(data), size, 3, from, earlier)
		if err != nil || !slices.Equal(got, full) || !slices.Equal(at, fullAt) {
			t.Errorf("earlier %v: %q at %v, %v; want %q at %v", earlier, got, at, err, full, fullAt)
		}
	}
}

// When the reading back from the end gives up (maxBackScan) before it comes to the checkpoint's
// length, its answer is what it found, and the recorded prompts, older than the lines it could not
// read, are not added: wordsAt answers as a reading from the end does.
func TestWordsAtStopsWhereAReadingFromTheEndStops(t *testing.T) {
	user := func(text string) string {
		return `{"type":"user","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	var b bytes.Buffer
	var earlier []int64
	for _, p := range []string{"first", "second", "third"} {
		earlier = append([]int64{int64(b.Len())}, earlier...)
		b.WriteString(user(p))
	}
	from := int64(b.Len())
	b.WriteString(user("fourth"))
	for b.Len() < 600<<10 {
		b.WriteString(`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 1000) + `"}]}}` + "\n")
	}
	data := b.Bytes()
	lim := defaultLimits
	lim.maxBackScan = 100 << 10
	want, wantAt, _, err := lim.promptLinesAt(bytes.NewReader(data), int64(len(data)), 3, 0)
	if err != nil || len(want) != 0 {
		t.Fatalf("the reading from the end, bounded: %q, %v", want, err)
	}
	got, at, err := lim.wordsAt(bytes.NewReader(data), int64(len(data)), 3, from, earlier)
	if err != nil || !slices.Equal(got, want) || !slices.Equal(at, wantAt) {
		t.Fatalf("wordsAt: %q at %v, %v; want %q at %v", got, at, err, want, wantAt)
	}
}
