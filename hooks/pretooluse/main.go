// Command pretooluse is cairn's PreToolUse hook. Claude Code runs it before every tool call, with
// no matcher (a PreToolUse matcher that fails to match fails closed from Claude Code 2.1.288:
// docs/DESIGN.md, Facts about Claude Code), so it branches on the tool itself: for a tool that
// edits a file (Edit, Write, MultiEdit, NotebookEdit) it claims the file for the session and, when
// another live session of the project holds it, tells Claude which, since when, on which branch
// and what it is working on (collision.Before, the one function to read next). Before a shell
// command (Bash) it notes where the session's transcript stands and the call's id
// (claims.NoteCommand), so that a compaction finds that command however far back it lies without
// reading back to it. Every other
// tool call returns at once, having decoded the tool's name alone.
//
// It never blocks and never grants: it exits 0, and its one output is additionalContext for the
// model — or, with CAIRN_CLAIMS=ask in settings.json's env, permissionDecision "ask", which puts
// the warning to the user before the edit. CAIRN_CLAIMS=off turns it into a no-op.
package main

import (
	"context"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/collision"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
)

var hook = hookio.Hook{
	Name:    "pretooluse",
	Event:   "PreToolUse",
	Summary: "cairn's PreToolUse hook: before Claude edits a file, claims it for the session and tells Claude when another live session of this worktree is editing it too; before a shell command, notes where the session's transcript stands, for the next compaction's record; never blocks. CAIRN_CLAIMS in settings.json's env changes it: ask puts the warning to the user before the edit, off claims, notes and says nothing.",
	Wants:   wants,
	Run:     run,
}

func main() {
	os.Exit(hookio.Main(context.Background(), hook, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, project.EnvFrom(os.Environ()), time.Now))
}

// wants is the hook's gate: a tool that edits a file, or runs a shell command in a session whose
// transcript is named, with claims on.
func wants(env project.Env, payload []byte) bool {
	tool := hookio.ToolName(payload)
	return collision.ModeOf(env) != collision.Off && (hookio.EditsFile(tool) || tool == "Bash" && hookio.NamesTranscript(payload))
}

func run(ctx context.Context, inv *hookio.Invocation) error {
	in := hookio.ParsePreToolUse(inv.Payload)
	if in.ToolName == "Bash" {
		// Where the transcript stands, and the call's id: the command's lines are written at or
		// after that length (a new session's transcript may not exist yet: 0). No output. A
		// subagent's call is not noted: its lines go to the subagent's own transcript.
		if in.AgentID != "" {
			return nil
		}
		var at int64
		if fi, err := os.Stat(in.TranscriptPath); err == nil && fi.Mode().IsRegular() {
			at = fi.Size()
		} else if err == nil || in.ToolUseID == "" {
			return nil // not a file, or no id to find the command by
		}
		return claims.Open(inv.Project, registry.Open(inv.Project)).NoteCommand(in.SessionID, at, in.ToolUseID)
	}
	text := collision.Before(inv.Project, claims.Open(inv.Project, registry.Open(inv.Project)), collision.Input{
		SessionID: in.SessionID, FilePath: in.FilePath, Cwd: in.Cwd,
	})
	if collision.ModeOf(inv.Env) == collision.Ask {
		return hookio.WriteAsk(&inv.Out, text)
	}
	return hookio.WriteContext(&inv.Out, "PreToolUse", text)
}
