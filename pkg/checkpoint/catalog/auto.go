package catalog

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tasks"
)

// Bounds on what an automatic checkpoint copies, so that a huge task list or a pasted prompt
// cannot make one large (docs/DESIGN.md, Invariants: "Bounded").
const (
	maxAutoTasks   = 50
	maxAutoPrompts = 5
	maxPromptRunes = 500
	maxNoteRunes   = 2000
)

// recentScan is how many of the newest automatic checkpoints Auto reads for an event id when the
// catalog has lost it (deleted by hand, or a PreCompact killed between its checkpoint and the
// catalog). Names sort by the second they were taken in, and within one second by a random
// suffix, so the scan also reads every name of the last second it reaches: a second can hold
// more checkpoints than the scan's count.
const recentScan = 8

// maxScanSecond bounds that scan whatever one second holds.
const maxScanSecond = 512

// AutoInput is what the PreCompact hook knows when it takes an automatic checkpoint.
type AutoInput struct {
	SessionID    string
	Trigger      string // manual or auto
	Event        string // the compaction's identity (package compaction), as the other records write it
	Instructions *string
	Branch       string
	Now          time.Time
	Started      time.Time       // the session's start, from the registry; zero when unknown
	Run          *runstate.Run   // nil without an active run
	State        *runstate.State // the run's state.json; nil without an active run
	Open         []tasks.Task
	Completed    []tasks.Task
	FilesEdited  []string          // since the last compaction, most recent first
	Prompts      []string          // the last user prompts, most recent first, as typed: Auto redacts them
	PromptsAt    []int64           // where their lines start in the transcript (Entry.PromptsAt)
	Record       checkpoint.Record // the commands since the last compaction, Claude's question and next step
}

// Auto writes the automatic checkpoint for one compaction (kind auto) and returns its path.
// Claude Code may fire PreCompact several times for one compaction, sometimes in parallel; Auto
// writes once per in.Event: under the catalog's lock it looks the event up in the catalog (and,
// should the catalog have lost it, in the event: field of the newest automatic checkpoints) and
// returns the existing checkpoint with written false. No wall-clock window is involved. A new
// checkpoint runs the retention rule (see RetainPerBranch), whose removals are logged in the
// timeline.
func (x *Catalog) Auto(in AutoInput) (saved checkpoint.Saved, written bool, err error) {
	files, root := x.files, x.root
	if in.Event == "" {
		return checkpoint.Saved{}, false, errors.New("automatic checkpoint: no compaction identity")
	}
	trigger := in.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	err = x.writeCataloged(in.Now, in.SessionID, func(cat []Entry) (Entry, bool, []Entry, error) {
		written = false
		for _, c := range cat {
			if c.Kind == checkpoint.KindAuto && c.Event == in.Event && c.exists(root) {
				saved = checkpoint.SavedAt(root, c.Path(root))
				return Entry{}, false, nil, nil
			}
		}
		if p, ok := findEvent(root, in.Event); ok {
			saved = checkpoint.SavedAt(root, p)
		} else {
			var err error
			if saved, err = checkpoint.Save(files, root, autoEntry(in, trigger, x.worktree)); err != nil {
				return Entry{}, false, nil, err
			}
			written = true
		}
		return Entry{Event: in.Event, File: saved.Rel, Kind: checkpoint.KindAuto, Session: in.SessionID, Branch: in.Branch, Time: in.Now, Size: -1, Tasks: TaskPrint(in.Open, in.Completed), PromptsAt: in.PromptsAt}, true, nil, nil
	})
	return saved, written, err
}

// findEvent looks for event in the frontmatter of the newest automatic checkpoints.
func findEvent(root, event string) (string, bool) {
	names, err := checkpoint.Names(root)
	if err != nil {
		return "", false
	}
	seen, last := 0, ""
	for _, n := range names {
		title, _, _ := checkpoint.SplitName(n)
		if !strings.HasPrefix(title, "before-") && !strings.HasPrefix(title, "auto-") {
			continue // not an automatic checkpoint (auto- is how earlier versions named them)
		}
		second := n[:min(len(n), len(checkpoint.NameLayout))]
		if seen++; seen > recentScan && second != last || seen > maxScanSecond {
			break
		}
		last = second
		p := filepath.Join(checkpoint.Dir(root), n)
		if ev, ok := eventOf(root, p); ok && ev == event {
			return p, true
		}
	}
	return "", false
}

// eventOf reads the event of the checkpoint at path from its first 64 KiB with the line reader:
// Auto wrote that line itself (Render), and the line reader reads what Render writes as YAML does.
func eventOf(root, path string) (string, bool) {
	data, err := safefile.ReadHead(root, path, 64<<10)
	if err != nil {
		return "", false
	}
	fm, _ := checkpoint.SplitLoose(data)
	return checkpoint.ReadFrontmatter(fm).Event, true
}

