package transcript

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// answers is what the region scan (sinceAt) asks of one line before it parses any: the byte tests
// that pick the lines to parse, and what a tool result's line gives the commands (resultRef's
// count and error, and the ids it is filed under).
type answers struct {
	boundary, result, decide, edit, task, bash, isError bool
	n                                                   int // "tool_use_id":" as bytes.Count counts it
	ids                                                 []string
}

// predicateAnswers answers with the tests as the scan made them before lineMarks, one search of
// the line per token; they are kept here as the reference the walk must agree with.
func predicateAnswers(b []byte) answers {
	a := answers{
		boundary: mayBeBoundary(b),
		result:   isToolResult(b),
		decide:   predicateMayDecide(b),
		edit:     mayEdit(b),
		task:     mayTask(b),
		bash:     mayBash(b),
		isError:  bytes.Contains(b, isErrorTrue),
		n:        bytes.Count(b, toolUseIDKey),
	}
	rest := b
	for range a.n {
		i := bytes.Index(rest, toolUseIDKey)
		rest = rest[i+len(toolUseIDKey):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			break
		}
		a.ids = append(a.ids, string(rest[:j]))
		rest = rest[j:]
	}
	return a
}

func predicateMayDecide(b []byte) bool {
	if len(b) > maxDecisionLine || !bytes.Contains(b[:min(len(b), toolResultHead)], []byte(`"type":"user"`)) && !bytes.Contains(b, []byte(`"type":"text"`)) {
		return false
	}
	return predicateDecideText(b)
}

// predicateDecideText is mayDecideText as a search per cue.
func predicateDecideText(b []byte) bool {
	return bytes.Contains(b, []byte("ecid")) || bytes.Contains(b, []byte("ecision")) || bytes.Contains(b, []byte("greed")) || bytes.Contains(b, []byte("go with")) ||
		bytes.Contains(b, []byte("oing with")) ||
		bytes.Contains(b, []byte("ettled")) || bytes.Contains(b, []byte("pted for")) || bytes.Contains(b, []byte("hose")) ||
		bytes.Contains(b, []byte("tick with")) || bytes.Contains(b, []byte("oing forward")) || bytes.Contains(b, []byte("rom here on")) ||
		bytes.Contains(b, []byte("inal call")) || bytes.Contains(b, []byte("et's")) || bytes.Contains(b, []byte("et’s")) ||
		bytes.Contains(b, []byte("et us")) || bytes.Contains(b, []byte("ake it"))
}

// markedAnswers answers with one walk over the line (lineMarks), as sinceAt and
// activityScan.noteResult read it.
func markedAnswers(b []byte) answers {
	var m lineMarks
	m.of(b)
	a := answers{
		boundary: m.any(markBoundary | markSummary),
		result:   m.has(markResultHead),
		decide:   mayDecideMarked(b, &m),
		edit:     m.any(markEdit|markWrite) && m.has(markToolUse),
		task:     m.has(markTask | markToolUse),
		bash:     m.has(markBash | markToolUse),
	}
	s := newActivityScan(nil, defaultLimits)
	s.noteResult(line{data: b}, b, &m)
	for id := range s.refs {
		a.ids = append(a.ids, id)
	}
	a.isError = m.any(markIsError)
	return a
}

// checkMarks fails t when the walk and the predicates differ on line b. The predicates' ids are
// compared as the set the scan files (the first of each, non-empty); their count as what
// resultRef keeps of it (multiple).
func checkMarks(t *testing.T, b []byte) {
	t.Helper()
	want, got := predicateAnswers(b), markedAnswers(b)
	var wantIDs []string
	for _, id := range want.ids {
		if id != "" && !slices.Contains(wantIDs, id) {
			wantIDs = append(wantIDs, id)
		}
	}
	slices.Sort(wantIDs)
	slices.Sort(got.ids)
	flags := func(a answers) string {
		return fmt.Sprintf("boundary %v result %v decide %v edit %v task %v bash %v error %v", a.boundary, a.result, a.decide, a.edit, a.task, a.bash, a.isError)
	}
	if flags(got) != flags(want) || !slices.Equal(got.ids, wantIDs) {
		t.Fatalf("line %.200q:\n walk       %s, ids %q\n predicates %s, ids %q", b, flags(got), got.ids, flags(want), wantIDs)
	}
	for i, q := 0, 0; ; i = q + 1 {
		q = nextQuote(b, i)
		want := bytes.IndexByte(b[min(i, len(b)):], '"')
		if want >= 0 {
			want += i
		}
		if q != want {
			t.Fatalf("line %.200q: nextQuote(%d) = %d, want %d", b, i, q, want)
		}
		if q < 0 {
			break
		}
	}
	if mayDecideText(b) != predicateDecideText(b) {
		t.Fatalf("text %.200q: mayDecideText = %v, the searches %v", b, mayDecideText(b), predicateDecideText(b))
	}
	// multiple, as resultRef records it: more than one occurrence counted.
	var m lineMarks
	m.of(b)
	s := newActivityScan(nil, defaultLimits)
	s.noteResult(line{data: b}, b, &m)
	for id, r := range s.refs {
		if r.multiple != (want.n > 1) {
			t.Fatalf("line %.200q: id %q multiple = %v, predicates counted %d", b, id, r.multiple, want.n)
		}
	}
}

