package catalog

import (
	"testing"

	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// The record quotes how Claude's last message ended only when it holds neither a question nor a
// next step cairn reads: those say what is open already.
func TestNewRecordEnded(t *testing.T) {
	for _, c := range []struct{ last, q, next, ended string }{
		{"The parser is in place. What remains is wiring the exporter into the CLI.", "", "", "What remains is wiring the exporter into the CLI."},
		{"The parser is in place. Shall I wire the exporter too?", "Shall I wire the exporter too?", "", ""},
		{"The parser is in place. Next, I'll wire the exporter.", "", "Next, I'll wire the exporter.", ""},
		{"Committed.", "", "", ""},
	} {
		r := NewRecord(transcript.Activity{}, c.last, nil)
		if r.Question != c.q || r.NextStep != c.next || r.Ended != c.ended {
			t.Errorf("NewRecord(%q): question %q, next %q, ended %q; want %q, %q, %q", c.last, r.Question, r.NextStep, r.Ended, c.q, c.next, c.ended)
		}
	}
}