func autoEntry(in AutoInput, trigger, worktree string) checkpoint.Entry {
	e := checkpoint.Entry{
		Worktree: worktree,
		Title:    "before-" + trigger + "-compaction",
		Status:   checkpoint.StatusAuto,
		Kind:     checkpoint.KindAuto,
		Branch:   in.Branch,
		Time:     in.Now,
		Files:    in.FilesEdited,
		Event:    in.Event,
	}
	if !in.Started.IsZero() && !in.Now.Before(in.Started) {
		e.Duration, e.HasDuration = in.Now.Sub(in.Started), true
	}

	var sum []string
	sid := in.SessionID
	if sid == "" {
		sid = "(unknown)"
	}
	sum = append(sum, fmt.Sprintf("Automatic checkpoint taken by cairn before %s %s compaction of session %s.", article(trigger), trigger, plain.Line(sid, 80)))
	st := in.State
	if st == nil {
		st = &runstate.State{}
	}
	if r := in.Run; r != nil {
		line := "Run " + orDash(r.ID)
		var meta []string
		if v := st.Get("issue"); v != "" {
			meta = append(meta, "issue "+v)
		}
		if v := st.Get("pr"); v != "" {
			meta = append(meta, "PR "+v)
		}
		if len(meta) > 0 {
			line += " (" + strings.Join(meta, ", ") + ")"
		}
		line += ": phase " + orDash(st.Get("phase"))
		var g []string
		for _, gate := range runstate.Gates {
			g = append(g, gate+" "+orDash(st.Gate(gate)))
		}
		line += "; gates: " + strings.Join(g, " · ")
		sum = append(sum, plain.Line(redact.Redact(line), 0)+".")
	}
	if done := in.Completed; len(done) > 0 {
		sum = append(sum, "", "Completed tasks:")
		sum = append(sum, taskLines(done, false)...)
	}
	e.Summary = strings.Join(sum, "\n")

	e.Decisions = "Not recorded automatically: decisions need the conversation, which a hook cannot summarise."
	if in.Run != nil {
		e.Decisions += " See the run's MEMORY.md, ## Decisions."
	}

	var rem []string
	rem = append(rem, taskLines(in.Open, true)...)
	if in.Run != nil && strings.TrimSpace(st.Get("plan_open")) != "" {
		rem = append(rem, "- Open plan items: "+plain.Line(redact.Redact(st.Get("plan_open")), maxNoteRunes))
	}
	if len(rem) == 0 {
		rem = append(rem, "No open tasks recorded.")
	}
	e.Remaining = strings.Join(rem, "\n")

	var notes []string
	if in.Instructions != nil && strings.TrimSpace(*in.Instructions) != "" {
		notes = append(notes, "Compaction instructions: "+plain.Line(redact.Redact(*in.Instructions), maxNoteRunes))
	}
	prompts := in.Prompts
	if len(prompts) > maxAutoPrompts {
		prompts = prompts[:maxAutoPrompts]
	}
	if len(prompts) > 0 {
		if len(notes) > 0 {
			notes = append(notes, "")
		}
		notes = append(notes, "Last user prompts, most recent first (secrets redacted):")
		for _, p := range prompts {
			notes = append(notes, "- "+plain.Line(redact.Redact(p), maxPromptRunes))
		}
	}
	if rec := checkpoint.RecordBlock(in.Record); rec != "" {
		if len(notes) > 0 {
			notes = append(notes, "")
		}
		notes = append(notes, rec)
	}
	if len(in.FilesEdited) > 0 {
		if len(notes) > 0 {
			notes = append(notes, "")
		}
		notes = append(notes, fmt.Sprintf("%d files edited since the last compaction (files_modified).", len(in.FilesEdited)))
	}
	e.Notes = strings.Join(notes, "\n")
	return e
}

// taskLines lists tasks one per line, numbered when they are work still to do.
func taskLines(ts []tasks.Task, numbered bool) []string {
	var out []string
	for i, t := range ts {
		if i == maxAutoTasks {
			out = append(out, fmt.Sprintf("- … %d more", len(ts)-i))
			break
		}
		text := plain.Line(redact.Redact(t.Subject), maxPromptRunes)
		if text == "" {
			text = "(no subject)"
		}
		if t.Status == tasks.StatusInProgress {
			text = "[in progress] " + text
		}
		if numbered && t.ID != "" {
			text += " (task " + plain.Line(t.ID, 40) + ")"
		}
		if numbered {
			out = append(out, fmt.Sprintf("%d. %s", i+1, text))
		} else {
			out = append(out, "- "+text)
		}
	}
	return out
}

func orDash(s string) string {
	if s = plain.Line(s, 0); s == "" {
		return "–"
	}
	return s
}

// article is "an" before a vowel, "a" before anything else ("an auto compaction").
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// TaskLines returns the open tasks a Remaining Work section lists, as Auto numbered them
// ("1. [in progress] write tests (task 3)", and the "… N more" line), without the other lines.
func TaskLines(remaining string) []string {
	var out []string
	for _, l := range strings.Split(remaining, "\n") {
		i := 0
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		if i > 0 && strings.HasPrefix(l[i:], ". ") || strings.HasPrefix(l, "- … ") {
			out = append(out, l)
		}
	}
	return out
}
