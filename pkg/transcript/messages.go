package transcript

import (
	"bytes"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// This file reads a transcript forwards for what a session's history keeps of it
// (docs/SEARCH.md, History): the prompts the user typed, Claude's text, Claude Code's
// compaction summaries, the shell commands Claude ran and what came of them, tools' errors, and
// the files edited. The search index reads new bytes with it as a transcript grows, and reads a
// stretch of lines again for a result's snippet; a session's digest reads the whole file.

// MessageKind is what a Message is.
type MessageKind uint8

// The kinds of Message.
const (
	Typed      MessageKind = iota + 1 // a prompt the user typed (the same rule as LastUserPrompts)
	Said                              // Claude's text: the text blocks of an assistant line
	Summarized                        // Claude Code's summary of the conversation, after a compaction
	Ran                               // a shell command Claude ran through the Bash tool
	Outcome                           // what came of a command, or a tool's error
	Edited                            // a file an Edit, Write, MultiEdit or NotebookEdit tool use names
)

// Message is one thing a transcript line says. Its strings alias the reader's buffer: they are
// valid during the call that hands the Message over, and a caller copies what it keeps.
type Message struct {
	Kind MessageKind
	// Text is the prompt, the text or the summary; Ran's command; an Outcome's most telling
	// line when it failed (empty for a command that exited 0); an Edited path as written. As
	// written in the transcript: neither redacted nor cleaned, at most maxMessageText bytes.
	Text string
	// ID is the tool use id of Ran and of its Outcome, which pairs them.
	ID string
	// Status is an Outcome's: "exit 0", "exit N", "not run" (refused), "interrupted", "result too
	// long" (a Bash result over the line cap), or "error" for a tool other than Bash.
	Status string
	// Off is where the message's line starts, End just past its '\n'.
	Off, End int64
	// Time, Branch and Cwd are the line's timestamp, gitBranch and cwd as written; "" when the
	// line has none.
	Time, Branch, Cwd string
}

// maxMessageText bounds a message's Text: a pasted log in a prompt is not what a history is for.
const maxMessageText = 64 << 10

// maxBashIDs bounds the Bash tool use ids a reading remembers to pair with their results.
const maxBashIDs = 4096

// tickEvery is how many bytes of lines pass between two ticks (emit(nil)).
const tickEvery = 1 << 20

// Messages reads the lines of r that start at or after from and end before to, in order, and
// calls emit with each message they hold, until emit returns false. emit is also called with nil
// after every MiB or so of lines, so that a caller can stop at a line boundary (a deadline).
//
// It returns end, the offset just past the last line whose messages were all handed over: a last
// line without its '\n' before to — one Claude Code is still writing — is not read, and a reading
// that starts again at end reads it once it is whole. A line longer than the line cap (1 MiB) is
// read through its first MiB, once its '\n' is seen. An Outcome pairs with the Ran of the same
// reading; a Bash result whose command came before from is read only when it failed, as an
// "error". Lines that are not JSON are passed over, as everywhere in this package.
func Messages(r io.ReaderAt, from, to int64, emit func(*Message) bool) (end int64, err error) {
	return defaultLimits.messages(r, from, to, emit)
}

func (lim limits) messages(r io.ReaderAt, from, to int64, emit func(*Message) bool) (end int64, err error) {
	if from >= to {
		return from, nil
	}
	var (
		s    = newFwdScanner(r, to, from, lim)
		m    msgReader
		held []Message // the messages of a cut line, until its '\n' is seen
		cut  = int64(-1)
		tick = from
	)
	end = from
	m.bash = map[string]bool{}
	for {
		l, ok := s.next()
		if cut >= 0 {
			if !ok && s.skipping {
				return cut, s.err // a cut line without its '\n': still being written
			}
			lineEnd := s.pos() // past the '\n' the scanner skipped to
			if ok {
				lineEnd = l.off
			}
			for i := range held {
				held[i].End = lineEnd
				if !emit(&held[i]) {
					return cut, nil
				}
			}
			held, cut, end = nil, -1, lineEnd
		}
		if !ok || l.open {
			return end, s.err
		}
		msgs := m.read(l)
		if l.truncated && s.skipping {
			for _, x := range msgs {
				x.Text, x.ID, x.Status = strings.Clone(x.Text), strings.Clone(x.ID), strings.Clone(x.Status)
				x.Time, x.Branch, x.Cwd = strings.Clone(x.Time), strings.Clone(x.Branch), strings.Clone(x.Cwd)
				held = append(held, x)
			}
			cut = l.off
			continue
		}
		lineEnd := s.pos()
		for i := range msgs {
			msgs[i].End = lineEnd
			if !emit(&msgs[i]) {
				return end, nil
			}
		}
		end = lineEnd
		if end-tick >= tickEvery {
			tick = end
			if !emit(nil) {
				return end, nil
			}
		}
	}
}

// msgReader turns lines into messages.
type msgReader struct {
	p    parser
	bash map[string]bool // the Bash tool uses seen, by id
	out  []Message
}

var (
	typeText      = []byte(`"type":"text"`)
	userToken     = []byte(`"user"`)
	assistantTok  = []byte(`"assistant"`)
	sidechainTrue = []byte(`"isSidechain":true`)
)

// read returns the messages of l (reusing its slice). Only a line that may hold one is parsed: a
// tool result, a user line, an assistant line with text, a command or an edit (not one of only
// thinking, nor a tool use of another kind).
func (m *msgReader) read(l line) []Message {
	m.out = m.out[:0]
	switch {
	case isToolResult(l.data):
		m.results(l)
	case bytes.Contains(l.data, userToken) ||
		bytes.Contains(l.data, assistantTok) && (bytes.Contains(l.data, typeText) || mayBash(l.data) || mayEdit(l.data)):
		e, ok := m.p.entry(l)
		if !ok {
			break
		}
		switch e.kind() {
		case "user":
			m.user(l, e)
		case "assistant":
			m.assistant(l, e)
		}
	}
	return m.out
}

func (m *msgReader) add(kind MessageKind, text string, l line, e *entry) {
	if len(text) > maxMessageText {
		text = text[:runeStart(text, maxMessageText)]
	}
	msg := Message{Kind: kind, Text: text, Off: l.off}
	if e != nil {
		msg.Time, msg.Branch, msg.Cwd = e.timestamp, e.branch, e.cwd
	}
	m.out = append(m.out, msg)
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xc0 == 0x80 {
		i--
	}
	return i
}

func (m *msgReader) user(l line, e entry) {
	if e.sidechain {
		return
	}
	if e.compactSummary {
		content := e.msg("content")
		text := content.String()
		if content.IsArray() {
			text = strings.Join(textBlocks(content), "\n")
		}
		m.add(Summarized, summaryText(text), l, &e)
		return
	}
	if text, ok := e.prompt(); ok {
		m.add(Typed, text, l, &e)
	}
}

// continuation opens the summary line Claude Code writes after a compaction: its sentence, not
// the summary's.
const continuation = "This session is being continued from a previous conversation"

// summaryText is a compaction summary without Claude Code's opening sentence.
func summaryText(text string) string {
	t := strings.TrimLeft(text, " \n")
	if !strings.HasPrefix(t, continuation) {
		return text
	}
	if i := strings.Index(t, "\n"); i >= 0 {
		return strings.TrimLeft(t[i+1:], "\n")
	}
	return text
}

func (m *msgReader) assistant(l line, e entry) {
	if e.synthetic() {
		return
	}
	var texts []string
	e.msg("content").ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			if !e.sidechain {
				texts = append(texts, b.Get("text").String())
			}
		case "tool_use":
			name := b.Get("name").Str
			if key, ok := editTools[name]; ok {
				// A subagent's edits change the same files: they count, as for the hand-back.
				if p := b.Get("input." + key).String(); p != "" {
					m.add(Edited, p, l, &e)
				}
			}
			if name == "Bash" && !e.sidechain {
				id := b.Get("id").Str
				if len(m.bash) >= maxBashIDs {
					clear(m.bash)
				}
				m.bash[id] = true
				m.add(Ran, b.Get("input.command").String(), l, &e)
				m.out[len(m.out)-1].ID = id
			}
		}
		return true
	})
	if len(texts) > 0 {
		m.add(Said, strings.Join(texts, "\n\n"), l, &e)
		// The text first, as Claude Code writes a message's blocks.
		last := m.out[len(m.out)-1]
		copy(m.out[1:], m.out[:len(m.out)-1])
		m.out[0] = last
	}
}

