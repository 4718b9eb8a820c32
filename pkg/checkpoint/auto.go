package checkpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tasks"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// Bounds on what an automatic checkpoint copies, so that a huge task list or a pasted prompt
// cannot make one large (SPEC §6 "Bounded").
const (
	maxAutoTasks   = 50
	maxAutoPrompts = 5
	maxPromptRunes = 500
	maxNoteRunes   = 2000
)

// IndexFile records which compaction events have an automatic checkpoint; see Auto.
const IndexFile = ".claude/state/checkpoint-events.json"

// maxIndex bounds IndexFile: only the latest compactions can repeat.
const maxIndex = 64

// recentScan is how many of the newest checkpoints Auto reads for an event id when the index
// has lost it (deleted by hand, say).
const recentScan = 8

// Run is the active run as an automatic checkpoint records it.
type Run struct {
	ID, Issue, Phase, PR, PlanOpen string
	Gates                          []Gate // in display order
}

// Gate is one gate verdict of a run ("" when not yet given).
type Gate struct{ Name, Verdict string }

// AutoInput is what the PreCompact hook knows when it takes an automatic checkpoint.
type AutoInput struct {
	SessionID string
	Trigger   string // manual or auto
	// Event identifies the compaction; "" means EventID(SessionID, Trigger, TranscriptSize).
	// Pass the same identity the whiteboard snapshot uses.
	Event          string
	TranscriptSize int64 // -1 when unknown
	Instructions   *string
	Branch         string
	Now            time.Time
	Started        time.Time // the session's start, from the registry; zero when unknown
	Run            *Run      // nil without an active run
	Open           []tasks.Task
	Completed      []tasks.Task
	FilesEdited    []string // since the last compaction, most recent first
	Prompts        []string // the last user prompts, most recent first, as typed: Auto redacts them
}

// EventID is the identity of a compaction (SPEC §9): the same session, trigger and transcript
// length mean a repeated PreCompact for the same compaction, not a new one.
func EventID(sessionID, trigger string, transcriptSize int64) string {
	if sessionID == "" {
		sessionID = "nosession"
	}
	if trigger == "" {
		trigger = "unknown"
	}
	return fmt.Sprintf("%s/%s/%d", sessionID, trigger, transcriptSize)
}

type indexEntry struct {
	Event string `json:"event"`
	File  string `json:"file"` // relative to the root
}

// Auto writes the automatic checkpoint for one compaction (status auto, title auto-<trigger>)
// and returns its path. Claude Code fires PreCompact 2–4 times for one compaction, sometimes in
// parallel; Auto writes once per event id: under the lock of IndexFile it looks the event up in
// the index (and, should the index have lost it, in the event: field of the newest automatic
// checkpoints) and returns the existing checkpoint with written false. A new checkpoint is also
// recorded in memory/timeline.jsonl as a compaction event, so the timeline gets one line per
// compaction too. No wall-clock window is involved.
func Auto(files safefile.Writer, root string, in AutoInput) (path string, written bool, err error) {
	event := in.Event
	if event == "" {
		event = EventID(in.SessionID, in.Trigger, in.TranscriptSize)
	}
	trigger := in.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	var timelineErr error
	_, err = files.Update(filepath.Join(root, IndexFile), 0o600, func(old []byte, _ bool) ([]byte, error) {
		var idx []indexEntry
		if len(old) > 0 && json.Unmarshal(old, &idx) != nil {
			idx = nil // a damaged index only costs the scan below
		}
		for _, e := range idx {
			if e.Event != event {
				continue
			}
			if p, err := project.Confine(root, e.File); err == nil {
				if _, err := os.Lstat(p); err == nil {
					path = p
					return nil, safefile.ErrNoChange
				}
			}
		}
		if p, ok := findEvent(root, event); ok {
			path = p
		} else {
			saved, err := Save(files, root, autoEntry(in, event, trigger))
			if err != nil {
				return nil, err
			}
			path, written = saved.Path, true
			timelineErr = timeline.Append(files, root, timeline.Event{
				Time: in.Now, Event: timeline.Compaction, Session: in.SessionID, Branch: in.Branch,
				Trigger: trigger, Checkpoint: saved.Rel,
			})
		}
		idx = append(idx, indexEntry{Event: event, File: rel(root, path)})
		if len(idx) > maxIndex {
			idx = idx[len(idx)-maxIndex:]
		}
		b, err := json.MarshalIndent(idx, "", "  ")
		return append(b, '\n'), err
	})
	if err != nil {
		return path, written, err
	}
	if timelineErr != nil {
		return path, written, fmt.Errorf("%s: %w", TimelineFile, timelineErr)
	}
	return path, written, nil
}

