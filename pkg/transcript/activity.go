package transcript

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Command is one shell command Claude ran through the Bash tool, and what came of it.
type Command struct {
	Line   string // the command, made one line (newlines become "; "), cut to maxCommandRunes
	Status string // "exit 0", "exit 3", "interrupted", "not run" (refused) or "no result"
	Output string // for a command that failed or was refused, the most telling line of its output
}

// failed reports whether the command ran and exited with a status other than 0.
func (c Command) failed() bool { return strings.HasPrefix(c.Status, "exit ") && c.Status != "exit 0" }

// Activity is what a session did since the last boundary, besides editing files: the commands it
// ran with their exit status, the last error a command printed, the last commit it made. Claude
// Code's compaction summaries keep decisions and drop almost every command; this is what cairn
// keeps of them.
type Activity struct {
	Commands   []Command // most recent first, at most maxCommands
	More       int       // commands run before those, not listed
	LastError  string    // the most telling output line of the most recent failed command
	LastCommit string    // "<sha> <subject>" of the most recent commit a command reported
	Decisions  []string  // the decisions stated by the user or Claude, most recent first (Decided)
}

// Bounds: what a hand-back lists, and how many tool results the scan remembers while it looks
// for the commands they answer (the newest results come first, going backwards).
const (
	maxCommands = 12
	// Values are cut long: the record's writer redacts them and then cuts them to the record's
	// length, so that no part of a secret is left at a cut it could not see whole.
	maxCommandRunes = 1000
	maxOutputRunes  = 1000
	maxResultRefs   = 512
	tokenChunk      = 64 << 10 // tokens reads a long result line in these
	tokenOverlap    = 256      // and this much more, so that no token is missed across a chunk's end
)

// activityScan collects an Activity during a backward scan. Going backwards, a command's result
// is met before the command: the scan remembers where each result line is (its offset and
// whether it was an error), and reads a result's text only for a command it lists.
type activityScan struct {
	r       io.ReaderAt
	lim     limits
	refs    map[string]resultRef
	act     Activity
	commits bool // a commit was found: older ones are not looked at
	errored bool // LastError is settled
	p       parser
	m       lineMarks // a long result line's tokens (result)
}

type resultRef struct {
	off      int64
	n        int
	isError  bool
	cut      bool // the line is longer than lineCap
	multiple bool // the line answers several tool uses
}

func newActivityScan(r io.ReaderAt, lim limits) *activityScan {
	return &activityScan{r: r, lim: lim, refs: map[string]resultRef{}}
}

var (
	toolUseIDKey = []byte(tokToolUseID)
	isErrorTrue  = []byte(tokIsError)
)

// result notes a tool-result line, given what one walk over it found (m). It reads the ids with
// byte searches, not a parse: results are most of a transcript's bytes.
func (a *activityScan) result(l line, m *lineMarks) {
	if len(a.refs) >= maxResultRefs {
		return
	}
	if l.truncated && l.end > l.off {
		// Claude Code writes a failed result's id after its content, and a copy of the output
		// after that: the whole line is searched for the two tokens (only such a line, in the
		// stretch the commands are read in), and only they are kept.
		data := a.tokens(l.off, l.end)
		m = a.m.of(data)
		a.noteResult(l, data, m)
		return
	}
	a.noteResult(l, l.data, m)
}

// noteResult records the ids of a result line's data, whose walk is m: every "tool_use_id":"
// that does not overlap the one before it (as bytes.Count counts them), each followed by its id
// up to the next quote.
func (a *activityScan) noteResult(l line, data []byte, m *lineMarks) {
	var n int
	next := 0 // where the next occurrence that counts may start
	for _, i := range m.ids {
		if int(i) >= next {
			n++
			next = int(i) + len(toolUseIDKey)
		}
	}
	ref := resultRef{off: l.off, n: len(l.data), cut: l.truncated, multiple: n > 1, isError: m.any(markIsError)}
	next = 0
	for _, i := range m.ids {
		if int(i) < next {
			continue
		}
		rest := data[int(i)+len(toolUseIDKey):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			break
		}
		if id := string(rest[:j]); id != "" && !hasRef(a.refs, id) {
			a.refs[id] = ref
		}
		// The id ends at a quote, and an occurrence starts with one: the next one counted
		// starts there at the earliest, as a search from there would find it.
		next = int(i) + len(toolUseIDKey) + j
	}
}

