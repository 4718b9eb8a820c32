// Package tasks reads the task list that Claude Code's own task tools (TaskCreate, TaskUpdate)
// keep for a session, one JSON file per task under <config>/tasks/<session_id>/. cairn only
// reads these files; Claude Code owns them. It stands alone because they are Claude Code's
// files, read by PreCompact, SessionEnd and the CLI alike.
package tasks

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Statuses Claude Code writes. Any other value is kept as it is.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// Bounds on what ForSession reads, so that a corrupted or hostile tasks directory cannot make a
// hook slow or large (docs/DESIGN.md, Invariants: "Bounded").
const (
	maxFileSize = 64 << 10 // a task is a few hundred bytes; anything this big is not one
	maxFiles    = 256      // far above any real task list
	maxTotal    = 2 << 20  // all task files together
)

// Task is one task of a session's task list.
type Task struct {
	ID          string
	Subject     string
	Description string
	ActiveForm  string
	Status      string // pending, in_progress, completed, or whatever else Claude Code wrote
}

// ForSession returns the tasks in <configDir>/tasks/<sessionID>/*.json, sorted by numeric id
// (ids that are not numbers sort after, by text). A missing directory gives nil and no error.
// A sessionID that is empty, contains a path separator, "..", or a NUL byte is refused with an
// error, so that it cannot name a directory outside configDir/tasks.
// Files that are not regular (symlinks included), larger than 64 KiB, or not JSON objects are
// skipped; at most 256 files and 2 MiB are read. A task without an id takes the file's base name
// as id.
func ForSession(configDir, sessionID string) ([]Task, error) {
	if err := checkSessionID(sessionID); err != nil {
		return nil, err
	}
	dir := filepath.Join(configDir, "tasks", sessionID)
	d, err := safefile.OpenDirLoose(dir) // a FIFO there must not block the hook
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	defer d.Close()
	var ts []Task
	read, total := 0, int64(0)
	for read < maxFiles && total < maxTotal {
		ents, err := d.ReadDir(128)
		for _, e := range ents {
			name := e.Name()
			// Only regular files: a symlink could lead anywhere and a FIFO would block Open.
			if !strings.HasSuffix(name, ".json") || !e.Type().IsRegular() || read >= maxFiles || total >= maxTotal {
				continue
			}
			read++
			t, size, ok := readTask(filepath.Join(dir, name), min(maxFileSize, maxTotal-total))
			total += size
			if ok {
				if t.ID == "" {
					t.ID = strings.TrimSuffix(name, ".json")
				}
				ts = append(ts, t)
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("tasks: %w", err)
		}
		if err != nil || len(ents) == 0 {
			break
		}
	}
	slices.SortStableFunc(ts, compareID)
	return ts, nil
}

func checkSessionID(id string) error {
	if id == "" || strings.ContainsAny(id, "/\\\x00") || strings.Contains(id, "..") {
		return fmt.Errorf("tasks: invalid session id %q", id)
	}
	return nil
}

// readTask reads one task file of at most limit bytes, or reports false for anything that is not
// a small JSON object. size is how many bytes it read (a file over the limit is not read).
func readTask(path string, limit int64) (t Task, size int64, ok bool) {
	b, _, err := safefile.ReadLoose(path, limit)
	size = int64(len(b))
	if err != nil || !gjson.ValidBytes(b) {
		return Task{}, size, false
	}
	doc := gjson.ParseBytes(b)
	if !doc.IsObject() {
		return Task{}, size, false
	}
	return Task{
		ID:          doc.Get("id").String(), // a string in Claude Code's files; a number is accepted
		Subject:     doc.Get("subject").String(),
		Description: doc.Get("description").String(),
		ActiveForm:  doc.Get("activeForm").String(),
		Status:      doc.Get("status").String(),
	}, size, true
}

// compareID orders numeric ids by value, before any non-numeric id, which sort by text.
func compareID(a, b Task) int {
	na, erra := strconv.ParseInt(a.ID, 10, 64)
	nb, errb := strconv.ParseInt(b.ID, 10, 64)
	switch {
	case erra == nil && errb == nil:
		return cmp.Compare(na, nb)
	case erra == nil:
		return -1
	case errb == nil:
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

// Open returns the tasks still to do: those in progress, then those pending, each group in
// the order of ts.
func Open(ts []Task) []Task {
	var out []Task
	for _, st := range []string{StatusInProgress, StatusPending} {
		for _, t := range ts {
			if t.Status == st {
				out = append(out, t)
			}
		}
	}
	return out
}

// Completed returns the completed tasks, in the order of ts.
func Completed(ts []Task) []Task {
	var out []Task
	for _, t := range ts {
		if t.Status == StatusCompleted {
			out = append(out, t)
		}
	}
	return out
}
