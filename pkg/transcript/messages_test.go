package transcript

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// got is a message as a test compares it: its strings copied.
type got struct {
	Kind              MessageKind
	Text, ID, Status  string
	Off, End          int64
	Time, Branch, Cwd string
}

// gotOf copies m: its strings alias the reader's buffer.
func gotOf(m *Message) got {
	c := strings.Clone
	return got{m.Kind, c(m.Text), c(m.ID), c(m.Status), m.Off, m.End, c(m.Time), c(m.Branch), c(m.Cwd)}
}

func collect(t testing.TB, lim limits, data []byte, from, to int64) ([]got, int64) {
	t.Helper()
	var out []got
	end, err := lim.messages(bytes.NewReader(data), from, to, func(m *Message) bool {
		if m != nil {
			out = append(out, gotOf(m))
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, end
}

func joinLines(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// Every kind of message, from the lines Claude Code writes, and nothing from the others.
func TestMessagesKinds(t *testing.T) {
	sub := asst("msg_s", `"isSidechain":true,`, textBlock("a subagent's words"),
		`{"type":"tool_use","id":"toolu_s","name":"Write","input":{"file_path":"/home/me/proj/gen.go","content":"x"}}`,
		`{"type":"tool_use","id":"toolu_sb","name":"Bash","input":{"command":"make gen"}}`)
	unknownErr := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>","is_error":true,"tool_use_id":"toolu_r"}]},"timestamp":"t"}`
	lines := []string{
		queueOp, fileSnapshot, hookSuccess,
		prompt("Please fix the ledger7 parser"),
		prompt("<command-name>/context</command-name>"),
		assistantToolUse, userToolResult,
		assistantText,
		asst("msg_t", `"isSidechain":false,`, thinkingBlock),
		bashUse("t1", "go test ./internal/ledger7/"),
		bashResult("t1", "Exit code 1\n--- FAIL: TestLedger7 (0.01s)\n    parse_test.go:41: ledger7 total = 1300, want 1301\nFAIL", true),
		bashUse("t2", "git commit -m 'ledger7: cents'"),
		bashResult("t2", "[main 4f1c2ab] ledger7: cents", false),
		bashResult("t0", "output of a command from before the reading", false),
		unknownErr,
		sub,
		compactBoundary, compactSummary,
		asst("msg_x", `"isApiErrorMessage":true,`, textBlock("API Error: overloaded")),
	}
	data := joinLines(lines...)
	msgs, end := collect(t, defaultLimits, data, 0, int64(len(data)))
	if end != int64(len(data)) {
		t.Errorf("end %d, want %d", end, len(data))
	}
	type brief struct {
		Kind             MessageKind
		Text, ID, Status string
	}
	var b []brief
	for _, m := range msgs {
		b = append(b, brief{m.Kind, m.Text, m.ID, m.Status})
	}
	want := []brief{
		{Typed, "Please fix the ledger7 parser", "", ""},
		{Edited, "/home/me/proj/src/main.go", "", ""},
		{Said, "Done — «naïve» \"quoted\" \\ and\na newline. Shall I run the tests?", "", ""},
		{Ran, "go test ./internal/ledger7/", "t1", ""},
		{Outcome, "--- FAIL: TestLedger7 (0.01s) — parse_test.go:41: ledger7 total = 1300, want 1301", "t1", "exit 1"},
		{Ran, "git commit -m 'ledger7: cents'", "t2", ""},
		{Outcome, "", "t2", "exit 0"},
		{Outcome, "File has not been read yet. Read it first before writing to it.", "toolu_r", "error"},
		{Edited, "/home/me/proj/gen.go", "", ""},
		{Summarized, "This session is being continued from a previous conversation that ran out of context. Summary: the user asked to fix main.go.", "", ""},
	}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("messages:\n got %+v\nwant %+v", b, want)
	}
	// Each message knows its line and the line's fields.
	for _, m := range msgs {
		line := string(data[m.Off:m.End])
		if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
			t.Errorf("%v %q: [%d, %d) is not one line", m.Kind, m.Text, m.Off, m.End)
		}
	}
	if m := msgs[1]; m.Time != "2026-09-01T10:00:00.000Z" || m.Branch != "main" || m.Cwd != "/home/me/proj" {
		t.Errorf("line fields: %+v", m)
	}
}

// A summary loses Claude Code's opening sentence when that is a line of its own.
func TestSummaryText(t *testing.T) {
	for in, want := range map[string]string{
		continuation + " that ran out of context. The summary below covers it.\n\nThe user fixed ledger7.": "The user fixed ledger7.",
		"A summary of another shape.": "A summary of another shape.",
	} {
		if got := summaryText(in); got != want {
			t.Errorf("summaryText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A last line without its '\n' is not read; read again from end once it is whole, it is.
func TestMessagesTornTail(t *testing.T) {
	whole := joinLines(prompt("first request"), prompt("second request"))
	torn := whole[:len(whole)-10]
	msgs, end := collect(t, defaultLimits, torn, 0, int64(len(torn)))
	if len(msgs) != 1 || msgs[0].Text != "first request" {
		t.Fatalf("torn: %+v", msgs)
	}
	if want := int64(bytes.IndexByte(whole, '\n') + 1); end != want {
		t.Fatalf("end %d, want %d (the start of the torn line)", end, want)
	}
	msgs, end2 := collect(t, defaultLimits, whole, end, int64(len(whole)))
	if len(msgs) != 1 || msgs[0].Text != "second request" || end2 != int64(len(whole)) {
		t.Fatalf("completed: %+v, end %d", msgs, end2)
	}
	// A whole line that ends exactly at to is read; one that runs past to is not.
	msgs, end = collect(t, defaultLimits, whole, 0, int64(len(whole))-1)
	if len(msgs) != 1 || end != int64(bytes.IndexByte(whole, '\n')+1) {
		t.Fatalf("to inside the last line: %+v, end %d", msgs, end)
	}
}

// A line over the line cap is read through its first bytes once its '\n' is seen, and not at all
// while it has none.
func TestMessagesCutLine(t *testing.T) {
	long := prompt("pasted log: " + strings.Repeat("x", 3*small.lineCap))
	data := joinLines(prompt("before"), long, prompt("after"))
	msgs, end := collect(t, small, data, 0, int64(len(data)))
	if len(msgs) != 3 || msgs[0].Text != "before" || !strings.HasPrefix(msgs[1].Text, "pasted log: xxx") || msgs[2].Text != "after" {
		t.Fatalf("cut line: %d messages %+v", len(msgs), msgs)
	}
	if msgs[1].End != msgs[2].Off || end != int64(len(data)) {
		t.Errorf("cut line ends at %d, the next starts at %d; end %d", msgs[1].End, msgs[2].Off, end)
	}
	// The same line still being written: neither it nor what follows is read.
	start := int64(len(prompt("before")) + 1)
	half := data[:start+int64(2*small.lineCap)]
	msgs, end = collect(t, small, half, 0, int64(len(half)))
	if len(msgs) != 1 || end != start {
		t.Fatalf("cut line being written: %+v, end %d, want %d", msgs, end, start)
	}
	// At the end of the range, with its '\n': read.
	withNL := data[:len(prompt("before"))+1+len(long)+1]
	msgs, end = collect(t, small, withNL, 0, int64(len(withNL)))
	if len(msgs) != 2 || end != int64(len(withNL)) {
		t.Fatalf("cut line last: %d messages, end %d of %d", len(msgs), end, len(withNL))
	}
}

// Read in pieces — each reading from where the last ended, up to a length the file had at some
// moment, stopping at ticks — a generated transcript gives the messages one reading gives: what
// the index relies on to read only what was appended.
func TestMessagesInPieces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if _, err := transcripttest.WriteFile(path, transcripttest.Options{Size: 3 << 20, Boundaries: 2, Seed: 7, LongLine: 2 << 20}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, end := collect(t, defaultLimits, data, 0, int64(len(data)))
	if end != int64(len(data)) || len(whole) < 100 {
		t.Fatalf("one reading: %d messages, end %d of %d", len(whole), end, len(data))
	}
	kinds := map[MessageKind]int{}
	for _, m := range whole {
		kinds[m.Kind]++
	}
	for _, k := range []MessageKind{Typed, Said, Summarized, Ran, Edited} {
		if kinds[k] == 0 {
			t.Errorf("no message of kind %d in %v", k, kinds)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for round := range 5 {
		var pieces []got
		pos, to := int64(0), int64(0)
		for pos < int64(len(data)) {
			// The file grows: a line longer than the growth is whole only in a later piece.
			to = min(int64(len(data)), max(to, pos)+1+rnd.Int64N(512<<10))
			stopAtTick := rnd.IntN(2) == 0
			var n int64
			n, err = defaultLimits.messages(bytes.NewReader(data[:to]), pos, to, func(m *Message) bool {
				if m == nil {
					return !stopAtTick
				}
				pieces = append(pieces, gotOf(m))
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			pos = n
		}
		// A Bash result whose command was read in an earlier piece is not paired: compare without
		// the outcomes of commands that exited 0.
		if a, b := outcomesAside(whole), outcomesAside(pieces); !reflect.DeepEqual(a, b) {
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Errorf("message %d:\n whole %+v\npieces %+v", i, a[i], b[i])
					break
				}
			}
			t.Fatalf("round %d: %d messages in pieces, %d in one reading", round, len(b), len(a))
		}
	}
}

func outcomesAside(ms []got) []got {
	var out []got
	for _, m := range ms {
		if m.Kind != Outcome || m.Status != "exit 0" {
			out = append(out, m)
		}
	}
	return out
}

// A digest of a session: its prompts, edits, commands with their status, summaries, decisions.
func TestReadDigest(t *testing.T) {
	var lines []string
	for i := range 8 {
		lines = append(lines, prompt(fmt.Sprintf("request %d", i)))
	}
	lines = append(lines,
		prompt("We decided to keep ledger7 amounts as integer cents."),
		assistantToolUse, userToolResult,
		bashUse("t1", "go test ./..."), bashResult("t1", "Exit code 2\nbuild failed: undefined: Cents", true),
		bashUse("t2", "sleep 1000"),
		compactBoundary, compactSummary,
		asst("m9", `"isSidechain":false,`, `{"type":"tool_use","id":"w","name":"Write","input":{"file_path":"/home/me/proj/b.go"}}`),
		asst("m10", `"isSidechain":false,`, `{"type":"tool_use","id":"w2","name":"Edit","input":{"file_path":"/home/me/proj/src/main.go"}}`),
	)
	path := writeLines(t, lines...)
	d, ok, err := ReadDigest(path)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if d.Prompts != 9 || !reflect.DeepEqual(d.First, []string{"request 0", "request 1", "request 2"}) ||
		!reflect.DeepEqual(d.Last, []string{"request 6", "request 7", "We decided to keep ledger7 amounts as integer cents."}) {
		t.Errorf("prompts: %d %q %q", d.Prompts, d.First, d.Last)
	}
	if !reflect.DeepEqual(d.Edited, []string{"/home/me/proj/src/main.go", "/home/me/proj/b.go"}) {
		t.Errorf("edited: %q", d.Edited)
	}
	want := []Command{{Line: "go test ./...", Status: "exit 2", Output: "build failed: undefined: Cents"}, {Line: "sleep 1000", Status: "no result"}}
	if !reflect.DeepEqual(d.Commands, want) {
		t.Errorf("commands: %+v", d.Commands)
	}
	if len(d.Summaries) != 1 || !strings.HasPrefix(d.Summaries[0], "This session is being continued") {
		t.Errorf("summaries: %q", d.Summaries)
	}
	if !reflect.DeepEqual(d.Decisions, []string{"We decided to keep ledger7 amounts as integer cents."}) {
		t.Errorf("decisions: %q", d.Decisions)
	}
	if d.Cwd != "/home/me/proj" || d.Branch != "main" || d.Start == "" || d.End == "" {
		t.Errorf("cwd %q branch %q start %q end %q", d.Cwd, d.Branch, d.Start, d.End)
	}
	if _, ok, err := ReadDigest(filepath.Join(t.TempDir(), "nope.jsonl")); ok || err != nil {
		t.Errorf("missing: %v %v", ok, err)
	}
}

// Start finds the first prompt and the first cwd, past the lines that have neither.
func TestStart(t *testing.T) {
	data := joinLines(queueOp, fileSnapshot, prompt("<command-name>/clear</command-name>"), assistantText, prompt("fix the parser"), prompt("later"))
	p, cwd, err := Start(bytes.NewReader(data), int64(len(data)))
	if err != nil || p != "fix the parser" || cwd != "/home/me/proj" {
		t.Fatalf("Start: %q %q %v", p, cwd, err)
	}
	p, cwd, _ = Start(bytes.NewReader(data[:40]), 40)
	if p != "" || cwd != "" {
		t.Fatalf("Start of a torn line: %q %q", p, cwd)
	}
}

// A user line is read as one whatever other tokens it holds (an assistant's name in a field).
func TestMessagesUserLineWithAssistantToken(t *testing.T) {
	line := `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"check the assistant role"}]},"origin":"assistant","timestamp":"t"}`
	msgs, _ := collect(t, defaultLimits, joinLines(line), 0, int64(len(line)+1))
	if len(msgs) != 1 || msgs[0].Kind != Typed || msgs[0].Text != "check the assistant role" {
		t.Fatalf("%+v", msgs)
	}
}
