package brief

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/registry"
)

// Claimed is another live session's claim on a file Claude is editing, as PreToolUse tells it.
type Claimed struct {
	Claim   claims.Claim
	Session registry.Session // its registry record: the branch it registered on
	// Working is the last request its user typed, from its own transcript, already redacted; ""
	// when it could not be read.
	Working string
}

// Bounds of the claim warning: it goes out before every edit of a file another session holds,
// so it stays a few lines whatever the sessions' requests, paths and branches.
const (
	maxClaimSessions = 3
	maxClaimPath     = 200
	maxClaimBranch   = 80
	maxClaimRequest  = 200
)

// ClaimWarning is what cairn tells Claude when other live sessions of this checkout hold claims
// on the file at path (relative to the root) that Claude is editing: one line per session (the
// most recent first, at most three, then how many more), with its short id, branch, since when
// it claims the file and when it last edited it, and what its user last asked; then what to do.
// The path, the branch and the request come from files and transcripts and are quoted fields;
// the rest are cairn's words. "" for no claim.
func ClaimWarning(path string, others []Claimed, now time.Time) string {
	if len(others) == 0 {
		return ""
	}
	file := quoted(path, maxClaimPath)
	var b strings.Builder
	if len(others) == 1 {
		fmt.Fprintf(&b, "cairn: another live Claude Code session of this project is editing %s too:\n", file)
	} else {
		fmt.Fprintf(&b, "cairn: %d other live Claude Code sessions of this project are editing %s too:\n", len(others), file)
	}
	for i, o := range others {
		if i == maxClaimSessions {
			fmt.Fprintf(&b, "- … and %d more: cairn claims lists them\n", len(others)-i)
			break
		}
		fmt.Fprintf(&b, "- session %s", registry.ShortID(o.Claim.Session))
		if o.Session.Branch != "" {
			fmt.Fprintf(&b, ", on branch %s", quoted(o.Session.Branch, maxClaimBranch))
		}
		fmt.Fprintf(&b, ", has claimed it since %s (%s) and last edited it %s", o.Claim.Since.In(now.Location()).Format("15:04"), Ago(now, o.Claim.Since), Ago(now, o.Claim.Touched))
		if o.Working != "" {
			fmt.Fprintf(&b, "; its user last asked: %s", quoted(o.Working, maxClaimRequest))
		}
		b.WriteString("\n")
	}
	them := "that session's"
	if len(others) > 1 {
		them = "those sessions'"
	}
	fmt.Fprintf(&b, "This edit and %s edits may overwrite each other. Re-read %s before changing it further, and tell the user which session holds it, so that they decide who edits it; `cairn session broadcast <message>` reaches the other sessions.", them, file)
	return b.String()
}
