package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// both runs a case with the package's limits and with small ones.
func both(t *testing.T, f func(t *testing.T, lim limits)) {
	t.Run("default", func(t *testing.T) { f(t, defaultLimits) })
	t.Run("small", func(t *testing.T) { f(t, small) })
}

func TestLastAssistantText(t *testing.T) {
	for _, c := range []struct {
		name    string
		content string // used when lines is nil
		lines   []string
		want    string
	}{
		{name: "one line", lines: []string{prompt("hi"), asst("m1", "", textBlock("hello"))}, want: "hello"},
		{name: "real shapes", lines: []string{fileSnapshot, assistantToolUse, userToolResult, assistantText},
			want: "Done — «naïve» \"quoted\" \\ and\na newline. Shall I run the tests?"},
		{name: "thinking and tool_use left out", lines: []string{
			asst("m1", "", thinkingBlock), asst("m1", "", textBlock("checking")), asst("m1", "", toolUseBlock("Bash", `{"command":"ls"}`)),
		}, want: "checking"},
		{name: "one message over lines with others between", lines: []string{
			asst("m1", "", textBlock("old")), toolResult("r0"),
			asst("m2", "", textBlock("part one")), asst("m2", "", toolUseBlock("Read", `{"file_path":"/a"}`)),
			toolResult("r1"), hookSuccess, `{"type":"progress","data":{}}`, asst("m2", "", textBlock("part two")),
		}, want: "part one\n\npart two"},
		{name: "two text blocks on a line", lines: []string{asst("m1", "", textBlock("a"), toolUseBlock("Bash", "{}"), textBlock("b"))}, want: "a\n\nb"},
		{name: "earlier message not included", lines: []string{asst("m1", "", textBlock("old")), asst("m2", "", textBlock("new"))}, want: "new"},
		{name: "sidechain skipped", lines: []string{asst("m1", "", textBlock("main")), asst("m9", `"isSidechain":true,`, textBlock("sub"))}, want: "main"},
		{name: "synthetic skipped", lines: []string{
			asst("m1", "", textBlock("real")),
			`{"type":"assistant","message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]}}`,
			`{"type":"assistant","isApiErrorMessage":true,"message":{"id":"y","model":"claude","role":"assistant","content":[{"type":"text","text":"API Error: 529"}]}}`,
		}, want: "real"},
		{name: "last message has no text", lines: []string{asst("m1", "", textBlock("old")), asst("m2", "", toolUseBlock("Bash", "{}"))}, want: ""},
		{name: "no id: only the last line", lines: []string{asst("", "", textBlock("a")), asst("", "", textBlock("b"))}, want: "b"},
		{name: "string content", lines: []string{`{"type":"assistant","message":{"id":"m","role":"assistant","content":"plain"}}`}, want: "plain"},
		{name: "a prompt ends the message", lines: []string{asst("m1", "", textBlock("before")), prompt("go on"), asst("m1", "", textBlock("after"))}, want: "after"},
		{name: "a boundary ends the message", lines: []string{asst("m1", "", textBlock("before")), compactBoundary, asst("m1", "", textBlock("after"))}, want: "after"},
		{name: "no assistant", lines: []string{prompt("hi"), queueOp, fileSnapshot}, want: ""},
		{name: "unknown types and fields", lines: []string{
			asst("m1", `"brandNew":{"x":[1,2]},`, textBlock("kept")), `{"type":"ai-title","aiTitle":"t"}`, `{"type":"pr-link","url":"u"}`, `{"no":"type"}`, `[1,2,3]`, `"str"`,
		}, want: "kept"},
		{name: "partial last line", content: asst("m1", "", textBlock("complete")) + "\n" + asst("m2", "", textBlock("being writ"))[:60], want: "complete"},
		{name: "complete last line without newline", content: asst("m1", "", textBlock("old")) + "\n" + asst("m2", "", textBlock("new")), want: "new"},
		{name: "garbage lines", content: "\x00\xff garbage\n{not json\n" + asst("m1", "", textBlock("ok")) + "\n}}}\n\n\n", want: "ok"},
		{name: "CRLF", content: prompt("hi") + "\r\n" + asst("m1", "", textBlock("crlf")) + "\r\n", want: "crlf"},
		{name: "invalid UTF-8 replaced", content: asst("m1", "", `{"type":"text","text":"bad `+"\xff\xfe"+` bytes"}`) + "\n", want: "bad \uFFFD bytes"},
		{name: "empty file", content: "", want: ""},
		{name: "only newlines", content: "\n\n\r\n", want: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			both(t, func(t *testing.T, lim limits) {
				path := ""
				if c.lines != nil {
					path = writeLines(t, c.lines...)
				} else {
					path = writeRaw(t, c.content)
				}
				got, err := lim.lastAssistantText(path)
				if err != nil || got != c.want {
					t.Errorf("got %q, %v; want %q", got, err, c.want)
				}
			})
		})
	}
}