func hasRef(m map[string]resultRef, id string) bool { _, ok := m[id]; return ok }

// tokens reads [off, end) in chunks and returns the "tool_use_id":"<id>" tokens it holds and an
// "is_error":true token when it holds one, joined: enough for result to read.
func (a *activityScan) tokens(off, end int64) []byte {
	var out []byte
	buf := make([]byte, tokenChunk+tokenOverlap)
	seen := map[string]bool{}
	for pos := off; pos < end; pos += tokenChunk {
		n := min(int64(len(buf)), end-pos)
		chunk := buf[:n]
		if readFull(a.r, chunk, pos) != nil {
			break
		}
		if bytes.Contains(chunk, isErrorTrue) && !seen[string(isErrorTrue)] {
			seen[string(isErrorTrue)] = true
			out = append(out, isErrorTrue...)
		}
		for rest := chunk; ; {
			i := bytes.Index(rest, toolUseIDKey)
			if i < 0 {
				break
			}
			rest = rest[i:]
			j := bytes.IndexByte(rest[len(toolUseIDKey):], '"')
			if j < 0 {
				break
			}
			tok := rest[:len(toolUseIDKey)+j+1]
			if !seen[string(tok)] {
				seen[string(tok)] = true
				out = append(out, tok...)
			}
			rest = rest[len(tok):]
		}
	}
	return out
}

func mayBash(b []byte) bool {
	return bytes.Contains(b, []byte(`"Bash"`)) && bytes.Contains(b, []byte(`"tool_use"`))
}

// commands notes the Bash tool uses of an assistant line, the last block first.
func (a *activityScan) commands(e entry) {
	if e.sidechain {
		return // a subagent's commands are its own
	}
	type use struct{ id, cmd string }
	var uses []use
	e.msg("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str == "tool_use" && b.Get("name").Str == "Bash" {
			uses = append(uses, use{b.Get("id").Str, b.Get("input.command").String()})
		}
		return true
	})
	for i := len(uses) - 1; i >= 0; i-- {
		u := uses[i]
		if u.id == "" {
			continue // no result can be told to be its
		}
		if len(a.act.Commands) == maxCommands {
			a.act.More++
			if a.errored && a.commits {
				continue
			}
		}
		c := Command{Line: oneLine(u.cmd, maxCommandRunes), Status: "no result"}
		ref, ok := a.refs[u.id]
		var out string
		switch {
		case ok && ref.cut:
			// Over lineCap: whether it failed is said after the content, past what is read.
			c.Status = "result too long"
		case ok:
			isError := ref.isError
			if ref.isError || ref.multiple || strings.Contains(u.cmd, "commit") && !a.commits {
				// A line that answers several tool uses says is_error per block: its own.
				out, isError = a.resultText(ref, u.id)
			}
			c.Status = "exit 0"
			if isError {
				c.Status, c.Output = failure(out)
			}
		}
		if c.failed() && !a.errored {
			a.act.LastError, a.errored = c.Output, true
		}
		if !a.commits && c.Status == "exit 0" && out != "" {
			if s := commitLine(out); s != "" {
				a.act.LastCommit, a.commits = s, true
			}
		}
		if len(a.act.Commands) < maxCommands && !a.listed(c.Line) {
			// A command run again is listed once, with what came of it the last time.
			a.act.Commands = append(a.act.Commands, c)
		}
	}
}

func (a *activityScan) listed(line string) bool {
	for _, c := range a.act.Commands {
		if c.Line == line {
			return true
		}
	}
	return false
}

// resultText reads the text of the result of tool use id, and whether it is an error, from the
// line ref points to.
func (a *activityScan) resultText(ref resultRef, id string) (text string, isError bool) {
	size := min(ref.n, a.lim.lineCap)
	buf := make([]byte, size)
	if readFull(a.r, buf, ref.off) != nil {
		return "", ref.isError
	}
	e, ok := a.p.entry(line{data: buf, off: ref.off, truncated: ref.cut})
	if !ok {
		return "", ref.isError
	}
	isError = ref.isError && !ref.multiple
	e.msg("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str != "tool_result" || b.Get("tool_use_id").Str != id {
			return true
		}
		isError = b.Get("is_error").Bool()
		c := b.Get("content")
		if c.IsArray() {
			text = strings.Join(textBlocks(c), "\n")
		} else {
			text = c.String()
		}
		return false
	})
	return text, isError
}

