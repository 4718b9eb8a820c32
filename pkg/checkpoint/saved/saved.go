// Package saved reads checkpoints the way people and Claude write them: the frontmatter through
// YAML (adrg/frontmatter), falling back to checkpoint's line reader when YAML refuses it, and the
// four sections. It lists and selects them for `cairn context list` and `restore`. It is apart
// from package checkpoint so that the hooks, which only write checkpoints, link no YAML.
package saved

import (
	"bytes"
	"errors"
	"fmt"

	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/adrg/frontmatter"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Checkpoint is a checkpoint file as read back.
type Checkpoint struct {
	Path  string    // absolute
	Name  string    // the file name
	Title string    // from the file name: the part after the timestamp, without ".md"
	Saved time.Time // from the file name's timestamp prefix, local time

	checkpoint.Frontmatter

	Heading string // the text after "## Working on: "
	checkpoint.Sections
}

// Parse reads a checkpoint's content. It is tolerant, since people and Claude edit these files
// by hand: a frontmatter that is not valid YAML is read line by line as "key: value" and
// "  - item"; a field of an unexpected type is converted or left empty; a body without the four
// headings is all Summary. Parse never fails; what it cannot read stays empty.
func Parse(data []byte) Checkpoint {
	var fm map[string]any
	body, err := frontmatter.Parse(bytes.NewReader(data), &fm)
	if err != nil || fm == nil {
		// YAML refused it, or the opening "---" has no closing line (which frontmatter reads
		// as no frontmatter at all, leaving the fields in the body).
		fm, body = checkpoint.SplitLoose(data)
	}
	c := Checkpoint{Frontmatter: checkpoint.ReadFrontmatter(fm)}
	c.Heading, c.Sections = checkpoint.ParseBody(body)
	return c
}

// Load reads the checkpoint at path (at most its first MiB). Symlinks and other non-regular
// files are refused, so that a link in the checkpoint directory cannot make restore print a file
// from elsewhere.
func Load(root, path string) (Checkpoint, error) {
	data, err := safefile.ReadHead(root, path, checkpoint.MaxRead)
	if err != nil {
		return Checkpoint{}, err
	}
	c := Parse(data)
	c.Path = path
	c.Name = filepath.Base(path)
	c.Title, c.Saved, _ = checkpoint.SplitName(c.Name)
	return c, nil
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
	names, err := checkpoint.Names(root)
	if err != nil {
		return nil, err
	}
	var out []Listed
	var firstErr error
	for i, n := range names {
		c, err := Load(root, filepath.Join(checkpoint.Dir(root), n))
		if errors.Is(err, safefile.ErrNotRegular) {
			continue // a directory or a link with a checkpoint's name is not one
		}
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

// ErrNone reports a project without checkpoints.
var ErrNone = errors.New("no saved contexts")

// Selection is what SelectIn chose.
type Selection struct {
	Listed
	Matches int // how many checkpoints the fragment matched; the newest was chosen
}

// SelectIn picks the checkpoint restore loads at now among names, the checkpoint names newest
// first (as checkpoint.Names gives them, or an index that lists the same directory), across all
// branches (as the original /context-restore: restore does not filter by branch, so that a
// context saved on one branch resumes from another):
//   - "" selects the newest checkpoint the user saved (kind saved), by file name — the original's
//     "most recent" saved context, which the automatic and hand-off ones would otherwise bury —
//     and the newest of any kind only when none was saved; a name dated after now (a clone can
//     commit one dated 2099, which would otherwise be "newest" for ever) is passed over;
//   - a number of fewer than 8 digits selects that row of List (all branches, newest first),
//     and is an error when there is no such row;
//   - anything else (a longer number is a date prefix) is a fragment: it is sanitised like a title and matched as a substring of
//     the file names; the newest match wins and Matches says how many there were.
//
// It returns ErrNone when there are no checkpoints, and an error naming the fragment when
// nothing matches.
func SelectIn(root string, names []string, which string, now time.Time) (Selection, error) {
	if len(names) == 0 {
		return Selection{}, ErrNone
	}
	pick := func(i, matches int) (Selection, error) {
		c, err := Load(root, filepath.Join(checkpoint.Dir(root), names[i]))
		if err != nil {
			return Selection{}, err
		}
		return Selection{Listed: Listed{N: i + 1, Checkpoint: c}, Matches: matches}, nil
	}
	which = strings.TrimSpace(which)
	if which == "" {
		first := -1
		for i, n := range names {
			if checkpoint.FutureName(n, now) {
				continue
			}
			if first < 0 {
				first = i
			}
			c, err := Load(root, filepath.Join(checkpoint.Dir(root), n))
			if err == nil && c.Kind == checkpoint.KindSaved {
				return Selection{Listed: Listed{N: i + 1, Checkpoint: c}, Matches: 1}, nil
			}
		}
		if first < 0 {
			first = 0 // every one is dated in the future: the newest of them
		}
		return pick(first, 1)
	}
	if n, err := strconv.Atoi(which); err == nil && len(which) < len("YYYYMMDD") {
		if n < 1 || n > len(names) {
			return Selection{}, fmt.Errorf("no saved context number %d: there are %d", n, len(names))
		}
		return pick(n-1, 1)
	}
	frag := strings.TrimSuffix(checkpoint.SanitizeTitle(which), ".md")
	if frag == checkpoint.Untitled && !strings.Contains(strings.ToLower(which), checkpoint.Untitled) {
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