func TestMissingAndDirectory(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.jsonl")
	if s, err := LastAssistantText(missing); s != "" || err != nil {
		t.Errorf("LastAssistantText(missing) = %q, %v", s, err)
	}
	if p, err := LastUserPrompts(missing, 3); p != nil || err != nil {
		t.Errorf("LastUserPrompts(missing) = %q, %v", p, err)
	}
	if _, found, err := Open(missing).LastBoundary(); found || err != nil {
		t.Errorf("Open(missing).LastBoundary() = %v, %v", found, err)
	}
	if n, err := Open(missing).CompactionsAfter(0); n != 0 || err != nil {
		t.Errorf("CompactionsAfter(missing) = %v, %v", n, err)
	}
	if f, err := EditedFilesSinceBoundary(missing, dir); f != nil || err != nil {
		t.Errorf("EditedFilesSinceBoundary(missing) = %q, %v", f, err)
	}
	if ts, found, err := LastTodos(missing); ts != nil || found || err != nil {
		t.Errorf("LastTodos(missing) = %v, %v, %v", ts, found, err)
	}
	if r, err := HookRuns(missing, 1<<20); r != nil || err != nil {
		t.Errorf("HookRuns(missing) = %v, %v", r, err)
	}

	_, err1 := LastAssistantText(dir)
	_, err2 := LastUserPrompts(dir, 1)
	_, _, err3 := Open(dir).LastBoundary()
	_, err4 := Open(dir).CompactionsAfter(0)
	_, err5 := EditedFilesSinceBoundary(dir, dir)
	_, _, err6 := LastTodos(dir)
	_, err7 := HookRuns(dir, 100)
	for i, err := range []error{err1, err2, err3, err4, err5, err6, err7} {
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("function %d on a directory: err %v, want ErrNotRegular", i+1, err)
		}
	}
}

