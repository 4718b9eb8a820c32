package transcript

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// FuzzLines feeds arbitrary bytes to the scanners and to every question, with the package's
// limits and with tiny ones that make almost every line "long". Nothing may panic, the
// scanners must agree with a plain split on '\n', and every answer must stay within its bounds.
//
//	go test -run '^$' -fuzz FuzzLines -fuzztime 30s -fuzzminimizetime 5s ./pkg/transcript/
func FuzzLines(f *testing.F) {
	for _, seed := range [][]string{
		{assistantToolUse, userToolResult, assistantText},
		{prompt("hi"), compactBoundary, compactSummary, asst("m1", "", textBlock("a")), asst("m1", "", toolUseBlock("Edit", `{"file_path":"/r/a.go"}`))},
		{asst("m", "", toolUseBlock("TodoWrite", `{"todos":[{"content":"c","status":"pending","activeForm":"a"}]}`)), hookSuccess, hookCancelled},
		{fileSnapshot, queueOp, `{"type":"system","subtype":"compact_boundary","isSidechain":true}`, promptBlocks(textBlock("[Request interrupted by user]"))},
	} {
		f.Add([]byte(strings.Join(seed, "\n") + "\n"))
		f.Add([]byte(strings.Join(seed, "\r\n")))
		joined := strings.Join(seed, "\n")
		f.Add([]byte(joined[:len(joined)*2/3]))
	}
	var gen bytes.Buffer
	if _, err := transcripttest.Generate(&gen, transcripttest.Options{Size: 6 << 10, LongLine: 1 << 10, Boundaries: 1, Seed: 1, PartialTail: true}); err != nil {
		f.Fatal(err)
	}
	f.Add(gen.Bytes()[max(0, gen.Len()-8<<10):]) // the last turn; small inputs fuzz faster
	f.Add([]byte("\n\n\r\n"))
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lim := range []limits{defaultLimits, {minWindow: 8, lineCap: 64, maxBackScan: 1 << 10}, {minWindow: 1, lineCap: 2}} {
			if lim.lineCap < 8 && len(data) > 4<<10 {
				continue // byte-sized windows make big inputs slow to fuzz and minimise
			}
			checkScanners(t, data, lim)
			checkQuestions(t, data, lim)
		}
		if out := closePrefix(nil, data); out != nil && !gjson.ValidBytes(out) {
			t.Fatalf("closePrefix(%q) = invalid %q", data, out)
		}
	})
}

func checkScanners(t *testing.T, data []byte, lim limits) {
	want := naiveLines(data, lim.lineCap)
	size := int64(len(data))
	s := newBackScanner(bytes.NewReader(data), size, lim, 0)
	for k := len(want) - 1; k >= 0; k-- {
		got, ok := s.next()
		if !ok {
			t.Fatalf("backward scan stopped early (%v), want %+v", s.err, want[k])
		}
		checkLine(t, got, want[k], lim.lineCap)
	}
	if got, ok := s.next(); ok {
		t.Fatalf("backward scan: extra line %+v", got)
	}
	fw := newFwdScanner(bytes.NewReader(data), size, 0, lim)
	for k := range want {
		got, ok := fw.next()
		if !ok {
			t.Fatalf("forward scan stopped early (%v), want %+v", fw.err, want[k])
		}
		checkLine(t, got, want[k], lim.lineCap)
	}
	if got, ok := fw.next(); ok {
		t.Fatalf("forward scan: extra line %+v", got)
	}
}

func checkQuestions(t *testing.T, data []byte, lim limits) {
	r, size := bytes.NewReader(data), int64(len(data))
	text, err := lim.lastAssistantTextAt(r, size)
	if err != nil || len(text) > maxText+3*lim.lineCap {
		t.Fatalf("LastAssistantText: %d bytes, %v", len(text), err)
	}
	prompts, err := lim.lastUserPromptsAt(r, size, 3)
	if err != nil || len(prompts) > 3 {
		t.Fatalf("LastUserPrompts: %q, %v", prompts, err)
	}
	for _, p := range prompts {
		if strings.TrimSpace(p) == "" || isHarnessText(p) {
			t.Fatalf("LastUserPrompts returned %q", p)
		}
	}
	// The compaction questions share one reading back (bounds): asked in any order, they
	// answer as each would alone, and the boundaries they count agree with the last one found.
	b := newBounds(r, size, lim)
	if err := b.scan(func(b *bounds) bool { return len(b.marks) > 0 }); err != nil {
		t.Fatalf("LastBoundary: %v", err)
	}
	found := len(b.marks) > 0
	var off int64
	if found {
		off = b.marks[0].off
		if off < 0 || off >= size {
			t.Fatalf("LastBoundary: %d", off)
		}
	}
	all := newBounds(r, size, lim)
	if err := all.scan(func(*bounds) bool { return false }); err != nil {
		t.Fatal(err)
	}
	for _, q := range []*bounds{b, all} {
		q.scan(func(b *bounds) bool { return b.lastSet && b.ansSet })
		if q.last != all.last || q.ans != all.ans {
			t.Fatalf("after a LastBoundary the last line and answer read %v %v, alone %v %v", q.last, q.ans, all.last, all.ans)
		}
	}
	if found {
		if n := all.after(off); n == 0 {
			t.Fatalf("no compaction at or after the last boundary %d", off)
		}
		if n := all.after(off + 1); n != 0 {
			t.Fatalf("%d compactions after the last boundary %d", n, off)
		}
	}
	files, err := lim.editedFilesAt(r, size, "/r")
	if err != nil || len(files) > maxEditedFiles {
		t.Fatalf("EditedFilesSinceBoundary: %d files, %v", len(files), err)
	}
	sorted := slices.Clone(files)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(files) {
		t.Fatalf("EditedFilesSinceBoundary: duplicates in %q", files)
	}
	if _, _, err := lim.lastTodosAt(r, size); err != nil {
		t.Fatalf("LastTodos: %v", err)
	}
	runs, err := lim.hookRunsAt(r, size, size)
	if err != nil || len(runs) > maxHookRuns {
		t.Fatalf("HookRuns: %d, %v", len(runs), err)
	}
	// Messages: every message lies on one whole line inside the range, in order, and the reading
	// ends at a line's end; a reading from there finds nothing more.
	prev := int64(0)
	end, err := lim.messages(r, 0, size, func(m *Message) bool {
		if m == nil {
			return true
		}
		if m.Off < prev || m.End <= m.Off || m.End > size || data[m.End-1] != '\n' || len(m.Text) > maxMessageText {
			t.Fatalf("message %+v after %d in %d bytes", *m, prev, size)
		}
		prev = m.Off
		return true
	})
	if err != nil || end < prev || end > size || end > 0 && data[end-1] != '\n' {
		t.Fatalf("Messages: end %d of %d, %v", end, size, err)
	}
	if again, _ := lim.messages(r, end, size, func(m *Message) bool {
		if m != nil {
			t.Fatalf("a message past end %d: %+v", end, *m)
		}
		return true
	}); again != end {
		t.Fatalf("Messages from its end %d ends at %d", end, again)
	}
}