// failure reads a failed Bash result: Claude Code writes "Exit code N" and the output for a
// command that ran, and an error message for one it refused or could not run.
func failure(out string) (status, line string) {
	first, rest, _ := strings.Cut(strings.TrimLeft(out, "\n"), "\n")
	if code, ok := strings.CutPrefix(first, "Exit code "); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(code)); err == nil && n != 0 {
			return "exit " + strconv.Itoa(n), telling(rest)
		}
		return "exit 1", telling(rest)
	}
	if strings.Contains(out, "interrupted") {
		return "interrupted", ""
	}
	return "not run", errorLine(out)
}

// tellingWords mark the output line that says what went wrong, in the order they are preferred.
var tellingWords = []string{"--- FAIL", "FAIL", "panic:", "panicked at", "Error", "error", "undefined", "failed", "Traceback", "expected", "not found"}

// telling picks the line of a failed command's output that says what went wrong: a Python
// traceback's exception; else the first line that holds one of tellingWords (earlier words
// first), a Go test failure or a Rust panic with the line after it; else the first numbered
// failure ("1) …") with the line that follows it that is not a file position; otherwise the
// last non-empty line. Lines that only frame the report say nothing of what went wrong and are
// passed over (said): a banner ("===== FAILURES ====="), a count ("1 failed, 3 passed in
// 0.12s", "test result: FAILED. 3 passed; 1 failed"), a test's status ("test parse ... FAILED"),
// a package's ("FAIL\tpkg\t0.01s", "FAIL") or make's.
func telling(out string) string {
	lines := strings.Split(out, "\n")
	if l := exception(lines); l != "" {
		return oneLine(l, maxOutputRunes)
	}
	for _, w := range tellingWords {
		for i, l := range lines {
			if !strings.Contains(l, w) || !said(l) {
				continue
			}
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "--- FAIL") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") || strings.Contains(t, "panicked at") {
				if next := strings.TrimSpace(at(lines, i+1)); next != "" {
					t += " — " + next
				}
			}
			return oneLine(t, maxOutputRunes)
		}
	}
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "1) ") {
			for _, n := range lines[i+1 : min(len(lines), i+4)] {
				if n = strings.TrimSpace(n); n != "" && !position(n) {
					return oneLine(t+" — "+n, maxOutputRunes)
				}
			}
			return oneLine(t, maxOutputRunes)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			return oneLine(t, maxOutputRunes)
		}
	}
	return ""
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// exception returns a Python traceback's last word: the first line after "Traceback (most recent
// call last):" that is not indented ("ValueError: …"), or "".
func exception(lines []string) string {
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "Traceback (most recent call last)") {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		for _, n := range lines[i+1:] {
			if t := strings.TrimSpace(n); t != "" && len(n)-len(strings.TrimLeft(n, " ")) <= indent {
				return t
			}
		}
	}
	return ""
}

// said reports whether a line of a failed command's output may say what went wrong: it is not
// one of the lines that only frame a test report (telling).
func said(l string) bool {
	t := strings.TrimSpace(l)
	f := strings.Fields(t)
	switch {
	case len(f) == 0:
		return false
	case banner(t):
		return false
	case strings.Contains(t, " ... ") && slices.Contains([]string{"FAIL", "FAILED", "ERROR"}, f[len(f)-1]):
		return false // a test's status: "test tests::total ... FAILED"
	case (f[0] == "FAIL" || f[0] == "FAILED") && (len(f) == 1 || len(f) <= 4 && strings.ContainsAny(f[1], "/.") && !strings.Contains(t, ": ")):
		return false // a package's status: "FAIL", "FAIL\tgithub.com/x/y\t0.01s", "FAIL\tx/y [build failed]"
	case strings.Contains(t, ": *** ["):
		return false // make's: "make: *** [Makefile:2: main.o] Error 1"
	}
	return !counts(t)
}

// banner reports a line drawn with one character at both ends: "===== FAILURES =====",
// "____ test_total ____", "---- tests::total stdout ----".
func banner(t string) bool {
	r := []rune(t)
	if len(r) < 6 || !strings.ContainsRune("=-_*~#⎯━─", r[0]) {
		return false
	}
	n := len(r)
	return r[1] == r[0] && r[2] == r[0] && r[n-1] == r[0] && r[n-2] == r[0] && r[n-3] == r[0]
}

