package hookio

import (
	"io"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
)

// WriteContext writes text as additional context for SessionStart, UserPromptSubmit or
// PreToolUse, as hookSpecificOutput.additionalContext: the one form these events accept as
// context, immune to a stray byte turning it into different plain text (PreToolUse's plain stdout
// and systemMessage never reach the model: testscripts/e2e/FINDINGS.md §m). Empty text writes
// nothing at all. Other events cannot add context (PreCompact's stdout would become compaction
// instructions, SessionEnd's is discarded), so for them this writes nothing.
func WriteContext(w io.Writer, event, text string) error {
	if text == "" {
		return nil
	}
	switch event {
	case "SessionStart", "UserPromptSubmit", "PreToolUse":
	default:
		return nil
	}
	return writeSpecific(w, event, "", text)
}

// WriteAsk writes PreToolUse's output that asks the user before the tool runs:
// permissionDecision "ask", with text as the reason the user is shown and as additional context
// for the model (in -p mode, where no one can answer, the client refuses the tool and the reason
// is its result: FINDINGS.md §m). Nothing else cairn writes takes a permission decision, and
// never "allow", which would skip the user's own prompt.
func WriteAsk(w io.Writer, text string) error {
	if text == "" {
		return nil
	}
	return writeSpecific(w, "PreToolUse", "ask", text)
}

// writeSpecific writes one hookSpecificOutput object: the event, a permission decision with text
// as its reason when decision is set, and text as additionalContext.
func writeSpecific(w io.Writer, event, decision, text string) error {
	top := jsonw.Open(make([]byte, 0, 2*len(text)+160))
	o := jsonw.Open(top.Key("hookSpecificOutput"))
	o.Str("hookEventName", event)
	if decision != "" {
		o.Str("permissionDecision", decision)
		o.Str("permissionDecisionReason", text)
	}
	o.Str("additionalContext", text)
	top.B = o.Close()
	_, err := w.Write(append(top.Close(), '\n'))
	return err
}
