package catalog

import (
	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// NewRecord is the session record both of cairn's checkpoints write (checkpoint.RecordBlock):
// the commands and what came of them from the transcript's activity, the question and next step
// Claude's last message left open (or, when cairn reads neither, how that message ended), and the
// user's last requests.
func NewRecord(act transcript.Activity, lastText string, prompts []string) checkpoint.Record {
	r := checkpoint.Record{More: act.More, LastError: act.LastError, LastCommit: act.LastCommit, Requests: prompts, Decisions: act.Decisions}
	for _, c := range act.Commands {
		r.Commands = append(r.Commands, checkpoint.Command{Status: c.Status, Line: c.Line, Output: c.Output})
	}
	r.Question, r.NextStep = transcript.Pending(lastText)
	if r.Question == "" && r.NextStep == "" {
		r.Ended = transcript.Ending(lastText)
	}
	return r
}