// countWords follow a number in a report's count of its results.
var countWords = []string{"failed", "failed;", "failed,", "failure", "failures", "failures,", "passed", "passed,", "passed;", "tests", "tests,", "examples,", "errors", "error,", "total"}

// counts reports a line that counts results ("1 failed, 3 passed in 0.12s", "FAILED
// (failures=1)", "4 tests, 1 failure") rather than saying what failed.
func counts(t string) bool {
	if strings.Contains(t, "(failures=") || strings.Contains(t, "(errors=") {
		return true
	}
	f := strings.Fields(strings.ToLower(t))
	for i := 0; i+1 < len(f); i++ {
		if strings.Trim(f[i], "0123456789") == "" && slices.Contains(countWords, f[i+1]) {
			return true
		}
	}
	return false
}

// position reports a line that is only a file position: "test/ledger/total_test.exs:41".
func position(t string) bool {
	i := strings.LastIndexByte(t, ':')
	return i > 0 && !strings.Contains(t, " ") && strings.Trim(t[i+1:], "0123456789") == "" && i+1 < len(t)
}

// commitLine reads the line git commit prints, "[main 1a2b3c4] subject" ("[main
// (root-commit) 1a2b3c4] subject" on a repository's first), from a command's output: "<sha>
// <subject>", or "".
func commitLine(out string) string {
	// The last such line: git prints its own after a hook's output, which can look the same.
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "[")
		head, subject, ok2 := strings.Cut(rest, "] ")
		if !ok || !ok2 || subject == "" {
			continue
		}
		f := strings.Fields(head)
		if len(f) < 2 || len(f) > 3 || len(f) == 3 && f[1] != "(root-commit)" {
			continue
		}
		if sha := f[len(f)-1]; len(sha) >= 7 && len(sha) <= 40 && strings.Trim(sha, "0123456789abcdef") == "" {
			return oneLine(sha+" "+subject, maxCommandRunes)
		}
	}
	return ""
}

// oneLine makes s one line of at most max runes: lines joined by "; ", controls removed. A
// carriage return ends a line as a newline does (clean reads it as one).
func oneLine(s string, max int) string {
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	s = clean(strings.Join(parts, "; "))
	if r := []rune(s); len(r) > max {
		// At a word: a value is redacted when it is written, and a token cut in two would
		// leave a prefix the redaction cannot recognise.
		cut := string(r[:max-1])
		if i := strings.LastIndexAny(cut, " \t"); i >= 0 {
			return strings.TrimRight(cut[:i], " \t") + " …"
		}
		return "…"
	}
	return s
}

// Pending reads Claude's last message for what it left open: the question it ended on (the last
// sentence with a question mark in the last paragraph, followed by at most one short sentence,
// which may also be a paragraph of its own; or a last sentence that asks without one, "Let me
// know if I should …") and the next step it stated ("Next, I'll …", "The next step is …", "Now
// I'll …", "I'll … now"). Either is "" when the message has none. Both are one line, cut to
// maxOutputRunes.
func Pending(text string) (question, next string) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	return pendingQuestion(text), nextStep(text)
}

// Ending is how Claude's last message ended, whatever its words: its last sentence outside code
// blocks and tables, with the sentence before when the last is too short to say anything alone
// ("Done.", "Let me know!"). A message says what comes next, or what it leaves open, at its end;
// the hand-back quotes this when Pending reads neither a question nor a next step in it, so that a
// step stated in words Pending's rules do not know ("Up next: …", "What's left is …") still
// reaches the next session. One line, cut to maxEndingRunes; "" for a message with no sentence
// or fewer than minEndingWords words at its end.
func Ending(text string) string {
	var prose []string
	fenced := false
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(t, "|") {
			continue
		}
		prose = append(prose, l)
	}
	s := splitSentences(strings.Join(prose, "\n"))
	if len(s) == 0 {
		return ""
	}
	end := strings.Trim(s[len(s)-1], markup)
	if len(s) > 1 && len(strings.Fields(end)) < minEndingWords {
		end = strings.Trim(s[len(s)-2], markup) + " " + end
	}
	if len(strings.Fields(end)) < minEndingWords {
		return "" // "Committed.", "Updated 2 files.": a report of what was done, not what is next
	}
	return oneLine(end, maxEndingRunes)
}

