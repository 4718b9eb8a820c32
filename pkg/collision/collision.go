// Package collision is what cairn does before Claude edits a file (the PreToolUse hook, which
// Claude Code runs before every tool call): it claims the file for the session and, when other
// live sessions of the checkout hold claims on it, tells Claude which, on which branch, since when
// and what they are working on (brief.ClaimWarning). Parallel sessions on one project are common,
// and one overwriting another's edits is where users lose work. It never blocks an edit and never
// grants one: by default it tells Claude (additionalContext), and with CAIRN_CLAIMS=ask it asks
// the user instead; with CAIRN_CLAIMS=off it does nothing.
//
// The route of a PreToolUse payload, from hooks/pretooluse/main.go, is Before:
//
//  1. Wants, asked by hookio.Main before anything else: a tool that edits no file (hookio.EditsFile
//     on the payload's tool_name alone), or CAIRN_CLAIMS=off, ends the hook there;
//  2. claims.Store.Rel: the file relative to the checkout's root; a file outside it is not claimed;
//  3. claims.Store.Record: the claim, and the other sessions' live claims this one was not told
//     of yet (a read of the path's claim file; the registry only when another session holds it);
//  4. only then, for each such session, its user's last request, read from the end of its own
//     transcript (project.Transcript, transcript.LastPrompt, at most lastPromptWindow), redacted;
//  5. brief.ClaimWarning.
package collision

import (
	"strings"

	"github.com/cairn-hooks/cairn/pkg/brief"
	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// Mode is what CAIRN_CLAIMS asks for.
type Mode int

const (
	Tell Mode = iota // warn Claude (the default)
	Ask              // ask the user before the edit runs (permissionDecision "ask")
	Off              // claim nothing, say nothing
)

// ModeOf reads CAIRN_CLAIMS, which settings.json's env block passes to hooks: off (or 0, false,
// no) turns claims off, ask asks the user; anything else tells Claude.
func ModeOf(env project.Env) Mode {
	switch strings.ToLower(strings.TrimSpace(env.Get("CAIRN_CLAIMS"))) {
	case "off", "0", "false", "no":
		return Off
	case "ask":
		return Ask
	}
	return Tell
}

// lastPromptWindow bounds how much of another session's transcript is read for its last request:
// a prompt is among the last lines of a live session, and a hook before an edit must not pay for a
// transcript of hundreds of megabytes.
const lastPromptWindow = 4 << 20

// Input is what Before needs of a PreToolUse payload.
type Input struct {
	SessionID string
	FilePath  string // tool_input.file_path (notebook_path), absolute or relative to Cwd
	Cwd       string
}

// Before claims the file in for its session and returns the warning for Claude about the other
// live sessions that hold it, "" for none. A claim that cannot be recorded is a warning on p's
// voice; the other sessions' claims found are still told.
func Before(p *project.Project, store *claims.Store, in Input) string {
	rel, ok := store.Rel(in.FilePath, in.Cwd)
	if !ok || in.SessionID == "" {
		return ""
	}
	out, err := store.Record(in.SessionID, rel)
	if err != nil {
		p.Warn("claims: %v", err)
	}
	if len(out.Others) == 0 {
		return ""
	}
	others := make([]brief.Claimed, 0, len(out.Others))
	for _, c := range out.Others {
		o := brief.Claimed{Claim: c, Session: out.Sessions[c.Session]}
		if path, ok := p.Transcript(c.Session); ok {
			if prompt, err := transcript.LastPrompt(path, lastPromptWindow); err == nil {
				o.Working = redact.Redact(prompt)
			}
		}
		others = append(others, o)
	}
	return brief.ClaimWarning(rel, others, p.Now())
}