func TestLastUserPrompts(t *testing.T) {
	lines := []string{
		prompt("first"),
		compactBoundary, compactSummary,
		promptBlocks(textBlock("<ide_selection>lines 1-3</ide_selection>"), textBlock("second, as blocks"), `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}`),
		asst("m1", "", textBlock("answer")),
		toolResult("not typed"),
		promptBlocks(textBlock("text beside a result"), `{"tool_use_id":"t","type":"tool_result","content":"x"}`),
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"meta"}}`,
		`{"type":"user","isSidechain":true,"message":{"role":"user","content":"subagent prompt"}}`,
		prompt("<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"),
		prompt("<local-command-stdout></local-command-stdout>"),
		prompt("  <bash-input>ls</bash-input>"),
		promptBlocks(textBlock("[Request interrupted by user for tool use]")),
		prompt("   \n  "),
		promptBlocks(`{"type":"image","source":{}}`),
		prompt("third <command-name> in the middle is fine"),
		promptBlocks(textBlock("<ide_opened_file>The user opened x.go</ide_opened_file>")),
		hookSuccess,
		prompt("fourth\r\nwith CRLF inside"),
	}
	all := []string{"fourth\nwith CRLF inside", "third <command-name> in the middle is fine", "second, as blocks", "first"}
	path := writeLines(t, lines...)
	for n := 0; n <= 6; n++ {
		both(t, func(t *testing.T, lim limits) {
			got, err := lim.lastUserPrompts(path, n)
			want := all[:min(n, len(all))]
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("n=%d: %q, %v; want %q", n, got, err, want)
			}
		})
	}
	if got, err := LastUserPrompts(path, -1); got != nil || err != nil {
		t.Errorf("n=-1: %q, %v", got, err)
	}
}

func TestLastBoundaryAndCompactionsAfter(t *testing.T) {
	pre := []string{prompt("one"), asst("m1", "", textBlock("a"))}
	post := []string{prompt("two"), asst("m2", "", textBlock("b"))}
	offsetOf := func(lines []string, i int) int64 {
		var n int64
		for _, l := range lines[:i] {
			n += int64(len(l)) + 1
		}
		return n
	}
	mention := prompt(`what does "compact_boundary" or "isCompactSummary":true mean?`)
	sideBoundary := `{"type":"system","subtype":"compact_boundary","isSidechain":true}`
	for _, c := range []struct {
		name  string
		lines []string
		at    int // index of the expected boundary line, -1 for none
	}{
		{"none", slices.Concat(pre, post), -1},
		{"boundary and summary: the summary", slices.Concat(pre, []string{compactBoundary, compactSummary}, post), 3},
		{"boundary alone", slices.Concat(pre, []string{compactBoundary}, post), 2},
		{"summary alone", slices.Concat(pre, []string{compactSummary}, post), 2},
		{"the last of two", slices.Concat([]string{compactBoundary, compactSummary}, pre, []string{compactBoundary, compactSummary}, post), 5},
		{"a mention is not a boundary", slices.Concat(pre, []string{mention}, post), -1},
		{"a sidechain boundary is not ours", slices.Concat(pre, []string{sideBoundary}, post), -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeLines(t, c.lines...)
			off, found, err := Open(path).LastBoundary()
			if err != nil || found != (c.at >= 0) || found && off != offsetOf(c.lines, c.at) {
				t.Errorf("LastBoundary = %d, %v, %v; want line %d", off, found, err, c.at)
			}
			if c.at < 0 {
				return
			}
			b := offsetOf(c.lines, c.at)
			for _, o := range []struct {
				from int64
				want bool
			}{{0, true}, {b, true}, {b + 1, false}, {1 << 40, false}, {-5, true}} {
				n, err := Open(path).CompactionsAfter(o.from)
				got := n > 0
				if err != nil || got != o.want {
					t.Errorf("CompactionsAfter(%d) > 0 = %v, %v; want %v", o.from, got, err, o.want)
				}
			}
		})
	}
}

func TestEditedFilesSinceBoundary(t *testing.T) {
	root := filepath.FromSlash("/home/me/proj")
	edit := func(name, key, path string) string {
		return asst("m", "", toolUseBlock(name, `{`+jsonString(key)+`:`+jsonString(path)+`,"old_string":"a","new_string":"b"}`))
	}
	before := []string{edit("Edit", "file_path", "/home/me/proj/old.go"), prompt("x")}
	after := []string{
		edit("Edit", "file_path", "/home/me/proj/a.go"),
		edit("Write", "file_path", "/home/me/proj/dir/b.go"),
		toolResult(`{"type":"tool_use","name":"Edit","input":{"file_path":"/home/me/proj/fake.go"}}`),
		promptBlocks(textBlock(`"tool_use" Edit" /home/me/proj/typed.go`)),
		edit("Read", "file_path", "/home/me/proj/read.go"),
		edit("NotebookEdit", "notebook_path", "/home/me/proj/nb.ipynb"),
		edit("MultiEdit", "file_path", "/etc/hosts"),
		edit("Edit", "file_path", "/home/me/project2/x.go"),
		edit("Edit", "file_path", "/home/me/proj/a.go"),
		asst("m", `"isSidechain":true,`, toolUseBlock("Write", `{"file_path":"/home/me/proj/sub.go","content":"x"}`)),
		asst("m", "", toolUseBlock("Edit", `{"old_string":"no path"}`), toolUseBlock("Edit", `{"file_path":"rel/c.go"}`)),
		asst("m", "", toolUseBlock("Edit", `{"file_path":"/home/me/proj/./dir/../d.go"}`)),
	}
	want := []string{"d.go", "rel/c.go", "sub.go", "a.go", "/home/me/project2/x.go", "/etc/hosts", "nb.ipynb", "dir/b.go"}

	both(t, func(t *testing.T, lim limits) {
		path := writeLines(t, slices.Concat(before, []string{compactBoundary, compactSummary}, after)...)
		got, err := lim.editedFilesSinceBoundary(path, root)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("after a boundary:\n got %q, %v\nwant %q", got, err, want)
		}
		got, err = lim.editedFilesSinceBoundary(path, root+string(filepath.Separator))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("root with a trailing separator:\n got %q, %v\nwant %q", got, err, want)
		}
		path = writeLines(t, slices.Concat(before, after)...)
		got, err = lim.editedFilesSinceBoundary(path, root)
		if wantAll := append(slices.Clone(want), "old.go"); err != nil || !slices.Equal(got, wantAll) {
			t.Errorf("no boundary:\n got %q, %v\nwant %q", got, err, wantAll)
		}
		got, err = lim.editedFilesSinceBoundary(path, "")
		if err != nil || len(got) == 0 || got[0] != "/home/me/proj/d.go" {
			t.Errorf("no root: %q, %v; want absolute paths", got, err)
		}
	})
}

