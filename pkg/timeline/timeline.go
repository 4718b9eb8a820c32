// Package timeline appends to memory/timeline.jsonl (docs/DESIGN.md, Where state lives): one JSON
// line per session start, compaction and session end, append-only. It is its own package so that
// the hooks that only log (SessionEnd) link nothing of checkpoints' frontmatter parsing.
package timeline

import (
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// File is the timeline, relative to the root that holds the project's knowledge (a repository's
// main checkout: project.Project's Shared), where every checkout of the repository appends.
const File = "memory/timeline.jsonl"

// Event names. Readers must accept names they do not know: the list grows.
const (
	SessionStart = "session_start"
	Compaction   = "compaction"
	SessionEnd   = "session_end"
	Handoff      = "handoff"           // SessionEnd left a hand-off checkpoint
	Pruned       = "checkpoint_pruned" // retention removed an automatic or hand-off checkpoint
)

// Event is one line of memory/timeline.jsonl: {"ts", "event", then the fields that are set, in
// this order}, "ts" in UTC RFC 3339.
type Event struct {
	Time       time.Time
	Event      string // SessionStart, Compaction or SessionEnd
	Session    string
	Branch     string
	Worktree   string // the linked worktree it happened in; "" in the main checkout
	Source     string // SessionStart's source
	Trigger    string // PreCompact's trigger
	Reason     string // SessionEnd's reason
	Checkpoint string // the checkpoint a compaction, a hand-off or a pruning is about
	Compaction string // a pruned automatic checkpoint's compaction identity: its name alone may be taken again
	Note       string // why a checkpoint was pruned, or kept
}

// appendJSON appends the event's line, as encoding/json would write it, without its reflection.
func (e Event) appendJSON(dst []byte) []byte {
	o := jsonw.Open(dst)
	o.Str("ts", e.Time.UTC().Format(time.RFC3339))
	o.Str("event", e.Event)
	o.StrOmitEmpty("session", e.Session)
	o.StrOmitEmpty("branch", e.Branch)
	o.StrOmitEmpty("worktree", e.Worktree)
	o.StrOmitEmpty("source", e.Source)
	o.StrOmitEmpty("trigger", e.Trigger)
	o.StrOmitEmpty("reason", e.Reason)
	o.StrOmitEmpty("checkpoint", e.Checkpoint)
	o.StrOmitEmpty("compaction", e.Compaction)
	o.StrOmitEmpty("note", e.Note)
	return o.Close()
}

// Log is the handle on a project's timeline for one process. The hooks only append to it, and
// an append reads nothing of the file (safefile's Append looks at its last bytes alone, to cut a
// torn record), so the handle holds no content: it is the one place a process's timeline lines
// are written from, opened from the world and passed down — the checkpoint catalog writes its
// compaction, hand-off and pruning lines through the same handle. The timeline is knowledge the
// checkouts of a repository share: it lives under the world's Shared root, and a line written
// from a linked worktree names it.
type Log struct {
	root     string
	worktree string
	files    safefile.Writer
}

// Open returns the handle on p's timeline: under p.Shared(), its lines naming p.Worktree().
func Open(p *project.Project) *Log {
	return &Log{root: p.Shared(), worktree: p.Worktree(), files: p.Files}
}

// OpenAt is the handle on the timeline of the project at root, written through files, from its
// main checkout: for a reader or writer outside a hook's world (tests, the bench's fixtures).
func OpenAt(root string, files safefile.Writer) *Log { return &Log{root: root, files: files} }

// Append appends ev as one JSON line to memory/timeline.jsonl, under the file's lock, without an
// fsync (safefile.NoSync): the timeline tells a story; it is not state. An event that names no
// worktree is given the handle's.
func (l *Log) Append(ev Event) error {
	if ev.Worktree == "" {
		ev.Worktree = l.worktree
	}
	return l.files.Append(filepath.Join(l.root, File), append(ev.appendJSON(nil), '\n'), 0o644, safefile.NoSync)
}

// Parse reads one line of the timeline (without its newline): a JSON object with a string
// "event". Fields that are missing or not strings are left empty, a "ts" that does not parse
// leaves Time zero. ok is false for anything else.
func Parse(line []byte) (ev Event, ok bool) {
	if !gjson.ValidBytes(line) {
		return Event{}, false
	}
	doc := gjson.ParseBytes(line)
	if !doc.IsObject() {
		return Event{}, false
	}
	// One pass over the object (a Get per field would parse it once per field); the first
	// occurrence of a key wins, as Get's would.
	var ts string
	var seen uint16
	doc.ForEach(func(k, v gjson.Result) bool {
		var dst *string
		var bit uint16
		switch k.Str {
		case "ts":
			dst, bit = &ts, 1
		case "event":
			dst, bit = &ev.Event, 2
		case "session":
			dst, bit = &ev.Session, 4
		case "branch":
			dst, bit = &ev.Branch, 8
		case "source":
			dst, bit = &ev.Source, 16
		case "trigger":
			dst, bit = &ev.Trigger, 32
		case "reason":
			dst, bit = &ev.Reason, 64
		case "checkpoint":
			dst, bit = &ev.Checkpoint, 128
		case "worktree":
			dst, bit = &ev.Worktree, 256
		default:
			return true
		}
		if seen&bit == 0 {
			seen |= bit
			if v.Type == gjson.String {
				*dst = v.Str
			}
		}
		return true
	})
	if t, err := time.Parse(time.RFC3339, ts); err == nil {
		ev.Time = t
	}
	return ev, ev.Event != ""
}
