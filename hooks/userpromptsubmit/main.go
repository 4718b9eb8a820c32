// Command userpromptsubmit is cairn's UserPromptSubmit hook. Claude Code runs it on every prompt
// the user submits, before Claude sees the prompt, with no matcher: it must cost about as much
// as starting a process. It records the session's activity in the registry and delivers the
// messages other sessions of the project broadcast since its last prompt. It parks open loops automatically (docs/PARKING.md): a prompt that
// defers something ("let's come back to that", "park this", …), or a new request while Claude's
// last question is still unanswered, becomes a bullet under ## Parked items in
// .claude/state/session-context.md, and Claude is told so in one line of additionalContext.
// With 10 items open it parks nothing and tells Claude to have the user archive some first.
//
// It reads the transcript only from its end, and only when the prompt is not plainly an
// answer; it takes the lock and writes only when there is something to park.
package main

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/autopark"
	"github.com/cairn-hooks/cairn/pkg/brief"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

var hook = hookio.Hook{
	Name:    "userpromptsubmit",
	Event:   "UserPromptSubmit",
	Summary: "cairn's UserPromptSubmit hook: parks deferred ideas and unanswered questions automatically, and delivers broadcasts from other sessions.",
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

// run parks what the prompt leaves open and delivers other sessions' broadcasts, as one
// additionalContext (two JSON objects on stdout would read as plain text). Each part runs even
// when the other fails; a failure is a warning on stderr and the other part still reaches Claude.
func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParseUserPromptSubmit(inv.Payload)
	notice, err := park(inv, in)
	if err != nil {
		inv.Warn("parking: %v", err)
	}
	var parts []string
	if notice != "" {
		parts = append(parts, notice)
	}
	if in.SessionID != "" {
		budget, now := brief.MaxContext-len(notice)-1, inv.Now()
		var msgs string
		err := registry.Open(inv.Project).OnPrompt(in.SessionID, now, func(m []registry.Message, more bool) int {
			var n int
			msgs, n = brief.Deliveries(m, more, budget, now)
			return n
		})
		if err != nil {
			inv.Warn("session registry: %v", err)
		}
		if msgs != "" {
			parts = append(parts, msgs)
		}
	}
	return hookio.WriteContext(&inv.Out, "UserPromptSubmit", strings.Join(parts, "\n"))
}

// park runs automatic parking (autopark.Run) and returns the one line that tells Claude what
// happened, or "".
func park(inv *hookio.Invocation, in hookio.UserPromptSubmit) (string, error) {
	out, err := autopark.Run(in.Prompt,
		func() autopark.Store { return parking.Open(inv.Project, sessionfile.Open(inv.Project)) },
		func() string {
			if in.TranscriptPath == "" {
				return ""
			}
			text, err := transcript.LastAssistantText(in.TranscriptPath)
			if err != nil {
				inv.Warn("transcript: %v", err)
			}
			return text
		})
	if out.Warning != nil {
		inv.Warn("parked items: %v", out.Warning)
	}
	switch {
	case out.Refused > 0:
		return brief.Refused(out.Refused, out.Foreign), err
	case out.Parked != nil:
		return brief.Parked(*out.Parked), err
	}
	return "", err
}