func TestLastTodos(t *testing.T) {
	todo := func(list string) string { return asst("m", "", toolUseBlock("TodoWrite", `{"todos":`+list+`}`)) }
	first := todo(`[{"content":"old","status":"completed","activeForm":"Olding"}]`)
	last := todo(`[{"content":"Fix the bug","status":"in_progress","activeForm":"Fixing the bug"},{"content":"Write tests","status":"pending","activeForm":"Writing tests","id":"t-7"}]`)
	want := []Todo{
		{ID: "1", Subject: "Fix the bug", Status: "in_progress"},
		{ID: "t-7", Subject: "Write tests", Status: "pending"},
	}
	both(t, func(t *testing.T, lim limits) {
		path := writeLines(t, first, prompt("TodoWrite mentioned"), last, asst("m", `"isSidechain":true,`, toolUseBlock("TodoWrite", `{"todos":[]}`)), prompt("x"))
		got, found, err := lim.lastTodos(path)
		if err != nil || !found || !slices.Equal(got, want) {
			t.Errorf("got %+v, %v, %v; want %+v", got, found, err, want)
		}
		path = writeLines(t, prompt("x"), todo(`[]`))
		if got, found, err := lim.lastTodos(path); err != nil || !found || len(got) != 0 {
			t.Errorf("empty list: %+v, %v, %v; want found and empty", got, found, err)
		}
		path = writeLines(t, prompt("x"), assistantText)
		if got, found, err := lim.lastTodos(path); err != nil || found || got != nil {
			t.Errorf("no TodoWrite: %+v, %v, %v", got, found, err)
		}
	})
}

