// Package timeline appends to memory/timeline.jsonl (seed 002): one JSON line per session
// start, compaction and session end, append-only. It is its own package so that the hooks that
// only log (SessionEnd) link nothing of checkpoints' frontmatter parsing.
package timeline

import (
	"encoding/json"
	"path/filepath"
	"time"

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

// Event is one line of memory/timeline.jsonl.
type Event struct {
	Time       time.Time `json:"-"`
	Event      string    `json:"event"` // SessionStart, Compaction or SessionEnd
	Session    string    `json:"session,omitempty"`
	Branch     string    `json:"branch,omitempty"`
	Source     string    `json:"source,omitempty"`     // SessionStart's source
	Trigger    string    `json:"trigger,omitempty"`    // PreCompact's trigger
	Reason     string    `json:"reason,omitempty"`     // SessionEnd's reason
	Checkpoint string    `json:"checkpoint,omitempty"` // the automatic checkpoint of a compaction
}

// MarshalJSON writes the event with its time first, as "ts" in UTC RFC 3339.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	rest, err := json.Marshal(plain(e))
	if err != nil {
		return nil, err
	}
	ts, _ := json.Marshal(e.Time.UTC().Format(time.RFC3339))
	return append(append([]byte(`{"ts":`), ts...), append([]byte{','}, rest[1:]...)...), nil
}

// Append appends ev as one JSON line to memory/timeline.jsonl, under the file's lock, without an
// fsync (safefile.Writer.Log): the timeline tells a story; it is not state. The
// SessionStart and SessionEnd hooks call it; Auto appends the compaction line itself, once per
// compaction, so PreCompact must not.
func Append(files safefile.Writer, root string, ev Event) error {
	line, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return files.Log(filepath.Join(root, File), append(line, '\n'), 0o644)
}
