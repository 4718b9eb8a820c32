package hookio

import (
	"io"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
)

// WriteContext writes text as additional context for SessionStart or UserPromptSubmit, as
// hookSpecificOutput.additionalContext: the one form both events accept as context, immune to
// a stray byte turning it into different plain text. Empty text writes nothing at all.
// Other events cannot add context (PreCompact's stdout would become compaction instructions,
// SessionEnd's is discarded), so for them this writes nothing.
func WriteContext(w io.Writer, event, text string) error {
	if text == "" {
		return nil
	}
	switch event {
	case "SessionStart", "UserPromptSubmit":
	default:
		return nil
	}
	top := jsonw.Open(make([]byte, 0, len(text)+128))
	o := jsonw.Open(top.Key("hookSpecificOutput"))
	o.Str("hookEventName", event)
	o.Str("additionalContext", text)
	top.B = o.Close()
	_, err := w.Write(append(top.Close(), '\n'))
	return err
}
