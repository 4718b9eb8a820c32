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
	toolUseIDKey = []byte(`"tool_use_id":"`)
	isErrorTrue  = []byte(`"is_error":true`)
)

// result notes a tool-result line. It reads the ids with byte searches, not a parse: results
// are most of a transcript's bytes.
func (a *activityScan) result(l line) {
	if len(a.refs) >= maxResultRefs {
		return
	}
	data := l.data
	if l.truncated && l.end > l.off {
		// Claude Code writes a failed result's id after its content, and a copy of the output
		// after that: the whole line is searched for the two tokens (only such a line, in the
		// stretch the commands are read in), and only they are kept.
		data = a.tokens(l.off, l.end)
	}
	n := bytes.Count(data, toolUseIDKey)
	ref := resultRef{off: l.off, n: len(l.data), cut: l.truncated, multiple: n > 1,
		isError: bytes.Contains(data, isErrorTrue)}
	rest := data
	for range n {
		i := bytes.Index(rest, toolUseIDKey)
		rest = rest[i+len(toolUseIDKey):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			break
		}
		if id := string(rest[:j]); id != "" && !hasRef(a.refs, id) {
			a.refs[id] = ref
		}
		rest = rest[j:]
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
	msg := strings.TrimSuffix(strings.TrimPrefix(first, "<tool_use_error>"), "</tool_use_error>")
	return "not run", oneLine(strings.TrimPrefix(msg, "Error: "), maxOutputRunes)
}

// tellingWords mark the output line that says what went wrong, in the order they are preferred.
var tellingWords = []string{"--- FAIL", "FAIL", "panic:", "Error", "error", "undefined", "failed", "Traceback", "expected", "not found"}

// telling picks the line of a failed command's output that says what went wrong: the first that
// holds one of tellingWords (earlier words first), a Go test failure with the line after it;
// otherwise the last non-empty line.
func telling(out string) string {
	lines := strings.Split(out, "\n")
	for _, w := range tellingWords {
		for i, l := range lines {
			if !strings.Contains(l, w) {
				continue
			}
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "--- FAIL") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") {
				if next := strings.TrimSpace(lines[i+1]); next != "" {
					t += " — " + next
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

// oneLine makes s one line of at most max runes: lines joined by "; ", controls removed.
func oneLine(s string, max int) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
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
// sentence with a question mark in the last paragraph, followed by at most one short sentence)
// and the next step it stated ("Next, I'll …", "The next step is …", "Then I'll …"). Either is
// "" when the message has none. Both are one line, cut to maxOutputRunes.
func Pending(text string) (question, next string) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	last := text
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		last = text[i+2:]
	}
	tail := splitSentences(last)
	for i := len(tail) - 1; i >= 0 && i >= len(tail)-2; i-- {
		if strings.HasSuffix(tail[i], "?") {
			if i == len(tail)-1 || len(tail[i+1]) <= 60 {
				question = oneLine(tail[i], maxOutputRunes)
			}
			break
		}
	}
	sentences := splitSentences(text)
	for i := len(sentences) - 1; i >= 0; i-- {
		l := strings.ToLower(sentences[i])
		for _, p := range nextStepPrefixes {
			if strings.HasPrefix(l, p) || strings.Contains(l, " next step") {
				return question, oneLine(sentences[i], maxOutputRunes)
			}
		}
	}
	return question, ""
}

var nextStepPrefixes = []string{"next,", "next ", "then i'll", "then i will", "after that", "the next step", "my next step", "i'll next", "i will next", "next step"}

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

// maxDecisions bounds the decisions an Activity keeps; maxDecisionLine is the longest line
// looked at for one (a tool's output is not where decisions are stated).
const (
	maxDecisions    = 3
	maxDecisionLine = 32 << 10
)

func mayDecide(b []byte) bool {
	if len(b) > maxDecisionLine {
		return false
	}
	// Without the first letter, so that a capital at a sentence's start matches too.
	return bytes.Contains(b, []byte("ecid")) || bytes.Contains(b, []byte("ecision")) || bytes.Contains(b, []byte("greed")) || bytes.Contains(b, []byte("go with")) ||
		bytes.Contains(b, []byte("ettled on")) || bytes.Contains(b, []byte("pted for")) || bytes.Contains(b, []byte("hose"))
}

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
		l := strings.ToLower(s)
		for _, w := range decisionWords {
			if strings.Contains(l, w) {
				out = append(out, oneLine(s, maxOutputRunes))
				break
			}
		}
	}
	return out
}
