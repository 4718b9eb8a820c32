package checkpoint

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// maxCheckpoints bounds how many directory entries Names reads: far more than retention keeps.
const maxCheckpoints = 100000

// SplitName reads a checkpoint file name: YYYYMMDD-HHMMSS-<title>.md. ok is false for any other
// name, which is then not a checkpoint.
func SplitName(name string) (title string, saved time.Time, ok bool) {
	stem, isMD := strings.CutSuffix(name, ".md")
	if !isMD || len(stem) < len(NameLayout)+2 || stem[len(NameLayout)] != '-' {
		return "", time.Time{}, false
	}
	t, err := time.ParseInLocation(NameLayout, stem[:len(NameLayout)], time.Local)
	if err != nil {
		return "", time.Time{}, false
	}
	return stem[len(NameLayout)+1:], t, true
}

// IsName reports what SplitName's ok reports, without parsing a time: Names asks it of every
// entry of a directory that may hold thousands.
func IsName(name string) bool {
	stem, isMD := strings.CutSuffix(name, ".md")
	if !isMD || len(stem) < len(NameLayout)+2 || stem[8] != '-' || stem[len(NameLayout)] != '-' {
		return false
	}
	num := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(stem[0:4])
	mo, ok2 := num(stem[4:6])
	d, ok3 := num(stem[6:8])
	h, ok4 := num(stem[9:11])
	mi, ok5 := num(stem[11:13])
	se, ok6 := num(stem[13:15])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[mo]
	if mo == 2 && (y%4 == 0 && y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// Names returns the file names of the project's checkpoints, newest first: sorted by name, whose
// YYYYMMDD-HHMMSS prefix is the canonical order (stable across copies, unlike mtime). Files whose
// names do not start with that prefix are not checkpoints; the names are not stat'd (a directory
// of thousands of checkpoints would cost a stat each), so a non-regular file that carries such a
// name is listed and then refused by whoever reads it. A missing directory gives no names and no
// error.
func Names(root string) ([]string, error) {
	all, _, err := safefile.ReadDir(root, Dir(root), maxCheckpoints)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range all {
		if IsName(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names, nil
}

// futureSlack is how far ahead of the clock a checkpoint's name may be dated and still count as
// taken now: two machines' clocks, or a save at the turn of a second.
const futureSlack = time.Minute

// Future reports whether a checkpoint dated saved (the time its name gives) is from after now,
// beyond futureSlack: a clone can commit one dated 2099, and by name order it would be the newest
// for ever, so nothing that picks "the newest" picks it.
func Future(saved, now time.Time) bool { return saved.After(now.Add(futureSlack)) }

// FutureName is Future for a checkpoint's file name.
func FutureName(name string, now time.Time) bool {
	_, t, ok := SplitName(name)
	return ok && Future(t, now)
}

// Newest returns the path of the newest checkpoint on any branch at now, by file name, passing
// over one dated in the future; ok is false when there is none. SessionStart names it after a
// compaction.
func Newest(root string, now time.Time) (path string, ok bool) {
	names, err := Names(root)
	if err != nil {
		return "", false
	}
	for _, n := range names {
		if FutureName(n, now) {
			continue
		}
		if p := filepath.Join(Dir(root), n); safefile.IsFile(root, p) {
			return p, true
		}
	}
	return "", false
}