// minEndingWords is the fewest words a message's last sentence has to say something alone:
// "Let me know!" and "All tests pass now." take the sentence before them along, and a message
// that says less than this in all ("Committed.") has no ending worth quoting.
const minEndingWords = 5

// maxEndingRunes bounds Ending: a sentence or two, not a paragraph.
const maxEndingRunes = 240

// Question is Pending's question alone, for a caller that needs no next step: automatic parking,
// on every prompt.
func Question(text string) string {
	return pendingQuestion(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")))
}

// pendingQuestion is Pending's question in text, trimmed and with '\n' line ends.
func pendingQuestion(text string) (question string) {
	last := text
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		last = text[i+2:]
		if s := splitSentences(last); len(s) == 1 && closer(s[0]) && !strings.Contains(last, "\n") {
			// "Let me know what you think!" on its own: the question is the paragraph's before.
			// (A block of code after the question is not a closing line.)
			last = text[max(0, strings.LastIndex(text[:i], "\n\n")):i] + "\n" + last
		}
	}
	tail := splitSentences(last)
	for i := len(tail) - 1; i >= 0 && i >= len(tail)-2; i-- {
		if q := strings.Trim(tail[i], markup); strings.HasSuffix(q, "?") || asksIndirectly(q) {
			if i == len(tail)-1 || closer(tail[i+1]) {
				question = oneLine(q, maxOutputRunes)
			}
			break
		}
	}
	return question
}

// nextStep is Pending's next step in text, trimmed and with '\n' line ends.
func nextStep(text string) string {
	if step := planStep(text); step != "" {
		return oneLine(step, maxOutputRunes)
	}
	sentences := splitSentences(text)
	for i := len(sentences) - 1; i >= 0; i-- {
		l := strings.ToLower(sentences[i])
		if strings.Contains(l, " next step") || statesOwnStep(l) || slices.ContainsFunc(nextStepPrefixes, func(p string) bool { return strings.HasPrefix(l, p) }) && !nextAsOther(l) {
			return oneLine(sentences[i], maxOutputRunes)
		}
	}
	return ""
}

var nextStepPrefixes = []string{"next,", "next ", "next:", "then i'll", "then i will", "after that", "the next step", "my next step", "i'll next", "i will next", "next step", "my plan"}

// nextAsOther reports a sentence (lower case) opening with "next" that is not a step: the
// preposition ("Next to the parser is the lexer.") or another time than now ("Next time we can
// batch them.", "Next week …"), which defers rather than continues.
func nextAsOther(l string) bool {
	return slices.ContainsFunc([]string{"next to ", "next time", "next week", "next month", "next year", "next sprint", "next release", "next session"},
		func(p string) bool { return strings.HasPrefix(l, p) })
}

// planStep is the first step of the plan a message ends with, or "": the first unchecked item
// ("- [ ] …") of the checklist it ends with, else the first item of a list that follows a line naming
// what comes next ("Next steps:", "Remaining:", "To do:", "Plan:"), the list being the
// message's last. A plan's first open step is what comes next, however it is worded.
func planStep(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		if !checkItem(t) {
			break // the message does not end with a checklist: one before is no plan of what is next
		}
		for _, box := range []string{"- [ ] ", "* [ ] ", "- [x] ", "* [x] ", "- [X] ", "* [X] "} {
			if strings.HasPrefix(t, box) {
				// The last checklist: its first unchecked item.
				start := i
				for start > 0 && checkItem(lines[start-1]) {
					start--
				}
				for _, l := range lines[start : i+1] {
					if l = strings.TrimSpace(l); strings.HasPrefix(l, "- [ ] ") || strings.HasPrefix(l, "* [ ] ") {
						return strings.TrimSpace(l[len("- [ ] "):])
					}
				}
				return ""
			}
		}
	}
	// A list under a label of what comes next, with nothing but the list after the label.
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		// The label may be a heading, quoted or marked up ("## Next steps:", "**Next steps:**"),
		// which listItem would take for an item; an item is never the label.
		if label := strings.Trim(t, markup+"#> "); !isItem(t) && strings.HasSuffix(label, ":") &&
			namesWhatComesNext(strings.ToLower(strings.Trim(strings.TrimSuffix(label, ":"), markup+"# "))) {
			for _, l := range lines[i+1:] {
				if l = strings.TrimSpace(l); l != "" && listItem(l) != l {
					return listItem(l)
				}
			}
			return ""
		}
		if listItem(t) != t {
			continue
		}
		return ""
	}
	return ""
}

