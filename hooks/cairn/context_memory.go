package main

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
	memoryContextFile   = "memory/context.md"
	memoryLearningsFile = "memory/learnings.jsonl"
	memoryTimelineFile  = timeline.File
)

// memoryTail is the end of one memory file, as restore shows it.
type memoryTail struct {
	Label string // the "--- last context ---" caption users know, without the dashes
	Rel   string
	Lines []string
}

// memoryWindow bounds how much of a memory file is read to find its last lines.
const memoryWindow = 64 << 10

// memoryTails returns the ends of the memory files that exist, in the original workflow's order: the
// last 30 lines of memory/context.md, the last 5 of memory/learnings.jsonl and of
// memory/timeline.jsonl. A file that is a symlink leading out of the project, or not a regular
// file, is skipped; the torn last record a killed append leaves in a JSON-lines file is not
// shown.
func memoryTails(root string) []memoryTail {
	var out []memoryTail
	for _, m := range []struct {
		label, rel string
		n          int
	}{
		{"last context", memoryContextFile, 30},
		{"recent learnings", memoryLearningsFile, 5},
		{"recent timeline", memoryTimelineFile, 5},
	} {
		if lines, ok := readMemoryTail(root, m.rel, m.n); ok {
			out = append(out, memoryTail{Label: m.label, Rel: m.rel, Lines: lines})
		}
	}
	return out
}

func readMemoryTail(root, rel string, n int) ([]string, bool) {
	data, err := safefile.ReadTail(root, filepath.Join(root, rel), memoryWindow)
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