// results reads a tool-result line: a failure of any tool, and what came of a Bash command this
// reading saw. A result that is neither is not parsed: tool results are most of the bytes.
func (m *msgReader) results(l line) {
	failed := bytes.Contains(l.data, isErrorTrue)
	known := false
	for rest := l.data; !known; {
		i := bytes.Index(rest, toolUseIDKey)
		if i < 0 {
			break
		}
		rest = rest[i+len(toolUseIDKey):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			break
		}
		known = m.bash[string(rest[:j])]
		rest = rest[j:]
	}
	if !failed && !known || bytes.Contains(l.data, sidechainTrue) {
		return
	}
	e, ok := m.p.entry(l)
	if !ok || e.sidechain {
		return
	}
	e.msg("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str != "tool_result" {
			return true
		}
		id := b.Get("tool_use_id").Str
		bash, isErr := m.bash[id], b.Get("is_error").Bool()
		if !bash && !isErr {
			return true
		}
		c := b.Get("content")
		out := c.String()
		if c.IsArray() {
			out = strings.Join(textBlocks(c), "\n")
		}
		status, text := "exit 0", ""
		switch {
		case bash && l.truncated && !isErr:
			status = "result too long"
		case bash && isErr:
			status, text = failure(out)
		case isErr:
			status, text = "error", errorLine(out)
		}
		m.add(Outcome, text, l, &e)
		m.out[len(m.out)-1].ID, m.out[len(m.out)-1].Status = id, status
		return true
	})
}

// errorLine is what a tool other than Bash said when it failed: its message, one line, without
// the tags Claude Code wraps it in.
func errorLine(out string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(out, "\n"), "\n")
	first = strings.TrimSuffix(strings.TrimPrefix(first, "<tool_use_error>"), "</tool_use_error>")
	return oneLine(strings.TrimPrefix(first, "Error: "), maxOutputRunes)
}

// maxStart bounds how far from a transcript's start Start reads.
const maxStart = 1 << 20

// Start reads the beginning of a transcript (at most its first MiB) for the session's first
// prompt and the directory it started in: the first prompt the user typed and the first cwd a
// line records, each "" when none comes that early. Strings are cleaned copies.
func Start(r io.ReaderAt, size int64) (prompt, cwd string, err error) {
	_, err = Messages(r, 0, min(size, maxStart), func(m *Message) bool {
		if m == nil {
			return true
		}
		if cwd == "" && m.Cwd != "" {
			cwd = clean(m.Cwd)
		}
		if m.Kind == Typed {
			prompt = clean(m.Text)
		}
		return prompt == "" || cwd == ""
	})
	return prompt, cwd, err
}