// isItem reports a line (trimmed) that is a list item: a bullet or a number, quoted or not.
func isItem(t string) bool {
	l := strings.TrimLeft(t, "#> ")
	if r := strings.TrimLeft(l, "0123456789"); len(r) < len(l) && strings.HasPrefix(r, ". ") {
		return true
	}
	return strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ")
}

func checkItem(l string) bool {
	l = strings.TrimSpace(l)
	return len(l) > 6 && (l[0] == '-' || l[0] == '*') && l[1] == ' ' && l[2] == '[' && l[4] == ']' && l[5] == ' '
}

// namesWhatComesNext reports a label (lower case, without its colon) that heads a plan: "next
// steps", "what's next", "remaining", "to do", "todo", "plan", "my plan from here".
func namesWhatComesNext(label string) bool {
	if len(strings.Fields(label)) > 4 {
		return false
	}
	for _, w := range []string{"next", "remaining", "to do", "todo", "plan"} {
		if label == w || strings.HasPrefix(label, w+" ") || strings.HasSuffix(label, " "+w) || strings.HasSuffix(label, " "+w+"s") || label == w+"s" {
			return true
		}
	}
	return false
}

// markup may wrap a sentence: "**Should I also backport it?**".
const markup = "*_`"

// closer reports a sentence short enough to follow Claude's question without taking its place:
// "Let me know.", "If not, I'll leave it as it is." (at most 60 bytes, and no question itself).
func closer(s string) bool {
	return len(s) <= 60 && !strings.HasSuffix(strings.Trim(s, markup), "?") && !asksIndirectly(s)
}

// asksIndirectly reports a sentence that asks without a question mark: "Let me know if I should
// …", "Tell me whether you want …". A closer that asks nothing ("Let me know if you have any
// questions") is not one: the "if" must be about what Claude is to do.
func asksIndirectly(s string) bool {
	l := strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	for _, lead := range []string{"let me know if ", "let me know whether ", "tell me if ", "tell me whether "} {
		if rest, ok := strings.CutPrefix(l, lead); ok {
			for _, who := range []string{"i should ", "you want ", "you'd like ", "you would like ", "we should "} {
				if strings.HasPrefix(rest, who) {
					return true
				}
			}
		}
	}
	return false
}

// intentions are the ways a sentence's subject, Claude or Claude with the user, says what it is
// about to do: English marks an intention with the future, and the future with these few forms
// (a closed class of auxiliaries, not a list of phrasings).
var intentions = []string{"i'll ", "i will ", "i'm going to ", "i am going to ", "i'm about to ", "i am about to ",
	"we'll ", "we will ", "we're going to ", "we are going to "}

// conditionalLeads open a clause that makes what follows depend on something ("If not, I'll leave
// it", "Otherwise I'll revert"): what follows is not the next step, it may never happen.
var conditionalLeads = []string{"if ", "if,", "unless ", "otherwise", "else", "in case ", "should ", "when ", "whether "}

// statesOwnStep reports a sentence (lower case) in which Claude states its own next action: its
// subject says what it is about to do (intentions), at the sentence's start or after a lead —
// one word ("Now I'll …", "Next I'll …") or a phrase closed by a comma ("After this, I'll …",
// "With the parser done, I'm going to …") — that is not a condition (conditionalLeads). A step
// put off ("I will leave that for later"), one refused ("I won't …", "I'll not …") or one that
// leaves things as they are is not the next one.
func statesOwnStep(l string) bool {
	l = strings.ReplaceAll(l, "’", "'")
	if strings.Contains(l, "later") || strings.Contains(l, " leave ") || strings.Contains(l, "won't") {
		return false
	}
	if slices.ContainsFunc(conditionalLeads, func(c string) bool { return strings.HasPrefix(l, c) }) {
		return false
	}
	rest := l
	if i := strings.Index(l, ", "); i >= 0 && len(strings.Fields(l[:i])) <= 5 && !strings.Contains(l[:i], "?") {
		rest = l[i+2:] // a lead closed by a comma
	} else if f := strings.Fields(l); len(f) > 1 && !slices.ContainsFunc(intentions, func(w string) bool { return strings.HasPrefix(l, w) }) {
		rest = strings.TrimPrefix(l, f[0]+" ") // a lead of one word
	}
	for _, w := range intentions {
		if v, ok := strings.CutPrefix(rest, w); ok && v != "" && !strings.HasPrefix(v, "not ") {
			return true
		}
	}
	return false
}

