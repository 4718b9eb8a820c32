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
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
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
		budget := hookio.MaxContext - len(notice) - 1
		msgs, err := registry.OnPrompt(inv.Files, inv.Root, in.SessionID, inv.Now(), budget)
		if err != nil {
			inv.Warn("session registry: %v", err)
		}
		if msgs != "" {
			parts = append(parts, msgs)
		}
	}
	return hookio.WriteContext(&inv.Out, "UserPromptSubmit", strings.Join(parts, "\n"))
}

// park applies the automatic parking rules and returns the one line that tells Claude what
// happened, or "". Cheapest check first: a prompt that is plainly an answer and defers nothing is
// settled without opening the transcript; with the parking lot surely full (MaxOpen bullets), a
// deferral is refused without reading the transcript or the legacy files.
func park(inv *hookio.Invocation, in hookio.UserPromptSubmit) (string, error) {
	prompt := strings.TrimSpace(in.Prompt)
	if prompt == "" || strings.ContainsRune("/!#", rune(prompt[0])) {
		return "", nil
	}
	_, _, deferral := parking.FindDeferral(prompt)
	if !deferral && parking.IsAnswer(prompt, "") {
		return "", nil
	}
	store := parking.New(inv.Root, inv.Config, inv.Files, inv.Now)
	fresh := -1 // the guard's count, read once
	if deferral {
		if fresh = store.FreshBullets(); fresh >= parking.MaxOpen {
			return guardNotice(fresh), nil
		}
	}
	assistant := ""
	if in.TranscriptPath != "" {
		var err error
		if assistant, err = transcript.LastAssistantText(in.TranscriptPath); err != nil {
			inv.Warn("transcript: %v", err)
		}
	}
	b, ok := parking.Decide(prompt, assistant)
	if !ok {
		return "", nil
	}
	if fresh < 0 {
		fresh = store.FreshBullets()
	}
	if fresh >= parking.MaxOpen {
		return guardNotice(fresh), nil
	}
	it, added, err := store.Park(b)
	var full *parking.FullError
	if errors.As(err, &full) {
		return guardNotice(len(full.Items)), nil
	}
	if err != nil || !added {
		return "", err // a prompt submitted again: its item is parked already and Claude was told
	}
	what := strings.TrimRight(it.Description, ". ")
	if !strings.HasSuffix(what, "?") && !strings.HasSuffix(what, "!") {
		what += "."
	}
	return fmt.Sprintf(
		"cairn parked an open loop as `%s`: %s Mention it to the user in one line; close it with `cairn session archive %s` once it is resolved.",
		it.Slug, what, it.Slug), nil
}

// guardNotice is the pollution guard's one line (seed 000: surface the list, ask to archive).
func guardNotice(n int) string {
	return fmt.Sprintf(
		"cairn did not park this open loop: %d items are parked already. Run `cairn session resume`, show the user the list and ask them to archive some (`cairn session archive <slug>`) before more can be parked.",
		n)
}
