package brief

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/plain"
)

// Budgets of the hand-back (docs/DESIGN.md, Budgets): after a compaction it adds to Claude Code's
// summary what summaries tend to lose; at startup and after /clear, the last session's key facts
// and the pointer to its whole hand-off.
const (
	MaxAfterCompaction = 1500
	MaxPointer         = 1000
)

// Bounds inside the budget, so that a long file list leaves room for the tasks.
const (
	maxHandbackFiles    = 20
	maxHandbackTasks    = 10
	maxHandbackCommands = 6
	maxPointerFiles     = 8
	maxDoingRunes       = 160
	maxFactRunes        = 200
)

// Compacted is what SessionStart hands back after a compaction: the compaction's automatic
// checkpoint and what it recorded.
type Compacted struct {
	Checkpoint string   // relative to the root
	Branch     string   // the branch now
	Files      []string // edited in the session, exact paths, most recent first
	Record     checkpoint.Record
	Lost       []string // the loss record: what Claude Code's summary lacks ("kind: value"), once PostCompact ran
	Tasks      []string // the open tasks as the checkpoint lists them, ids included
	Parked     int      // open parked items: a count, never their text (never surfaced unasked)
}

// AfterCompaction is the hand-back after a compaction, at most MaxAfterCompaction characters, in
// the order summaries lose things most: the branch, the last error and the commands with their
// exit status, the last commit, the exact paths edited, Claude's open question and next step,
// the user's last requests in their words, the open tasks with their ids, the number of parked
// items and the command that lists them, and the checkpoint that holds the rest, with the command
// that loads it. Every value is quoted (Quoted), so none can forge a line of cairn's.
func AfterCompaction(c Compacted) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn hand-back after this compaction: the details a summary tends to lose. The whole record is the checkpoint %s (`/context-restore %s` loads it).\n", Quoted(c.Checkpoint, 200), plain.Name(restoreName(c.Checkpoint)))
	if c.Branch != "" {
		fmt.Fprintf(&b, "Branch: %s.\n", Quoted(c.Branch, 100))
	}
	if c.Parked > 0 {
		fmt.Fprintf(&b, "Parked items: %d open, not shown here; `/session resume` lists them.\n", c.Parked)
	}
	out := Budget{Max: MaxAfterCompaction}
	out.Add(b.String(), "")
	if len(c.Lost) > 0 {
		// Claude Code's summary is known (a hand-back at a resume after the compaction): what
		// it lacks comes first, said as such.
		var l strings.Builder
		l.WriteString("Not in Claude Code's summary of this compaction (cairn's record holds them):\n")
		for _, x := range c.Lost {
			kind, v, _ := strings.Cut(x, ": ")
			fmt.Fprintf(&l, "- %s: %s\n", plain.Line(kind, 20), Quoted(v, maxFactRunes))
		}
		out.Add(l.String(), plain.Name(c.Checkpoint))
	}
	r := c.Record
	if r.LastError != "" || len(r.Commands) > 0 || r.LastCommit != "" {
		out.Add(commandLines(r, maxHandbackCommands), plain.Name(c.Checkpoint))
	}
	if len(c.Files) > 0 {
		var f strings.Builder
		f.WriteString("Files edited in this session, most recent first (exact paths):\n")
		for i, p := range c.Files {
			if i == maxHandbackFiles {
				fmt.Fprintf(&f, "… %d more: see the checkpoint's files_modified\n", len(c.Files)-i)
				break
			}
			f.WriteString("- " + Quoted(p, 300) + "\n")
		}
		out.Add(f.String(), plain.Name(c.Checkpoint))
	}
	out.Add(openLines(r), plain.Name(c.Checkpoint))
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

// commandLines lists the last error, at most max commands with their exit status and the last
// commit, each value quoted.
func commandLines(r checkpoint.Record, max int) string {
	var b strings.Builder
	if r.LastError != "" {
		fmt.Fprintf(&b, "Last error a command printed: %s\n", Quoted(r.LastError, maxFactRunes))
	}
	if len(r.Commands) > 0 {
		b.WriteString("Commands run, most recent first (exit status):\n")
		for i, cmd := range r.Commands {
			if i == max {
				fmt.Fprintf(&b, "… %d more: see the checkpoint's Notes\n", len(r.Commands)-i+r.More)
				break
			}
			fmt.Fprintf(&b, "- %s: %s", plain.Line(cmd.Status, 20), Quoted(cmd.Line, maxFactRunes))
			if cmd.Output != "" && cmd.Output != r.LastError {
				fmt.Fprintf(&b, " → %s", Quoted(cmd.Output, maxFactRunes))
			}
			b.WriteString("\n")
		}
	}
	if r.LastCommit != "" {
		fmt.Fprintf(&b, "Last commit: %s\n", Quoted(r.LastCommit, maxFactRunes))
	}
	return b.String()
}