// The walk over a line's quotes answers exactly what the searches it replaced answered, on every
// line of generated transcripts and on lines made to sit at the edges: tokens that overlap,
// straddle the head's end, open or close the line, or hide behind an escaped quote.
func TestMarksAnswerAsThePredicates(t *testing.T) {
	var lines [][]byte
	for seed := range uint64(4) {
		var buf bytes.Buffer
		if _, err := transcripttest.Generate(&buf, transcripttest.Options{Size: 512 << 10, Boundaries: 2, Seed: seed + 1, PartialTail: true}); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(buf.Bytes(), []byte("\n"))...)
	}
	for _, l := range markEdgeLines() {
		lines = append(lines, []byte(l))
	}
	for _, l := range lines {
		checkMarks(t, l)
	}
}

func markEdgeLines() []string {
	pad := func(n int) string { return strings.Repeat("x", n) }
	head := func(tok string, end int) string { return `{"a":"` + pad(end-len(tok)-6) + tok } // tok ends at byte end
	out := []string{
		`"tool_use_id":"tool_use_id":"a"`,
		`"tool_use_id":""tool_use_id":"b"`,
		`"tool_use_id":"a""tool_use_id":"a""tool_use_id":"`,
		`"tool_use_id":"`,
		`"tool_use_id":"x`,
		`x"is_error":true`,
		`\"is_error\":true "is_error":tru`,
		`"tool_use"Bash"`,
		`"Bash""tool_use"`,
		`{"type":"tool_use","name":"TodoWrite","input":{}}`,
		`{"type":"tool_use","name":"MultiEdit"}`,
		`"TaskUpdate""TaskCreate"`,
		`"compact_boundary"`,
		`"isCompactSummary":true`,
		`_boundary"`,
		`CompactSummary"`,
		`"`,
		`""`,
		`"""`,
		`\"`,
		`"type":"text""type":"user"`,
		`{"type":"user","message":{"content":"We decided to keep it."}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"Let's go with SQLite; it is simpler."}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo \"Bash\" \"tool_use\""}}]}}`,
		`{"type":"user","message":{"content":[{"tool_use_id":"t1","type":"tool_result","content":"x \"tool_use_id\":\"t9\" \"is_error\":true","is_error":false}]}}`,
		`{"type":"user","message":{"content":[{"tool_use_id":"t1","type":"tool_result","content":"a"},{"tool_use_id":"t2","type":"tool_result","content":"b","is_error":true}]}}`,
		`{"type":"user","message":{"content":[{"tool_use_id":"t1","type":"tool_result","content":"a"},{"tool_use_id":"t1","type":"tool_result"}]}}`,
		`{"type":"user","message":{"content":[{"tool_use_id":"","type":"tool_result"}]}}`,
		"ecid", "xecid", "eci", "ec", "e", "ake i", "ake it", "et’", "et’s", "Let’s go", "chose", "et u", "et us",
		"opted for it", "from here on.", "Final call: x", "settled", "agreed", "going forward", "stick with it",
		`0123456"`, `01234567"`, `012345678"`, strings.Repeat("x", 31) + `"`, strings.Repeat("x", 32) + `"`, strings.Repeat("x", 33) + `"`,
		"\x00\x01\"\x21\x23\xa2\"", "!!!!!!!!\"", "########\"",
	}
	// The head's end (toolResultHead): a token that ends on its last byte, one byte over, one
	// that starts on it.
	for _, d := range []int{-1, 0, 1, 2} {
		out = append(out,
			head(`tool_result"`, toolResultHead+d),
			head(`"type":"user"`, toolResultHead+d)+`,"message":{"content":"we decided"}}`,
			head(`"type":"text"`, toolResultHead+d)+`"decided"`,
		)
	}
	// Around the longest line mayDecide looks at.
	for _, d := range []int{-1, 0, 1} {
		l := `{"type":"user","message":{"content":"decided`
		out = append(out, l+pad(maxDecisionLine+d-len(l)-3)+`"}}`)
	}
	return out
}

// FuzzMarks holds the walk to the predicates on any bytes.
//
//	go test -run '^$' -fuzz FuzzMarks -fuzztime 30s ./pkg/transcript/
func FuzzMarks(f *testing.F) {
	for _, l := range markEdgeLines() {
		if len(l) < 4<<10 {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(assistantToolUse))
	f.Add([]byte(userToolResult))
	f.Add([]byte(assistantText))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkMarks(t, b)
	})
}

// BenchmarkMarks is the walk alone over the lines of the tail BenchmarkForCompactionTail reads,
// and the dozen searches it replaced over the same lines.
func BenchmarkMarks(b *testing.B) {
	var buf bytes.Buffer
	if _, err := transcripttest.Generate(&buf, transcripttest.Options{Size: 8 << 20, Boundaries: 1, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	tail := buf.Bytes()[buf.Len()-4<<20:]
	lines := bytes.Split(tail, []byte("\n"))
	b.Run("walk", func(b *testing.B) {
		b.SetBytes(int64(len(tail)))
		defer reportCPU(b)()
		var m lineMarks
		for b.Loop() {
			for _, l := range lines {
				m.of(l)
			}
		}
	})
	b.Run("decide", func(b *testing.B) {
		// The decision cues over the lines the gate lets through (prompts, texts), as sinceAt
		// tests them.
		var gated [][]byte
		var n int64
		var m lineMarks
		for _, l := range lines {
			if !m.of(l).has(markResultHead) && len(l) <= maxDecisionLine && m.any(markUserHead|markText) {
				gated, n = append(gated, l), n+int64(len(l))
			}
		}
		b.SetBytes(n)
		defer reportCPU(b)()
		for b.Loop() {
			for _, l := range gated {
				mayDecideText(l)
			}
		}
	})
	b.Run("predicates", func(b *testing.B) {
		b.SetBytes(int64(len(tail)))
		for b.Loop() {
			for _, l := range lines {
				predicateAnswers(l)
			}
		}
	})
}