// A line longer than the line cap is read through its prefix: its text is truncated, the tool
// and file it names are still seen, and a long tool result is stepped over.
func TestLongLines(t *testing.T) {
	lim := limits{minWindow: 64, lineCap: 512}
	long := strings.Repeat("long text é ", 200) // 2.4 KB
	lines := []string{
		prompt("before"),
		asst("m1", "", toolUseBlock("Write", `{"file_path":"/r/big.go","content":`+jsonString(long)+`}`)),
		toolResult(long + long),
		prompt("a long prompt: " + long),
		asst("m2", "", textBlock("start "+long+" end?")),
	}
	path := writeLines(t, lines...)
	text, err := lim.lastAssistantText(path)
	if err != nil || !strings.HasPrefix(text, "start long text") || len(text) > lim.lineCap || strings.HasSuffix(text, "end?") {
		t.Errorf("LastAssistantText = %q, %v; want a truncated prefix", text, err)
	}
	prompts, err := lim.lastUserPrompts(path, 2)
	if err != nil || len(prompts) != 2 || !strings.HasPrefix(prompts[0], "a long prompt: long text") || prompts[1] != "before" {
		t.Errorf("LastUserPrompts = %q, %v", prompts, err)
	}
	files, err := lim.editedFilesSinceBoundary(path, "/r")
	if err != nil || !slices.Equal(files, []string{"big.go"}) {
		t.Errorf("EditedFilesSinceBoundary = %q, %v", files, err)
	}
	// A long line still being written (no newline) does not break the scan.
	path = writeRaw(t, prompt("done")+"\n"+toolResult(long)[:1500])
	if p, err := lim.lastUserPrompts(path, 1); err != nil || len(p) != 1 || p[0] != "done" {
		t.Errorf("long partial tail: %q, %v", p, err)
	}
}

// The budget makes a "last" question give up on a huge file without an answer.
func TestBudget(t *testing.T) {
	lines := []string{prompt("far away")}
	for range 2000 {
		lines = append(lines, toolResult(strings.Repeat("x", 100)))
	}
	path := writeLines(t, lines...)
	lim := limits{minWindow: 1 << 10, lineCap: 4 << 10, maxBackScan: 64 << 10}
	got, err := lim.lastUserPrompts(path, 1)
	if err != nil || len(got) != 0 {
		t.Errorf("with a budget: %q, %v; want nothing", got, err)
	}
	lim.maxBackScan = 0
	got, err = lim.lastUserPrompts(path, 1)
	if err != nil || !slices.Equal(got, []string{"far away"}) {
		t.Errorf("without a budget: %q, %v", got, err)
	}
}

func TestRelTo(t *testing.T) {
	if filepath.Separator != '/' {
		t.Skip("paths below are Unix paths")
	}
	for _, c := range []struct{ root, path, want string }{
		{"/r", "/r/a.go", "a.go"},
		{"/r/", "/r/a/b.go", "a/b.go"},
		{"/r", "/r", "."},
		{"/r", "/rr/a.go", "/rr/a.go"},
		{"/r", "/r/../x", "/x"},
		{"/r", "/x/../r/y", "y"},
		{"/r", "..a/b", "..a/b"},
		{"", "/r/a.go", "/r/a.go"},
		{"/r", "rel/a.go", "rel/a.go"},
	} {
		if got := relTo(c.root, c.path); got != c.want {
			t.Errorf("relTo(%q, %q) = %q, want %q", c.root, c.path, got, c.want)
		}
	}
}

