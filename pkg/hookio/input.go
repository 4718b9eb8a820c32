// Package hookio is Claude Code's hook contract for cairn's binaries: it decodes exactly one JSON
// payload from stdin under a deadline, types the four events' inputs, writes output the way each
// event accepts it, and runs a hook so that it always fails open.
package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// stdinDeadline is how long a hook waits for its payload. Claude Code sometimes never closes
// stdin (docs/DESIGN.md, Facts about Claude Code), so the hook reads one object, never to EOF,
// and gives up after this.
const stdinDeadline = 2 * time.Second

// maxPayload bounds what a hook reads from stdin: a pasted prompt larger than this is refused
// rather than held in memory (peak memory budget is 16 MiB: docs/DESIGN.md, Budgets).
const maxPayload = 4 << 20

// errNoInput means nothing arrived on stdin before the deadline (or stdin was empty).
var errNoInput = errors.New("no input on stdin")

// ReadPayload decodes exactly one JSON object from r and returns its bytes. It returns after the
// object's closing brace without waiting for EOF; if nothing complete arrives within deadline it
// returns errNoInput. A non-object, garbage, or a payload over maxPayload is an error.
func ReadPayload(r io.Reader, deadline time.Duration) ([]byte, error) {
	type result struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan result, 1)
	go func() {
		dec := json.NewDecoder(io.LimitReader(r, maxPayload))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		ch <- result{raw, err}
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case res := <-ch:
		if errors.Is(res.err, io.EOF) {
			return nil, errNoInput
		}
		if errors.Is(res.err, io.ErrUnexpectedEOF) {
			return nil, errors.New("stdin: truncated JSON payload")
		}
		if res.err != nil {
			return nil, fmt.Errorf("stdin: %v", res.err)
		}
		if t := bytes.TrimLeft(res.raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
			return nil, errors.New("stdin: payload is not a JSON object")
		}
		return res.raw, nil
	case <-timer.C:
		// The reading goroutine stays blocked on stdin; the process exits soon after.
		return nil, errNoInput
	}
}

// Common holds the fields Claude Code sends with every event. Only SessionID, HookEventName and
// Cwd are expected; everything else may be missing.
type Common struct {
	SessionID      string
	HookEventName  string
	Cwd            string
	TranscriptPath string
}

// SessionStart is the SessionStart payload. Source is startup|resume|clear|compact|fork.
type SessionStart struct {
	Common
	Source string
}

// PreCompact is the PreCompact payload. Trigger is manual|auto (see trigger); CustomInstructions
// is nil when the field is null or missing.
type PreCompact struct {
	Common
	Trigger            string
	CustomInstructions *string
}

// PostCompact is the PostCompact payload (Claude Code 2.1.76 and later). Trigger is
// manual|auto; CompactSummary is the summary the model just wrote, as it replied.
type PostCompact struct {
	Common
	Trigger        string
	CompactSummary string
}

// SessionEnd is the SessionEnd payload. An unknown Reason is reported as "other".
type SessionEnd struct {
	Common
	Reason string
}

// UserPromptSubmit is the UserPromptSubmit payload.
type UserPromptSubmit struct {
	Common
	Prompt string
}

// parseCommon reads the common fields. Unknown fields are ignored; a field of the wrong type
// reads as empty.
func parseCommon(raw []byte) Common {
	r := gjson.GetManyBytes(raw, "session_id", "hook_event_name", "cwd", "transcript_path")
	return Common{
		SessionID:      str(r[0]),
		HookEventName:  str(r[1]),
		Cwd:            str(r[2]),
		TranscriptPath: str(r[3]),
	}
}

func str(r gjson.Result) string {
	if r.Type != gjson.String {
		return ""
	}
	// JSON text is UTF-8, but gjson hands back a string's bytes as they came: a payload's
	// invalid bytes become U+FFFD here, once, as every file writer would write them, so that a
	// compaction's identity reads back from a file as it was built.
	return strings.ToValidUTF8(r.Str, "\uFFFD")
}

