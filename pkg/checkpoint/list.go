package checkpoint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// SplitName reads a checkpoint file name: YYYYMMDD-HHMMSS-<title>.md. ok is false for any other
// name, which is then not a checkpoint.
func SplitName(name string) (title string, saved time.Time, ok bool) {
	stem, isMD := strings.CutSuffix(name, ".md")
	if !isMD || len(stem) < len(nameLayout)+2 || stem[len(nameLayout)] != '-' {
		return "", time.Time{}, false
	}
	t, err := time.ParseInLocation(nameLayout, stem[:len(nameLayout)], time.Local)
	if err != nil {
		return "", time.Time{}, false
	}
	return stem[len(nameLayout)+1:], t, true
}

// Names returns the file names of the project's checkpoints, newest first: sorted by name, whose
// YYYYMMDD-HHMMSS prefix is the canonical order (seed 002: stable across copies, unlike mtime).
// Files whose names do not start with that prefix, and anything that is not a regular file, are
// not checkpoints. A missing directory gives no names and no error.
func Names(root string) ([]string, error) {
	ents, err := os.ReadDir(Dir(root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if _, _, ok := SplitName(e.Name()); ok {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names, nil
}

// Newest returns the path of the newest checkpoint on any branch, by file name; ok is false
// when there is none. SessionStart names it after a compaction.
func Newest(root string) (path string, ok bool) {
	names, err := Names(root)
	if err != nil || len(names) == 0 {
		return "", false
	}
	return filepath.Join(Dir(root), names[0]), true
}