// splitSentences cuts text after each ".", "!" or "?" that ends a word and at line ends, dropping
// empty pieces, list markers and code fences.
func splitSentences(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = listItem(strings.TrimSpace(l))
		if l == "" || strings.HasPrefix(l, "```") {
			continue
		}
		start := 0
		for i := 0; i < len(l); i++ {
			if c := l[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(l) || l[i+1] == ' ') {
				if s := strings.TrimSpace(l[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
		if s := strings.TrimSpace(l[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// listItem drops a markdown list, quote or heading marker from the start of l.
func listItem(l string) string {
	l = strings.TrimLeft(l, "#> ")
	if r := strings.TrimLeft(l, "0123456789"); len(r) < len(l) && strings.HasPrefix(r, ". ") {
		return strings.TrimSpace(r[2:])
	}
	for _, m := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(l, m) {
			return strings.TrimSpace(l[len(m):])
		}
	}
	return l
}

// maxFirstScan bounds how far from the start FirstPrompt looks: the first prompt comes within
// the first few lines of a transcript.
const maxFirstScan = 1 << 20

// firstPromptAt is the session's first typed prompt, read forwards from the start for at most
// maxFirstScan bytes; "" when there is none there.
func (lim limits) firstPromptAt(r io.ReaderAt, size int64) (string, error) {
	var p parser
	s := newFwdScanner(r, min(size, maxFirstScan), 0, lim)
	for {
		l, ok := s.next()
		if !ok {
			return "", s.err
		}
		if text, ok := p.promptLine(l); ok {
			return text, nil
		}
	}
}

// decisionWords mark a sentence that states a decision, in a prompt or in Claude's text.
var decisionWords = []string{"decided", "decision", "we agreed", "agreed to", "let's go with", "we'll go with", "going with", "we chose", "settled on", "opted for"}

// statesDecision reports a sentence (lower case, ’ read as ') that states a decision: it holds one
// of decisionWords; or it makes a choice ("Stick with …", "We'll stick with …"), sets a rule from
// now on ("Going forward, we …", "… from here on."), opens with a label ("Settled: …", "Final
// call: …"), or proposes a course and gives its reason in the same sentence ("Let's drop the v1
// endpoint; no client calls it"). Each form is held to where it decides: "the worker will stick
// with the first server", "going forward from line 40", "Settled: 3 of 4 payments" and "let's
// look at the logs since …" decide nothing.
func statesDecision(l string) bool {
	if slices.ContainsFunc(decisionWords, func(w string) bool { return strings.Contains(l, w) }) {
		return true
	}
	for _, w := range []string{"stick with ", "let's stick with ", "we'll stick with ", "we will stick with ", "i'll stick with ", "i will stick with "} {
		if strings.HasPrefix(l, w) {
			return true
		}
	}
	for _, label := range []string{"settled: ", "final call: "} {
		if rest, ok := strings.CutPrefix(l, label); ok && rest != "" && rest[0] >= 'a' && rest[0] <= 'z' {
			return true
		}
	}
	body := strings.TrimRight(l, ".!")
	for _, w := range []string{"going forward", "from here on"} {
		// At a clause's edge: "Going forward, we …", "… from here on."
		for rest := body; ; {
			i := strings.Index(rest, w)
			if i < 0 {
				break
			}
			if after := rest[i+len(w):]; after == "" || after[0] == ',' {
				return true
			}
			rest = rest[i+len(w):]
		}
	}
	return justified(l)
}

// proposalLeads open a sentence that proposes a course ("Let's drop the v1 endpoint", "Make it
// integer cents"); with a reason given in the same sentence (reasonMarks) it states a decision.
// Without one it is an ordinary request ("Let's look at the logs"), and so is one that explores
// (exploreWords: "let's look at the logs since the test fails on CI").
var (
	proposalLeads = []string{"let's ", "let us ", "make it "}
	reasonMarks   = []string{"; ", " because ", " since ", " — ", " so that "}
	exploreWords  = []string{"look", "see", "check", "run", "rerun", "try", "test", "debug", "figure", "find", "investigate", "dig", "read", "review", "start", "begin", "keep going", "wait", "move on", "continue", "first"}
)

// justified reports a sentence (lower case) that proposes a course and gives its reason.
func justified(l string) bool {
	for _, p := range proposalLeads {
		rest, ok := strings.CutPrefix(l, p)
		if !ok || slices.ContainsFunc(exploreWords, func(w string) bool { return rest == w || strings.HasPrefix(rest, w+" ") }) {
			continue
		}
		if slices.ContainsFunc(reasonMarks, func(m string) bool { return strings.Contains(rest, m) }) {
			return true
		}
	}
	return false
}

// maxDecisions bounds the decisions an Activity keeps; maxDecisionLine is the longest line
// looked at for one (a tool's output is not where decisions are stated).
const (
	maxDecisions    = 3
	maxDecisionLine = 32 << 10
)

// mayDecideMarked reports whether line b, whose tokens are m, may state a decision, with byte
// tests that spare the parse of the others. Only a prompt (a user line; tool results are passed
// over before) or a line holding a text block states one, so that the words are looked for in
// those alone, not in the tool uses (an Edit's or a Write's content) that make most of an
// assistant's bytes.
func mayDecideMarked(b []byte, m *lineMarks) bool {
	if len(b) > maxDecisionLine || !m.any(markUserHead|markText) {
		return false
	}
	return mayDecideText(b)
}

// mayDecideText is mayDecideMarked's test of the words alone, for text already taken out of its line
// (a digest's prompts and Claude's texts): whether b holds one of decisionCues.
func mayDecideText(b []byte) bool {
	// One pass that stops only where two bytes open a cue, instead of a search per cue: the cues
	// start with frequent letters, which keep bytes.Index off its fast path, and a line that
	// states no decision (most) was searched sixteen times over.
	for i := 0; i+1 < len(b); i++ {
		if p := uint16(b[i])<<8 | uint16(b[i+1]); cueStarts[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for _, c := range cuesByFirst[b[i]] {
			if bytes.HasPrefix(b[i:], c) {
				return true
			}
		}
	}
	return false
}

// decisionCues are the byte strings whose presence lets a text be read for decisions
// (statesDecision): each word or form without its first letter, so that a capital at a
// sentence's start matches too.
var decisionCues = [][]byte{
	[]byte("ecid"), []byte("ecision"), []byte("greed"), []byte("go with"), []byte("oing with"),
	[]byte("ettled"), []byte("pted for"), []byte("hose"), []byte("tick with"), []byte("oing forward"), []byte("rom here on"),
	[]byte("inal call"), []byte("et's"), []byte("et’s"), []byte("et us"), []byte("ake it"),
}

// cuesByFirst lists the cues by their first byte: where two bytes may open one, only those
// that start with the first are compared.
var cuesByFirst = func() (by [256][][]byte) {
	for _, c := range decisionCues {
		by[c[0]] = append(by[c[0]], c)
	}
	return by
}()

// cueStarts is the set of the cues' first two bytes, as a bitmap indexed by those two bytes.
var cueStarts = func() (set [1 << 16 / 64]uint64) {
	for _, c := range decisionCues {
		p := uint16(c[0])<<8 | uint16(c[1])
		set[p>>6] |= 1 << (p & 63)
	}
	return set
}()

// decisions notes the sentences of a prompt or of Claude's text that state a decision.
func (a *activityScan) decisions(e entry) {
	if len(a.act.Decisions) >= maxDecisions || e.sidechain {
		return
	}
	var text string
	if t, ok := e.prompt(); ok {
		text = t
	} else if e.kind() == "assistant" && !e.synthetic() {
		text = strings.Join(textBlocks(e.msg("content")), "\n")
	}
	sentences := Decided(text)
	for i := len(sentences) - 1; i >= 0 && len(a.act.Decisions) < maxDecisions; i-- {
		if !slices.Contains(a.act.Decisions, sentences[i]) {
			a.act.Decisions = append(a.act.Decisions, sentences[i])
		}
	}
}

// Decided returns the sentences of text that state a decision ("We decided to …", "Let's go
// with …", "Decision: …"), one line each, cut to maxOutputRunes.
func Decided(text string) []string {
	var out []string
	for _, s := range splitSentences(text) {
		if statesDecision(strings.ToLower(strings.ReplaceAll(s, "’", "'"))) {
			out = append(out, oneLine(s, maxOutputRunes))
		}
	}
	return out
}