// ParseSessionStart types a SessionStart payload.
func ParseSessionStart(raw []byte) SessionStart {
	return SessionStart{Common: parseCommon(raw), Source: str(gjson.GetBytes(raw, "source"))}
}

// ParsePreCompact types a PreCompact payload.
func ParsePreCompact(raw []byte) PreCompact {
	r := gjson.GetManyBytes(raw, "trigger", "custom_instructions")
	p := PreCompact{Common: parseCommon(raw), Trigger: trigger(r[0])}
	if r[1].Type == gjson.String {
		s := r[1].Str
		p.CustomInstructions = &s
	}
	return p
}

// ParsePostCompact types a PostCompact payload.
func ParsePostCompact(raw []byte) PostCompact {
	r := gjson.GetManyBytes(raw, "trigger", "compact_summary")
	return PostCompact{Common: parseCommon(raw), Trigger: trigger(r[0]), CompactSummary: str(r[1])}
}

// trigger reads a compaction's trigger. Claude Code sends manual or auto; a later version may
// add a word, which is kept, but anything that is not one short lower-case word reads as
// "unknown": the trigger names the compaction's checkpoint and is part of its identity, and a
// payload must not choose a file name. Missing, it stays "".
func trigger(r gjson.Result) string {
	s := str(r)
	if s == "" {
		return ""
	}
	if len(s) > 32 {
		return "unknown"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return "unknown"
		}
	}
	return s
}

// ParseSessionEnd types a SessionEnd payload.
func ParseSessionEnd(raw []byte) SessionEnd {
	p := SessionEnd{Common: parseCommon(raw), Reason: str(gjson.GetBytes(raw, "reason"))}
	switch p.Reason {
	case "clear", "resume", "logout", "prompt_input_exit", "other":
	default:
		p.Reason = "other"
	}
	return p
}

// PreToolUse is the PreToolUse payload of a tool that edits a file: the tool's name and the file
// it names (tool_input.file_path, or notebook_path for NotebookEdit); FilePath is "" for any other
// tool.
type PreToolUse struct {
	Common
	ToolName  string
	FilePath  string
	ToolUseID string // the tool call's id, which its tool_use block in the transcript carries
	AgentID   string // set when a subagent makes the call: its lines go to the subagent's transcript
}

// editTools are the tools that change a file, and the input field that names it (the same the
// transcript reader knows: docs/TRANSCRIPT.md).
var editTools = map[string]string{
	"Edit":         "tool_input.file_path",
	"Write":        "tool_input.file_path",
	"MultiEdit":    "tool_input.file_path",
	"NotebookEdit": "tool_input.notebook_path",
}

// ToolName reads a tool payload's tool_name and nothing else: PreToolUse runs before every tool
// call, and a call that edits no file must cost what starting the process costs.
func ToolName(raw []byte) string { return str(gjson.GetBytes(raw, "tool_name")) }

// NamesTranscript reports whether a payload names its session's transcript, reading that field
// alone (PreToolUse's gate, before every tool call).
func NamesTranscript(raw []byte) bool { return str(gjson.GetBytes(raw, "transcript_path")) != "" }

// EditsFile reports whether the tool named in a PreToolUse payload edits a file.
func EditsFile(tool string) bool { _, ok := editTools[tool]; return ok }

// ParsePreToolUse types a PreToolUse payload.
func ParsePreToolUse(raw []byte) PreToolUse {
	p := PreToolUse{Common: parseCommon(raw), ToolName: ToolName(raw), ToolUseID: str(gjson.GetBytes(raw, "tool_use_id")),
		AgentID: str(gjson.GetBytes(raw, "agent_id"))}
	if field, ok := editTools[p.ToolName]; ok {
		p.FilePath = str(gjson.GetBytes(raw, field))
	}
	return p
}

// ParseUserPromptSubmit types a UserPromptSubmit payload.
func ParseUserPromptSubmit(raw []byte) UserPromptSubmit {
	return UserPromptSubmit{Common: parseCommon(raw), Prompt: str(gjson.GetBytes(raw, "prompt"))}
}