func TestHookRuns(t *testing.T) {
	blocking := `{"type":"attachment","attachment":{"type":"hook_blocking_error","hookName":"Stop","hookEvent":"Stop","blockingError":{"blockingError":"no","command":"gate.sh"}}}`
	addCtx := `{"type":"attachment","attachment":{"type":"hook_additional_context","hookName":"SessionStart","hookEvent":"SessionStart","content":["ctx"],"command":null}}`
	noEvent := `{"type":"attachment","attachment":{"type":"hook_success","hookName":"SessionStart:compact","command":"x","durationMs":"oops"}}`
	other := `{"type":"attachment","attachment":{"type":"skill_listing","content":"hook_success"}}`
	stopSummary := `{"type":"system","subtype":"stop_hook_summary","hookInfos":[{"command":"notify.sh","durationMs":17}]}`
	lines := []string{hookSuccess, prompt("hook_success"), addCtx, other, stopSummary, blocking, noEvent, hookCancelled}
	want := []HookRun{
		{Event: "PreToolUse", HookName: "PreToolUse:Bash", Command: "/Users/me/.claude/hooks/rtk-rewrite.sh", Outcome: "success", DurationMs: 31, Timestamp: "2026-07-11T19:42:19.128Z"},
		{Event: "Stop", HookName: "Stop", Command: "gate.sh", Outcome: "blocking_error", DurationMs: -1},
		{Event: "SessionStart", HookName: "SessionStart:compact", Command: "x", Outcome: "success", DurationMs: -1},
		{Event: "PreToolUse", HookName: "PreToolUse:AskUserQuestion", Command: "node /Users/user/hook.mjs", Outcome: "cancelled", DurationMs: 60056, TimedOut: true, Timestamp: "2026-10-02T03:12:29.860Z"},
	}
	path := writeLines(t, lines...)
	both(t, func(t *testing.T, lim limits) {
		got, err := lim.hookRuns(path, 1<<30)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("all:\n got %+v, %v\nwant %+v", got, err, want)
		}
		// Starting inside the last line but one skips that line.
		fi, _ := os.Stat(path)
		n := int64(len(hookCancelled)+1) + 10
		got, err = lim.hookRuns(path, n)
		if err != nil || !slices.Equal(got, want[3:]) {
			t.Errorf("last %d bytes: %+v, %v; want only the last run", n, got, err)
		}
		got, err = lim.hookRuns(path, fi.Size()-1)
		if err != nil || !slices.Equal(got, want[1:]) {
			t.Errorf("all but the first byte: %+v, %v", got, err)
		}
		if got, err := lim.hookRuns(path, 0); got != nil || err != nil {
			t.Errorf("maxBytes 0: %v, %v", got, err)
		}
	})
}

func TestHookRunsBounded(t *testing.T) {
	var sb strings.Builder
	for i := range maxHookRuns + 5 {
		fmt.Fprintf(&sb, `{"type":"attachment","attachment":{"type":"hook_success","hookName":"H","command":"c","durationMs":%d}}`+"\n", i)
	}
	path := writeRaw(t, sb.String())
	got, err := HookRuns(path, 1<<30)
	if err != nil || len(got) != maxHookRuns || got[0].DurationMs != 5 || got[len(got)-1].DurationMs != maxHookRuns+4 {
		t.Errorf("got %d runs (first %+v), %v; want the last %d", len(got), got[0], err, maxHookRuns)
	}
}

func TestCompactionsAfter(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	turn := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n"
	boundary := `{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}` + "\n" +
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}` + "\n"
	content := turn + boundary + turn + boundary + turn
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	second := int64(len(turn + boundary + turn))
	for off, want := range map[int64]int{0: 2, int64(len(turn)): 2, int64(len(turn)) + 1: 1, second: 1, int64(len(content)): 0} {
		if got, err := Open(p).CompactionsAfter(off); err != nil || got != want {
			t.Errorf("CompactionsAfter(%d) = %d, %v; want %d", off, got, err, want)
		}
	}
	old := filepath.Join(dir, "old.jsonl")
	os.WriteFile(old, []byte(turn+`{"type":"user","isCompactSummary":true,"message":{"content":"s"}}`+"\n"+turn), 0o644)
	if got, _ := Open(old).CompactionsAfter(0); got != 1 {
		t.Errorf("summary-only transcript: %d", got)
	}
	if got, err := Open(filepath.Join(dir, "missing")).CompactionsAfter(0); got != 0 || err != nil {
		t.Errorf("missing: %d %v", got, err)
	}
}

func TestEndsWithCompaction(t *testing.T) {
	dir := t.TempDir()
	turn := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n"
	boundary := `{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}` + "\n" +
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}` + "\n"
	for content, want := range map[string]bool{
		"":                              false,
		turn:                            false,
		turn + boundary:                 true,
		turn + boundary + `{"type":"us`: true, // a line still being written
		turn + boundary + turn:          false,
	} {
		p := filepath.Join(dir, "t.jsonl")
		os.WriteFile(p, []byte(content), 0o644)
		if got, err := Open(p).EndsWithCompaction(); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", content, got, err, want)
		}
	}
}

