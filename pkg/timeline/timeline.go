// Package timeline appends to memory/timeline.jsonl (seed 002): one JSON line per session
// start, compaction and session end, append-only. It is its own package so that the hooks that
// only log (SessionEnd) link nothing of checkpoints' frontmatter parsing.
package timeline

import (
	"path/filepath"
	"time"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// File is the timeline, relative to the project root.
const File = "memory/timeline.jsonl"

// Event names.
const (
	SessionStart = "session_start"
	Compaction   = "compaction"
	SessionEnd   = "session_end"
)

// Event is one line of memory/timeline.jsonl: {"ts", "event", then the fields that are set, in
// this order}, "ts" in UTC RFC 3339.
type Event struct {
	Time       time.Time
	Event      string // SessionStart, Compaction or SessionEnd
	Session    string
	Branch     string
	Source     string // SessionStart's source
	Trigger    string // PreCompact's trigger
	Reason     string // SessionEnd's reason
	Checkpoint string // the automatic checkpoint of a compaction
}

// appendJSON appends the event's line, as encoding/json would write it, without its reflection.
func (e Event) appendJSON(dst []byte) []byte {
	o := jsonw.Open(dst)
	o.Str("ts", e.Time.UTC().Format(time.RFC3339))
	o.Str("event", e.Event)
	o.StrOmitEmpty("session", e.Session)
	o.StrOmitEmpty("branch", e.Branch)
	o.StrOmitEmpty("source", e.Source)
	o.StrOmitEmpty("trigger", e.Trigger)
	o.StrOmitEmpty("reason", e.Reason)
	o.StrOmitEmpty("checkpoint", e.Checkpoint)
	return o.Close()
}

// Append appends ev as one JSON line to memory/timeline.jsonl, under the file's lock, without an
// fsync (safefile.Writer.Log): the timeline tells a story; it is not state. The
// SessionStart and SessionEnd hooks call it; Auto appends the compaction line itself, once per
// compaction, so PreCompact must not.
func Append(files safefile.Writer, root string, ev Event) error {
	return files.Log(filepath.Join(root, File), append(ev.appendJSON(nil), '\n'), 0o644)
}