// findEvent looks for event in the frontmatter of the newest automatic checkpoints.
func findEvent(root, event string) (string, bool) {
	names, err := Names(root)
	if err != nil {
		return "", false
	}
	seen := 0
	for _, n := range names {
		if title, _, _ := SplitName(n); !strings.HasPrefix(title, "auto-") {
			continue
		}
		if seen++; seen > recentScan {
			break
		}
		p := filepath.Join(Dir(root), n)
		if ev, ok := eventOf(p); ok && ev == event {
			return p, true
		}
	}
	return "", false
}

func autoEntry(in AutoInput, event, trigger string) Entry {
	e := Entry{
		Title:  "auto-" + trigger,
		Status: StatusAuto,
		Branch: in.Branch,
		Time:   in.Now,
		Files:  in.FilesEdited,
		Event:  event,
	}
	if !in.Started.IsZero() && !in.Now.Before(in.Started) {
		e.Duration, e.HasDuration = in.Now.Sub(in.Started), true
	}

	var sum []string
	sid := in.SessionID
	if sid == "" {
		sid = "(unknown)"
	}
	sum = append(sum, fmt.Sprintf("Automatic checkpoint taken by cairn before a %s compaction of session %s.", trigger, clip(sid, 80)))
	if r := in.Run; r != nil {
		line := "Run " + orDash(r.ID)
		var meta []string
		if r.Issue != "" {
			meta = append(meta, "issue "+r.Issue)
		}
		if r.PR != "" {
			meta = append(meta, "PR "+r.PR)
		}
		if len(meta) > 0 {
			line += " (" + strings.Join(meta, ", ") + ")"
		}
		line += ": phase " + orDash(r.Phase)
		if len(r.Gates) > 0 {
			var g []string
			for _, gate := range r.Gates {
				g = append(g, gate.Name+" "+orDash(gate.Verdict))
			}
			line += "; gates: " + strings.Join(g, " · ")
		}
		sum = append(sum, oneLine(line)+".")
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
	if in.Run != nil && strings.TrimSpace(in.Run.PlanOpen) != "" {
		rem = append(rem, "- Open plan items: "+clip(oneLine(in.Run.PlanOpen), maxNoteRunes))
	}
	if len(rem) == 0 {
		rem = append(rem, "No open tasks recorded.")
	}
	e.Remaining = strings.Join(rem, "\n")

	var notes []string
	if in.Instructions != nil && strings.TrimSpace(*in.Instructions) != "" {
		notes = append(notes, "Compaction instructions: "+clip(oneLine(redact.Redact(*in.Instructions)), maxNoteRunes))
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
			notes = append(notes, "- "+clip(oneLine(redact.Redact(p)), maxPromptRunes))
		}
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
		text := clip(oneLine(redact.Redact(t.Subject)), maxPromptRunes)
		if text == "" {
			text = "(no subject)"
		}
		if t.Status == tasks.StatusInProgress {
			text = "[in progress] " + text
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
	if s = oneLine(s); s == "" {
		return "–"
	}
	return s
}

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Recorded reports, without the lock, whether the automatic checkpoint for event exists: its
// event is in the index and its file is there. PreCompact asks it first, so that a repeated
// PreCompact for the same compaction costs a stat and two small reads, not a transcript scan.
func Recorded(root, event string) bool {
	data, err := os.ReadFile(filepath.Join(root, IndexFile))
	if err != nil {
		return false
	}
	var idx []indexEntry
	if json.Unmarshal(data, &idx) != nil {
		return false
	}
	for _, e := range idx {
		if e.Event == event {
			if p, err := project.Confine(root, e.File); err == nil {
				if _, err := os.Lstat(p); err == nil {
					return true
				}
			}
		}
	}
	return false
}