// openLines says what was left open: Claude's question and next step, the user's last requests.
func openLines(r checkpoint.Record) string {
	var b strings.Builder
	if r.Question != "" {
		fmt.Fprintf(&b, "Claude's last message asked: %s\n", Quoted(r.Question, maxFactRunes))
	}
	if r.NextStep != "" {
		fmt.Fprintf(&b, "Claude's stated next step: %s\n", Quoted(r.NextStep, maxFactRunes))
	}
	if len(r.Requests) > 0 {
		b.WriteString("The user's last requests, most recent first, in their words:\n")
		for _, q := range r.Requests {
			b.WriteString("- " + Quoted(q, maxFactRunes) + "\n")
		}
	}
	return b.String()
}

// Pointer is the hand-off SessionStart points to at startup and after /clear, with the key facts
// of the session that left it.
type Pointer struct {
	Checkpoint string    // relative to the root
	Branch     string    // the branch it was left on
	Ended      time.Time // when its session ended
	Doing      string    // one line of what that session was doing; "" when unknown
	Files      []string  // the files it edited, most recent first
	Record     checkpoint.Record
	Tasks      []string // its open tasks as the hand-off lists them
}

// HandoffPointer is the last session's hand-off for the next one, at most MaxPointer characters:
// when that session ended and what it was doing, then its key facts — the files it edited, its
// open question and next step, its last error and commit, its open tasks — and the command that
// loads the whole hand-off. The command comes first, so that a cut never loses it.
func HandoffPointer(p Pointer, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn: the last session on branch %s ended %s (%s) and left a hand-off checkpoint.",
		Quoted(p.Branch, 80), Ago(now, p.Ended), p.Ended.UTC().Format("2006-01-02 15:04 UTC"))
	if plain.Line(p.Doing, 0) != "" {
		fmt.Fprintf(&b, " What it was working on, as the hand-off file says: %s.", Quoted(p.Doing, maxDoingRunes))
	}
	fmt.Fprintf(&b, " `/context-restore %s` loads it, should the user want to pick up from there.", plain.Name(plain.Line(restoreName(p.Checkpoint), 100)))
	r := p.Record
	var facts strings.Builder
	if len(p.Files) > 0 {
		var names []string
		for i, f := range p.Files {
			if i == maxPointerFiles {
				names = append(names, fmt.Sprintf("… %d more", len(p.Files)-i))
				break
			}
			names = append(names, Quoted(f, 200))
		}
		fmt.Fprintf(&facts, "- files edited, most recent first: %s\n", strings.Join(names, ", "))
	}
	if r.Question != "" {
		fmt.Fprintf(&facts, "- Claude's last message asked: %s\n", Quoted(r.Question, maxFactRunes))
	}
	if r.NextStep != "" {
		fmt.Fprintf(&facts, "- Claude's stated next step: %s\n", Quoted(r.NextStep, maxFactRunes))
	}
	if r.LastError != "" {
		fmt.Fprintf(&facts, "- last error a command printed: %s\n", Quoted(r.LastError, maxFactRunes))
	}
	if r.LastCommit != "" {
		fmt.Fprintf(&facts, "- last commit: %s\n", Quoted(r.LastCommit, maxFactRunes))
	}
	for i, t := range p.Tasks {
		if i == 3 {
			fmt.Fprintf(&facts, "- … %d more open tasks\n", len(p.Tasks)-i)
			break
		}
		fmt.Fprintf(&facts, "- open task: %s\n", Quoted(strings.TrimLeft(t, "0123456789. "), maxFactRunes))
	}
	if len(r.Requests) > 0 {
		fmt.Fprintf(&facts, "- the user's last request, in their words: %s\n", Quoted(r.Requests[0], maxFactRunes))
	}
	if facts.Len() > 0 {
		b.WriteString(" What it recorded:")
	}
	out := Budget{Max: MaxPointer}
	out.Add(b.String()+"\n", "")
	out.Add(facts.String(), plain.Name(p.Checkpoint))
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