func TestAnsweredSinceCompaction(t *testing.T) {
	dir := t.TempDir()
	prompt := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n"
	answer := `{"type":"assistant","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"ok"}]}}` + "\n"
	synthetic := `{"type":"assistant","message":{"role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}` + "\n"
	side := `{"type":"assistant","isSidechain":true,"message":{"role":"assistant","model":"m","content":[]}}` + "\n"
	boundary := `{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual"}}` + "\n" +
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}` + "\n"
	for content, want := range map[string]bool{
		"":                                  false,
		prompt + answer:                     true, // never compacted: answered at all
		prompt + answer + boundary:          false,
		prompt + answer + boundary + prompt: false,
		prompt + boundary + synthetic:       false,
		prompt + boundary + side:            false,
		prompt + boundary + prompt + answer: true,
	} {
		p := filepath.Join(dir, "t.jsonl")
		os.WriteFile(p, []byte(content), 0o644)
		if got, err := Open(p).AnsweredSinceCompaction(); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", content, got, err, want)
		}
	}
}

// A File is one descriptor and one reading back: the compaction questions, asked in turn,
// answer about the transcript as it was opened — a transcript replaced after the first question
// is not read — and each answers as it would on a fresh handle.
func TestFileOneReadingBack(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"start"}}`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}`,
		`{"type":"user","message":{"role":"user","content":"next"}}`,
		`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"done"}]}}`,
	}
	path := writeLines(t, lines...)
	first := int64(len(lines[0]) + 1)
	fresh := func() (int, bool, bool, int64) {
		f := Open(path)
		defer f.Close()
		n, _ := f.CompactionsAfter(first)
		ends, _ := f.EndsWithCompaction()
		ans, _ := f.AnsweredSinceCompaction()
		off, _, _ := f.LastBoundary()
		return n, ends, ans, off
	}
	wantN, wantEnds, wantAns, wantOff := fresh()
	if wantN != 1 || wantEnds || !wantAns || wantOff != first+int64(len(lines[1])+1) {
		t.Fatalf("fresh answers: %d %v %v %d", wantN, wantEnds, wantAns, wantOff)
	}
	f := Open(path)
	defer f.Close()
	if ans, err := f.AnsweredSinceCompaction(); err != nil || ans != wantAns {
		t.Fatalf("answered: %v %v", ans, err)
	}
	// Replaced (a new file renamed over it): the handle reads the one it opened.
	os.WriteFile(path+".new", []byte(lines[0]+"\n"), 0o644)
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if n, err := f.CompactionsAfter(first); err != nil || n != wantN {
		t.Errorf("CompactionsAfter after another question: %d %v", n, err)
	}
	if ends, err := f.EndsWithCompaction(); err != nil || ends != wantEnds {
		t.Errorf("EndsWithCompaction: %v %v", ends, err)
	}
	if off, found, err := f.LastBoundary(); err != nil || !found || off != wantOff {
		t.Errorf("LastBoundary: %d %v %v", off, found, err)
	}
	if f.Size() <= int64(len(lines[0])+1) {
		t.Errorf("Size %d is not the opened transcript's", f.Size())
	}
}

// LastPrompt reads no further back than it is told: a prompt behind more than maxBytes of other
// lines is not found, and costs no more than that to miss.
func TestLastPromptBounded(t *testing.T) {
	lines := []string{prompt("an old request"), prompt("the last request")}
	for i := 0; i < 400; i++ {
		lines = append(lines, asst(fmt.Sprintf("m%d", i), "", textBlock(strings.Repeat("x", 1000))))
	}
	path := writeLines(t, lines...)
	if got, err := LastPrompt(path, 4<<20); err != nil || got != "the last request" {
		t.Fatalf("within the bound: %q %v", got, err)
	}
	if got, err := LastPrompt(path, 64<<10); err != nil || got != "" {
		t.Fatalf("beyond the bound: %q %v", got, err)
	}
	if got, err := LastPrompt(filepath.Join(t.TempDir(), "none.jsonl"), 1<<20); err != nil || got != "" {
		t.Fatalf("no transcript: %q %v", got, err)
	}
}
