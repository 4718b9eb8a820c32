package brief

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
)

// Budgets of the hand-back (docs/DESIGN.md, Budgets): after a compaction it adds to Claude Code's
// summary only what summaries tend to lose; at startup it is a pointer, not the hand-off itself.
const (
	MaxAfterCompaction = 1500
	MaxPointer         = 600
)

// Bounds inside the budget, so that a long file list leaves room for the tasks.
const (
	maxHandbackFiles = 20
	maxHandbackTasks = 10
	maxDoingRunes    = 160
)

// Compacted is what SessionStart hands back after a compaction: the compaction's automatic
// checkpoint and what it recorded.
type Compacted struct {
	Checkpoint string   // relative to the root
	Files      []string // edited before the compaction, exact paths, most recent first
	Tasks      []string // the open tasks as the checkpoint lists them, ids included
	Parked     int      // open parked items: a count, never their text (never surfaced unasked)
}

// AfterCompaction is the hand-back after a compaction, at most MaxAfterCompaction characters:
// the exact paths edited, the open tasks with their ids, the number of parked items and the
// command that lists them, and the checkpoint that holds the rest, with the command that loads
// it. Every name is quoted when it could forge a line (plain.Name).
func AfterCompaction(c Compacted) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn hand-back after this compaction: the details a summary tends to lose. The whole record is the checkpoint %s (`/context-restore %s` loads it).\n", Quoted(c.Checkpoint, 200), plain.Name(restoreName(c.Checkpoint)))
	if c.Parked > 0 {
		fmt.Fprintf(&b, "Parked items: %d open, not shown here; `/session resume` lists them.\n", c.Parked)
	}
	out := Budget{Max: MaxAfterCompaction}
	out.Add(b.String(), "")
	if len(c.Files) > 0 {
		var f strings.Builder
		f.WriteString("Files edited before the compaction (exact paths):\n")
		for i, p := range c.Files {
			if i == maxHandbackFiles {
				fmt.Fprintf(&f, "… %d more: see the checkpoint's files_modified\n", len(c.Files)-i)
				break
			}
			f.WriteString("- " + Quoted(p, 300) + "\n")
		}
		out.Add(f.String(), plain.Name(c.Checkpoint))
	}
	if len(c.Tasks) > 0 {
		var t strings.Builder
		t.WriteString("Open tasks:\n")
		for i, l := range c.Tasks {
			if i == maxHandbackTasks {
				fmt.Fprintf(&t, "… %d more: see the checkpoint's Remaining Work\n", len(c.Tasks)-i)
				break
			}
			t.WriteString(plain.Line(l, 200) + "\n")
		}
		out.Add(t.String(), plain.Name(c.Checkpoint))
	}
	return out.String()
}

// Pointer is the hand-off SessionStart points to at startup and after /clear.
type Pointer struct {
	Checkpoint string    // relative to the root
	Branch     string    // the branch it was left on
	Ended      time.Time // when its session ended
	Doing      string    // one line of what that session was doing; "" when unknown
}

// HandoffPointer is the pointer to the branch's newest hand-off, at most MaxPointer characters:
// when that session ended, what it was doing in one line, and the command that loads it.
func HandoffPointer(p Pointer, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn: the last session on branch %s ended %s (%s) and left a hand-off checkpoint.",
		Quoted(p.Branch, 80), Ago(now, p.Ended), p.Ended.UTC().Format("2006-01-02 15:04 UTC"))
	if plain.Line(p.Doing, 0) != "" {
		fmt.Fprintf(&b, " What it was working on, as the hand-off file says: %s.", Quoted(p.Doing, maxDoingRunes))
	}
	fmt.Fprintf(&b, " `/context-restore %s` loads it, should the user want to pick up from there.\n", plain.Name(plain.Line(restoreName(p.Checkpoint), 100)))
	out := Budget{Max: MaxPointer}
	out.Add(b.String(), "")
	return out.String()
}

// restoreName is the argument of /context-restore that names the checkpoint at rel: its file
// name without .md, which restore matches exactly.
func restoreName(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		rel = rel[i+1:]
	}
	return strings.TrimSuffix(rel, ".md")
}
