package main

// The session summary of `cairn session summary` lives here, beside its command, which is its
// only user: no hook links it.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// maxTerminalLines is the original /session summary's output-routing rule: a digest this long or
// shorter is printed; a longer one goes to a file under .temp/ and the terminal gets a compact
// line and its path.
const maxTerminalLines = 10

// sessionDigest is the session summary: completed tasks, parked items, the items archived today (the
// original workflow's "archived this session" is filtered by today's date, and so is this), the
// items that expired today, shown apart so that a removal nobody asked for is not reported as an
// archive, and recent commits.
type sessionDigest struct {
	Today     time.Time
	Completed []string             // subjects of the session's completed tasks
	Parked    []parking.Item       // open items
	Archived  []parking.AuditEntry // items archived today ("ts matching today's date", as before)
	Expired   []parking.AuditEntry // items removed today at 30 days, kept apart from the archived
	Commits   []string             // "<hash> <subject>", newest first
}

// Markdown returns the digest in the layout users know. Sections with nothing to say are left
// out; when all are empty a single line says so. The text ends with a newline.
//
//	## Session Summary — <date>
//
//	### Completed
//	- <task>
//
//	### Parked / Pending (<N> items)
//	- [ ] <item> — <description>
//
//	### Archived this session
//	- <item> — <ts>
//
//	### Expired today (30 days old)
//	- <item> — <ts>
//
//	### Recent commits
//	- <hash> <message>
func (d sessionDigest) Markdown() string {
	var b strings.Builder
	b.WriteString("## Session Summary — " + d.Today.Format(parking.DateLayout) + "\n")
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		b.WriteString("\n### " + title + "\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	var completed, parked, archived, expired, commits []string
	for _, t := range d.Completed {
		completed = append(completed, "- "+plain.Field(t, 0))
	}
	for _, it := range d.Parked {
		parked = append(parked, itemLine(it, d.Today))
	}
	for _, e := range d.Archived {
		archived = append(archived, "- "+plain.Field(e.Item, 0)+" — "+e.TS)
	}
	for _, e := range d.Expired {
		expired = append(expired, "- "+plain.Field(e.Item, 0)+" — "+e.TS)
	}
	for _, c := range d.Commits {
		commits = append(commits, "- "+plain.Field(c, 0))
	}
	section("Completed", completed)
	section(fmt.Sprintf("Parked / Pending (%d %s)", len(parked), digestPlural(len(parked), "item", "items")), parked)
	section("Archived this session", archived)
	section("Expired today (30 days old)", expired)
	section("Recent commits", commits)
	if len(completed)+len(parked)+len(archived)+len(expired)+len(commits) == 0 {
		b.WriteString("\nNothing completed, parked, archived or committed this session.\n")
	}
	return b.String()
}

// Compact is the terminal's line for a digest written to path (relative to the project root).
func (d sessionDigest) Compact(path string) string {
	return fmt.Sprintf("Session summary — %s: %d completed, %d parked, %d archived, %d %s\n→ %s\n",
		d.Today.Format(parking.DateLayout), len(d.Completed), len(d.Parked), len(d.Archived),
		len(d.Commits), digestPlural(len(d.Commits), "commit", "commits"), filepath.ToSlash(path))
}

func digestPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// digestLines counts the lines of text.
func digestLines(text string) int {
	return strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
}

// errDigestTaken stops saveDigest's attempt at a name that exists.
var errDigestTaken = errors.New("exists")

// saveDigest writes text to .temp/output-session-summary-<date>.md under root, or to -2, -3, …
// when that name exists: it never overwrites. It returns the path written, relative to root.
func saveDigest(w safefile.Writer, root string, today time.Time, text string) (string, error) {
	base := "output-session-summary-" + today.Format(parking.DateLayout)
	for n := 1; n < 10000; n++ {
		name := base + ".md"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.md", base, n)
		}
		rel := filepath.Join(".temp", name)
		_, err := w.Update(filepath.Join(root, rel), 0o644, func(_ []byte, exists bool) ([]byte, error) {
			if exists {
				return nil, errDigestTaken
			}
			return []byte(text), nil
		})
		if errors.Is(err, errDigestTaken) {
			continue
		}
		return rel, err
	}
	return "", errors.New(".temp: too many session summaries for one day")
}
