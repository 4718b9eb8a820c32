package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// splitName reads a checkpoint file name: YYYYMMDD-HHMMSS-<title>.md. ok is false for any other
// name, which is then not a checkpoint.
func splitName(name string) (title string, saved time.Time, ok bool) {
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
		if _, _, ok := splitName(e.Name()); ok {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names, nil
}

// Listed is one row of List: a checkpoint and its number, which counts from 1 over all branches,
// newest first, so that "restore N" names the same checkpoint whichever listing showed N.
type Listed struct {
	N int
	Checkpoint
}

// List returns the project's checkpoints, newest first. With branch != "" only those whose
// frontmatter names that branch are returned, still numbered by their place among all
// branches. A file that cannot be read is skipped; the first such error is returned with the
// rest of the list.
func List(root, branch string) ([]Listed, error) {
	names, err := Names(root)
	if err != nil {
		return nil, err
	}
	var out []Listed
	var firstErr error
	for i, n := range names {
		c, err := Load(filepath.Join(Dir(root), n))
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if branch != "" && c.Branch != branch {
			continue
		}
		out = append(out, Listed{N: i + 1, Checkpoint: c})
	}
	return out, firstErr
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

// ErrNone reports a project without checkpoints.
var ErrNone = errors.New("no saved contexts")

// Selection is what Select chose.
type Selection struct {
	Listed
	Matches int // how many checkpoints the fragment matched; the newest was chosen
}

// Select picks the checkpoint restore loads, across all branches (seed 002: restore does not
// filter by branch, so that a context saved on one branch resumes from another):
//   - "" selects the newest by file name;
//   - a number of fewer than 8 digits selects that row of List (all branches, newest first),
//     and is an error when there is no such row;
//   - anything else (a longer number is a date prefix) is a fragment: it is sanitised like a title and matched as a substring of
//     the file names; the newest match wins and Matches says how many there were.
//
// It returns ErrNone when there are no checkpoints, and an error naming the fragment when
// nothing matches.
func Select(root, which string) (Selection, error) {
	names, err := Names(root)
	if err != nil {
		return Selection{}, err
	}
	if len(names) == 0 {
		return Selection{}, ErrNone
	}
	pick := func(i, matches int) (Selection, error) {
		c, err := Load(filepath.Join(Dir(root), names[i]))
		if err != nil {
			return Selection{}, err
		}
		return Selection{Listed: Listed{N: i + 1, Checkpoint: c}, Matches: matches}, nil
	}
	which = strings.TrimSpace(which)
	if which == "" {
		return pick(0, 1)
	}
	if n, err := strconv.Atoi(which); err == nil && len(which) < len("YYYYMMDD") {
		if n < 1 || n > len(names) {
			return Selection{}, fmt.Errorf("no saved context number %d: there are %d", n, len(names))
		}
		return pick(n-1, 1)
	}
	frag := strings.TrimSuffix(SanitizeTitle(which), ".md")
	if frag == Untitled && !strings.Contains(strings.ToLower(which), Untitled) {
		return Selection{}, fmt.Errorf("no saved context matches %q", which)
	}
	first, matches := -1, 0
	for i, n := range names {
		if strings.Contains(strings.TrimSuffix(n, ".md"), frag) {
			if first < 0 {
				first = i
			}
			matches++
		}
	}
	if first < 0 {
		return Selection{}, fmt.Errorf("no saved context matches %q", which)
	}
	return pick(first, matches)
}
