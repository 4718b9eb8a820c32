package transcript

import (
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Bash lines in the shapes Claude Code 2.1.332 writes (recorded against the real client in
// the e2e harness): the tool use on an assistant line, its result on a user line with a
// top-level toolUseResult — an object for a command that exited 0, an "Error: Exit code N"
// string otherwise.
func bashUse(id, cmd string) string {
	return asst("msg_"+id, `"isSidechain":false,`, `{"type":"tool_use","id":`+jsonString(id)+`,"name":"Bash","input":{"command":`+jsonString(cmd)+`,"description":"Run it"}}`)
}

func bashResult(id, content string, isError bool) string {
	extra := `"toolUseResult":{"stdout":` + jsonString(content) + `,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`
	flag := "false"
	if isError {
		flag = "true"
		extra = `"toolUseResult":` + jsonString("Error: "+content)
	}
	return `{"parentUuid":"x","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":` +
		jsonString(content) + `,"is_error":` + flag + `,"tool_use_id":` + jsonString(id) + `}]},"uuid":"u","timestamp":"t",` + extra + `}`
}

func TestForCompactionActivity(t *testing.T) {
	path := writeLines(t,
		bashUse("t0", "make old"), bashResult("t0", "Exit code 2\nold failure", true),
		compactBoundary,
		prompt("run the tests"),
		bashUse("t1", "go test ./pkg/lexer/"),
		bashResult("t1", "Exit code 1\n--- FAIL: TestParse (0.01s)\n    parse_test.go:12: want 3, got 4\nFAIL\nFAIL\texample.com/lexer\t0.01s", true),
		assistantToolUse,
		userToolResult,
		bashUse("t2", "git add -A &&\ngit commit -m 'lexer: keep state'"),
		bashResult("t2", "[main 1a2b3c4] lexer: keep state\n 1 file changed, 2 insertions(+)", false),
		bashUse("t3", "rm -rf /"),
		bashResult("t3", "<tool_use_error>Error: Permission to use Bash with command rm -rf / has been denied.</tool_use_error>", true),
		bashUse("t4", "sleep 100"), // no result yet: the compaction came first
	)
	c, err := Open(path).ForCompaction("/home/me/proj", 3, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{Line: "sleep 100", Status: "no result"},
		{Line: "rm -rf /", Status: "not run", Output: "Permission to use Bash with command rm -rf / has been denied."},
		{Line: "git add -A &&; git commit -m 'lexer: keep state'", Status: "exit 0"},
		{Line: "go test ./pkg/lexer/", Status: "exit 1", Output: "--- FAIL: TestParse (0.01s) — parse_test.go:12: want 3, got 4"},
	}
	if !reflect.DeepEqual(c.Activity.Commands, want) {
		t.Errorf("commands:\n got %#v\nwant %#v", c.Activity.Commands, want)
	}
	if c.Activity.LastError != want[3].Output {
		t.Errorf("last error %q", c.Activity.LastError)
	}
	if c.Activity.LastCommit != "1a2b3c4 lexer: keep state" {
		t.Errorf("last commit %q", c.Activity.LastCommit)
	}
	if !reflect.DeepEqual(c.Edited, []string{"src/main.go"}) {
		t.Errorf("edited %v", c.Edited)
	}
}

// More commands than the list holds: the newest are listed, the rest counted, and the last
// error is still the newest failure's even when it is past the list.
func TestActivityBounds(t *testing.T) {
	lines := []string{bashUse("f", "go vet ./..."), bashResult("f", "Exit code 1\nvet: undefined: x", true)}
	for i := range maxCommands + 3 {
		id := "ok" + itoa(i)
		lines = append(lines, bashUse(id, "echo "+itoa(i)), bashResult(id, itoa(i), false))
	}
	c, err := Open(writeLines(t, lines...)).ForCompaction("", 1, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Activity
	if len(a.Commands) != maxCommands || a.More != 4 || a.Commands[0].Line != "echo "+itoa(maxCommands+2) {
		t.Errorf("%d commands, %d more, first %+v", len(a.Commands), a.More, a.Commands[0])
	}
	if a.LastError != "vet: undefined: x" {
		t.Errorf("last error %q", a.LastError)
	}
}

// The hand-off's pass reads what came after offset from: the edits, a task tool, the commands;
// the first prompt when asked; the TodoWrite list when asked.
func TestForHandoffSince(t *testing.T) {
	first := asst("m1", "", toolUseBlock("Edit", `{"file_path":"/p/a.go"}`))
	head := writeLines(t, prompt("speed up the lexer"), compactBoundary, first)
	from := int64(len(readFile(t, head)))
	path := writeLines(t, prompt("speed up the lexer"), compactBoundary, first, asst("m2", "", toolUseBlock("Write", `{"file_path":"/p/b.go"}`)),
		bashUse("t1", "go build"), bashResult("t1", "", false),
		asst("m3", "", toolUseBlock("TodoWrite", `{"todos":[{"content":"Wire the lexer","status":"in_progress","activeForm":"Wiring"}]}`)))
	h, err := Open(path).ForHandoff("/p", from, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.Edited, []string{"b.go"}) || h.First != "speed up the lexer" {
		t.Errorf("edited %v, first %q", h.Edited, h.First)
	}
	if !h.Tasks || !h.HasTodos || len(h.Todos) != 1 || h.Todos[0].Subject != "Wire the lexer" {
		t.Errorf("tasks %v, todos %+v", h.Tasks, h.Todos)
	}
	if len(h.Activity.Commands) != 1 || h.Activity.Commands[0].Status != "exit 0" {
		t.Errorf("commands %+v", h.Activity.Commands)
	}
	if h, _ := Open(path).ForHandoff("/p", from, false, false); h.First != "" || h.HasTodos {
		t.Errorf("read what was not asked: %+v", h)
	}
}

// The commands are read within maxActivityScan of the end, so that a pass costs the same
// whatever lies before; the edits are read back to the boundary.
func TestActivityWindow(t *testing.T) {
	filler := asst("mf", "", textBlock(strings.Repeat("x", 1<<20)))
	lines := []string{bashUse("old", "make old"), bashResult("old", "Exit code 2\nold", true), asst("me", "", toolUseBlock("Edit", `{"file_path":"/p/a.go"}`))}
	for range maxActivityScan>>20 + 1 {
		lines = append(lines, filler)
	}
	lines = append(lines, bashUse("new", "make new"), bashResult("new", "", false))
	c, err := Open(writeLines(t, lines...)).ForCompaction("/p", 1, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Activity.Commands) != 1 || c.Activity.Commands[0].Line != "make new" || c.Activity.LastError != "" {
		t.Errorf("commands %+v, last error %q", c.Activity.Commands, c.Activity.LastError)
	}
	if !reflect.DeepEqual(c.Edited, []string{"a.go"}) {
		t.Errorf("edited %v", c.Edited)
	}
}

func TestPending(t *testing.T) {
	for _, c := range []struct{ text, q, next string }{
		{"Fixed the parser. Shall I run the whole suite?", "Shall I run the whole suite?", ""},
		{"Should I keep the old API? I think not.\n\nNext, I'll update the callers.", "", "Next, I'll update the callers."},
		{"Done. Which branch should this go to?\nThanks.", "Which branch should this go to?", ""},
		{"All green.", "", ""},
		{"1. Parsed the file.\n2. The next step is wiring it into main.go.", "", "The next step is wiring it into main.go."},
	} {
		q, n := Pending(c.text)
		if q != c.q || n != c.next {
			t.Errorf("Pending(%q) = %q, %q; want %q, %q", c.text, q, n, c.q, c.next)
		}
	}
}

// Ending quotes how a message ended, whatever its words: the last sentence of its prose, with the
// one before when the last says too little alone; nothing when the message ends on a bare report.
func TestEnding(t *testing.T) {
	long := "What remains is " + strings.Repeat("wiring the exporter into the command line ", 10) + "tool."
	for _, c := range []struct{ text, want string }{
		{"The parser is in place. What remains is wiring the exporter into the CLI.", "What remains is wiring the exporter into the CLI."},
		{"The exporter is the last piece to move over to the new schema. Let me know!", "The exporter is the last piece to move over to the new schema. Let me know!"},
		{"Committed.", ""},
		{"Updated 2 files.", ""},
		{"", ""},
		{"**Remaining work is the migration of the ledger tables.**", "Remaining work is the migration of the ledger tables."},
		{"Here is the fix, and the rollout is still to be scheduled with ops.\n\n```go\nfunc main() {\n\tfmt.Println(\"hi there, this is code\")\n}\n```", "Here is the fix, and the rollout is still to be scheduled with ops."},
		{"Afterwards the docs for the flag need a rewrite too.\n\n| file | status |\n|---|---|\n| a.go | done and checked twice |", "Afterwards the docs for the flag need a rewrite too."},
		{"Line one is here.\r\nThen the exporter still needs its retry budget wired.", "Then the exporter still needs its retry budget wired."},
	} {
		if got := Ending(c.text); got != c.want {
			t.Errorf("Ending(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	if got := Ending(long); len([]rune(got)) > maxEndingRunes || !strings.HasPrefix(got, "What remains is wiring") || !strings.HasSuffix(got, "…") {
		t.Errorf("Ending(long) = %q: want it cut at a word to at most %d runes", got, maxEndingRunes)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Decisions stated in a prompt or in Claude's text since the boundary are kept, most recent
// first; one stated before the boundary, or in a tool's output, is not.
func TestActivityDecisions(t *testing.T) {
	path := writeLines(t,
		prompt("We decided to keep SQLite."),
		compactBoundary,
		prompt("Decision: the cache stays in memory. Now wire it."),
		asst("m1", "", textBlock("Understood. We'll go with a mutex because the map is shared; I will build on that.")),
		bashUse("t1", "grep -r decided ."), bashResult("t1", "notes.md: we decided nothing", false),
		prompt("ok"),
	)
	c, err := Open(path).ForCompaction("", 1, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"We'll go with a mutex because the map is shared; I will build on that.", "Decision: the cache stays in memory."}
	if !reflect.DeepEqual(c.Activity.Decisions, want) {
		t.Errorf("decisions %q, want %q", c.Activity.Decisions, want)
	}
}

func TestCommitLine(t *testing.T) {
	for out, want := range map[string]string{
		"[main 1a2b3c4] lexer: keep state\n 1 file changed":      "1a2b3c4 lexer: keep state",
		"[main (root-commit) 0f0f0f0] first":                     "0f0f0f0 first",
		"[feature/x 1234567890abcdef1234567890abcdef12345678] y": "1234567890abcdef1234567890abcdef12345678 y",
		"[main xyz1234] not a sha":                               "",
		"[INFO] build ok":                                        "",
		"nothing to commit, working tree clean":                  "",
	} {
		if got := commitLine(out); got != want {
			t.Errorf("commitLine(%q) = %q, want %q", out, got, want)
		}
	}
}

// A line that answers several commands gives each its own status; a result too long to read
// whole is said to be so, not taken for a success; a tool use without an id takes no one's
// result; the last commit line is git's own, after a hook's look-alike; a cut is at a word.
func TestActivityEdgeCases(t *testing.T) {
	multi := `{"type":"user","message":{"role":"user","content":[` +
		`{"type":"tool_result","content":"a b","is_error":false,"tool_use_id":"m1"},` +
		`{"type":"tool_result","content":"Exit code 2\nerror y","is_error":true,"tool_use_id":"m2"}]}}`
	lim := small
	lim.lineCap = 4096
	long := bashResult("big", "Exit code 1\n"+strings.Repeat("z ", 4000)+"FAIL", true)
	path := writeLines(t,
		asst("a1", "", `{"type":"tool_use","id":"m1","name":"Bash","input":{"command":"ls"}}`, `{"type":"tool_use","id":"m2","name":"Bash","input":{"command":"make"}}`), multi,
		bashUse("big", "go test ./..."), long,
		asst("a2", "", `{"type":"tool_use","name":"Bash","input":{"command":"no id"}}`),
		bashResult("", "Exit code 3\nnot mine", true),
		bashUse("c1", "git commit -m x"), bashResult("c1", "[main deadbee] Security review approved\n[main 1a2b3c4] lexer: keep state\n 1 file changed", false),
	)
	var act *Activity
	_, err := withFile(path, func(r io.ReaderAt, size int64) error {
		seg, err := lim.sinceAt(r, size, "", 0, 0, false, newActivityScan(r, lim))
		act = seg.act
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range act.Commands {
		got[c.Line] = c.Status
	}
	want := map[string]string{"ls": "exit 0", "make": "exit 2", "go test ./...": "result too long", "git commit -m x": "exit 0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if act.LastCommit != "1a2b3c4 lexer: keep state" || act.LastError != "error y" {
		t.Errorf("last commit %q, last error %q", act.LastCommit, act.LastError)
	}
	if s := oneLine("a b "+strings.Repeat("c", 20), 10); s != "a b …" {
		t.Errorf("oneLine cut %q", s)
	}
}

// A failed command keeps the line of its output that says what went wrong, whatever prints it:
// not a banner, a count of results or a test's or package's status line.
func TestTelling(t *testing.T) {
	for _, c := range []struct{ name, out, want string }{
		{"go test", "--- FAIL: TestParse (0.01s)\n    parse_test.go:12: want 3, got 4\nFAIL\nFAIL\texample.com/lexer\t0.01s\nFAIL",
			"--- FAIL: TestParse (0.01s) — parse_test.go:12: want 3, got 4"},
		{"go build", "# example.com/lexer [example.com/lexer.test]\nlexer/scan.go:41:9: undefined: roundCents\nFAIL\texample.com/lexer [build failed]\nFAIL",
			"lexer/scan.go:41:9: undefined: roundCents"},
		{"pytest", "..F.                       [100%]\n=================== FAILURES ===================\n___________ test_total ___________\n\n    def test_total():\n>       assert total(rows) == 7\nE       assert 6 == 7\n\ntests/test_ledger.py:9: AssertionError\n========= short test summary info =========\nFAILED tests/test_ledger.py::test_total - assert 6 == 7\n1 failed, 3 passed in 0.12s",
			"FAILED tests/test_ledger.py::test_total - assert 6 == 7"},
		{"cargo test", "running 2 tests\ntest tests::total ... FAILED\ntest tests::parse ... ok\n\nfailures:\n\n---- tests::total stdout ----\n\nthread 'tests::total' panicked at src/lib.rs:9:5:\nassertion `left == right` failed\n  left: 6\n right: 7\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `--lib`",
			"thread 'tests::total' panicked at src/lib.rs:9:5: — assertion `left == right` failed"},
		{"python unittest", "test_total (tests.test_ledger.T.test_total) ... FAIL\n\n======================================================================\nFAIL: test_total (tests.test_ledger.T.test_total)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/src/tests/test_ledger.py\", line 9, in test_total\n    self.assertEqual(total(rows), 7)\nAssertionError: 6 != 7\n\n----------------------------------------------------------------------\nRan 1 test in 0.001s\n\nFAILED (failures=1)",
			"AssertionError: 6 != 7"},
		{"python script", "Traceback (most recent call last):\n  File \"import.py\", line 3, in <module>\n    rows[\"total\"]\nKeyError: 'total'", "KeyError: 'total'"},
		{"ExUnit", "..\n\n  1) test total keeps the sign (Ledger.TotalTest)\n     test/ledger/total_test.exs:9\n     ledger total of 12 rows\n     code:  assert Ledger.total(rows) == 7\n\n.\nFinished in 0.04 seconds (0.00s async, 0.04s sync)\n4 tests, 1 failure\n\nRandomized with seed 412093",
			"1) test total keeps the sign (Ledger.TotalTest) — ledger total of 12 rows"},
		{"make", "cc -c main.c\nmain.c:3:1: error: expected ';' before '}' token\nmake: *** [Makefile:2: main.o] Error 1", "main.c:3:1: error: expected ';' before '}' token"},
		{"nothing named", "\nsome output\nlast words\n", "last words"},
	} {
		if got := telling(c.out); got != c.want {
			t.Errorf("%s: telling = %q, want %q", c.name, got, c.want)
		}
	}
}

// mayDecide is mayDecideMarked with the line's own walk.
func mayDecide(b []byte) bool {
	var m lineMarks
	return mayDecideMarked(b, m.of(b))
}

// mayDecide, the byte test that spares a line the parse, lets through every line that may state a
// decision: a prompt or a text with every word and form statesDecision reads, at a sentence's
// start (capitalised) too; not a tool use that holds them.
func TestMayDecideAdmitsEveryForm(t *testing.T) {
	forms := append([]string{"stick with x", "going forward, x", "x from here on", "settled: x", "final call: x",
		"let's x; y", "let us x; y", "make it x; y", "let’s x; y"}, decisionWords...)
	for _, f := range forms {
		for _, s := range []string{f, strings.ToUpper(f[:1]) + f[1:]} {
			if !mayDecide([]byte(`{"type":"user","message":{"content":"`+s+`"}}`)) || !mayDecide([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"`+s+`"}]}}`)) {
				t.Errorf("mayDecide passes over %q", s)
			}
		}
	}
	if mayDecide([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"content":"We decided to keep SQLite."}}]}}`)) {
		t.Error("mayDecide lets through a tool use")
	}
}

// With a bound, ForCompaction looks for the files edited since the last boundary in the last
// bound bytes only, and says when the boundary lay further back (EditsCut): a compaction whose
// session's claims name the files further back reads the same few MiB whatever was written since
// the last compaction. Without one, or when the boundary is within it, the answer is the whole
// stretch's, as before.
func TestForCompactionBound(t *testing.T) {
	edit := func(path string) string {
		return asst("m-"+path, "", toolUseBlock("Edit", `{"file_path":"/p/`+path+`"}`))
	}
	filler := asst("big", "", textBlock(strings.Repeat("x", 64<<10)))
	lines := []string{compactBoundary, compactSummary, edit("early.go")}
	for range 40 {
		lines = append(lines, filler)
	}
	lines = append(lines, edit("late.go"))
	path := writeLines(t, lines...)
	whole, err := Open(path).ForCompaction("/p", 1, false, 0)
	if err != nil || whole.EditsCut || !slices.Equal(whole.Edited, []string{"late.go", "early.go"}) {
		t.Fatalf("without a bound: %q cut=%v %v", whole.Edited, whole.EditsCut, err)
	}
	cut, err := Open(path).ForCompaction("/p", 1, false, 256<<10)
	if err != nil || !cut.EditsCut || !slices.Equal(cut.Edited, []string{"late.go"}) {
		t.Fatalf("bounded at 256 KiB: %q cut=%v %v", cut.Edited, cut.EditsCut, err)
	}
	near, err := Open(path).ForCompaction("/p", 1, false, 64<<20)
	if err != nil || near.EditsCut || !slices.Equal(near.Edited, whole.Edited) {
		t.Fatalf("a bound past the boundary: %q cut=%v %v", near.Edited, near.EditsCut, err)
	}
}

// What the session record reads is one line whatever ends Claude's lines: a lone carriage
// return, which plain.Text reads as a newline, was kept inside the line oneLine made, and came
// back as a newline in the question, the next step or a decision.
func TestOneLineEndsNoLineWithACarriageReturn(t *testing.T) {
	q, _ := Pending("0\r?")
	_, next := Pending("Next steps:\n- [ ] rename the flag\rand ship")
	got := append([]string{q, next, oneLine("a\rb\r\nc", 100)}, Decided("We decided to keep cents\rfor now.")...)
	for _, v := range got {
		if strings.ContainsAny(v, "\r\n") {
			t.Errorf("not one line: %q", v)
		}
	}
}

// A plan under a label written as a heading or in bold ("## Next steps:", "**Next steps:**") is
// read as one under the bare label: the label's markup is not part of its words.
func TestPlanStepUnderAMarkedLabel(t *testing.T) {
	for _, label := range []string{"Next steps:", "## Next steps:", "**Next steps:**", "### Remaining:", "> Next steps:"} {
		if got := planStep("Done with the lexer.\n\n" + label + "\n- Wire the parser into the CLI.\n- Update the docs."); got != "Wire the parser into the CLI." {
			t.Errorf("under %q: %q", label, got)
		}
	}
	// A list item that ends with a colon is still an item, not a label.
	if got := planStep("Done.\n\n- Plan:\n- ship it"); got != "" {
		t.Errorf("an item as a label: %q", got)
	}
}

// The checklist a plan is read from is the one the message ends with: one earlier in the message
// (a status Claude gave before saying what it does next, or a checklist it quoted from a file,
// such as an issue template) is not what comes next.
func TestPlanStepOnlyFromTheClosingChecklist(t *testing.T) {
	for _, c := range []struct{ text, next string }{
		{"Status:\n- [x] parse\n- [ ] validate\n\nI validated the rows too. Next, I'll write the report.", "write the report"},
		{"The issue template has:\n- [ ] I searched existing issues\n\nAll done; nothing left.", ""},
		{"Progress so far:\n- [x] Parse the header\n- [ ] Validate the rows\n- [ ] Write the report\n\n", "Validate the rows"},
	} {
		if _, next := Pending(c.text); !strings.Contains(next, c.next) || c.next == "" && next != "" {
			t.Errorf("Pending(%q): next %q, want %q", c.text, next, c.next)
		}
	}
}
