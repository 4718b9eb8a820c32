package checkpoint

import (
	"path/filepath"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// The memory files of the original /context-save workflow (docs/DESIGN.md, What cairn is for),
// relative to the project root. People write context.md and learnings.jsonl; the hooks append to
// timeline.jsonl.
const (
	ContextFile   = "memory/context.md"
	LearningsFile = "memory/learnings.jsonl"
	TimelineFile  = timeline.File
)

// MemoryTail is the end of one memory file, as restore shows it.
type MemoryTail struct {
	Label string // the "--- last context ---" caption users know, without the dashes
	Rel   string
	Lines []string
}

// tailWindow bounds how much of a memory file is read to find its last lines.
const tailWindow = 64 << 10

// Memory returns the ends of the memory files that exist, in the original workflow's order: the
// last 30 lines of memory/context.md, the last 5 of memory/learnings.jsonl and of
// memory/timeline.jsonl. A file that is a symlink leading out of the project, or not a regular
// file, is skipped; the torn last record a killed append leaves in a JSON-lines file is not
// shown.
func Memory(root string) []MemoryTail {
	var out []MemoryTail
	for _, m := range []struct {
		label, rel string
		n          int
	}{
		{"last context", ContextFile, 30},
		{"recent learnings", LearningsFile, 5},
		{"recent timeline", TimelineFile, 5},
	} {
		if lines, ok := tail(root, m.rel, m.n); ok {
			out = append(out, MemoryTail{Label: m.label, Rel: m.rel, Lines: lines})
		}
	}
	return out
}

func tail(root, rel string, n int) ([]string, bool) {
	data, err := safefile.ReadTail(root, filepath.Join(root, rel), tailWindow)
	if err != nil {
		return nil, false
	}
	if strings.HasSuffix(rel, ".jsonl") {
		data = data[:len(data)-safefile.TornTail(data)] // a writer killed mid-append
	}
	text := strings.TrimRight(strings.ToValidUTF8(string(data), "\uFFFD"), "\n")
	if text == "" {
		return nil, true
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, true
}
