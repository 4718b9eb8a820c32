package transcripttest

import (
	"fmt"
	"strconv"
	"time"
)

// Session writes the lines of one session in the shapes Claude Code writes them (those Generate
// writes, and a Bash result as 2.1.332 records it), saying exactly what a test gives it: a
// prompt, Claude's text, a command and how it ended, an edit, a compaction. Each line is a second
// after the one before.
type Session struct {
	ID, Cwd, Branch string
	Time            time.Time // the first line's
	b               []byte
	seq             int
}

func (s *Session) head(typ string) {
	s.seq++
	s.b = append(s.b, `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":`...)
	s.b = appendString(s.b, s.Cwd)
	s.b = append(s.b, `,"sessionId":`...)
	s.b = appendString(s.b, s.ID)
	s.b = append(s.b, `,"version":"2.1.332","gitBranch":`...)
	s.b = appendString(s.b, s.Branch)
	s.b = append(s.b, `,"type":`...)
	s.b = appendString(s.b, typ)
}

func (s *Session) tail() {
	s.b = append(s.b, `,"uuid":"u`...)
	s.b = strconv.AppendInt(s.b, int64(s.seq), 10)
	s.b = append(s.b, `","timestamp":`...)
	s.b = appendString(s.b, s.Time.Add(time.Duration(s.seq)*time.Second).UTC().Format("2006-01-02T15:04:05.000Z"))
	s.b = append(s.b, "}\n"...)
}

// Prompt writes a prompt the user typed.
func (s *Session) Prompt(text string) *Session {
	s.head("user")
	s.b = append(s.b, `,"message":{"role":"user","content":`...)
	s.b = appendString(s.b, text)
	s.b = append(s.b, '}')
	s.tail()
	return s
}

func (s *Session) assistant(block func()) {
	s.head("assistant")
	s.b = append(s.b, `,"message":{"model":"claude-opus-5-5","id":"msg_`...)
	s.b = strconv.AppendInt(s.b, int64(s.seq), 10)
	s.b = append(s.b, `","type":"message","role":"assistant","content":[`...)
	block()
	s.b = append(s.b, `],"stop_reason":null}`...)
	s.tail()
}

// Say writes Claude's text.
func (s *Session) Say(text string) *Session {
	s.assistant(func() {
		s.b = append(s.b, `{"type":"text","text":`...)
		s.b = appendString(s.b, text)
		s.b = append(s.b, '}')
	})
	return s
}

func (s *Session) toolUse(name string, input func()) string {
	id := fmt.Sprintf("toolu_%s_%d", s.ID[:min(8, len(s.ID))], s.seq+1)
	s.assistant(func() {
		s.b = append(s.b, `{"type":"tool_use","id":`...)
		s.b = appendString(s.b, id)
		s.b = append(s.b, `,"name":`...)
		s.b = appendString(s.b, name)
		s.b = append(s.b, `,"input":{`...)
		input()
		s.b = append(s.b, `}}`...)
	})
	return id
}

func (s *Session) result(id, content string, isError bool) {
	s.head("user")
	s.b = append(s.b, `,"message":{"role":"user","content":[{"type":"tool_result","content":`...)
	s.b = appendString(s.b, content)
	s.b = append(s.b, `,"is_error":`...)
	s.b = strconv.AppendBool(s.b, isError)
	s.b = append(s.b, `,"tool_use_id":`...)
	s.b = appendString(s.b, id)
	s.b = append(s.b, `}]}`...)
	s.tail()
}

// Bash writes a command Claude ran and its result: output, or "Exit code N" and output when it
// exited otherwise than 0.
func (s *Session) Bash(command string, exit int, output string) *Session {
	id := s.toolUse("Bash", func() {
		s.b = append(s.b, `"command":`...)
		s.b = appendString(s.b, command)
	})
	if exit != 0 {
		s.result(id, fmt.Sprintf("Exit code %d\n%s", exit, output), true)
	} else {
		s.result(id, output, false)
	}
	return s
}

// Edit writes an Edit of path and its result.
func (s *Session) Edit(path string) *Session {
	id := s.toolUse("Edit", func() {
		s.b = append(s.b, `"file_path":`...)
		s.b = appendString(s.b, path)
		s.b = append(s.b, `,"old_string":"a","new_string":"b"`...)
	})
	s.result(id, "The file "+path+" has been updated successfully.", false)
	return s
}

// Read writes a Read of path whose result is about n bytes of filler: a tool's output, the bulk
// of a transcript, which a history does not keep.
func (s *Session) Read(path string, n int) *Session {
	id := s.toolUse("Read", func() {
		s.b = append(s.b, `"file_path":`...)
		s.b = appendString(s.b, path)
	})
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, "lorem ipsum dolor sit amet "...)
	}
	s.result(id, string(out), false)
	return s
}

// Compact writes a compaction: the boundary and the summary line after it.
func (s *Session) Compact(summary string) *Session {
	s.head("system")
	s.b = append(s.b, `,"subtype":"compact_boundary","content":"Conversation compacted","level":"info","compactMetadata":{"trigger":"auto","preTokens":160000}`...)
	s.tail()
	s.head("user")
	s.b = append(s.b, `,"message":{"role":"user","content":`...)
	s.b = appendString(s.b, "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n"+summary)
	s.b = append(s.b, `},"isCompactSummary":true,"isVisibleInTranscriptOnly":true`...)
	s.tail()
	return s
}

// Bytes returns the lines written so far.
func (s *Session) Bytes() []byte { return s.b }

// Reset forgets the lines written so far (the clock goes on): what comes next is what a test
// appends to a transcript already on disk.
func (s *Session) Reset() { s.b = s.b[:0] }
