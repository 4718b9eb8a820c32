package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/tasks"
)

func init() {
	register("session", "park", command{"<question|deferred|side> <idea> <detail> [--why …] [--how …] [--slug …]", "park an open loop under ## Parked items (refused when 10 are open)", sessionPark})
	register("session", "resume", command{"[--json]", "list the parked items, after deleting those 30 days old or more", sessionResume})
	register("session", "pending", command{"[--json]", "alias of cairn session resume", sessionResume})
	register("session", "archive", command{"<text>", "close the parked item that best matches text (slug, name or content); its text goes to the audit log", sessionArchive})
	register("session", "summary", command{"", "digest of the session: completed tasks, parked items, archived items, commits", sessionSummary})
}

// summaryWindow is how far back the summary looks when the session's start is unknown, as the
// original /session summary did (docs/DESIGN.md, What cairn is for).
const summaryWindow = 8 * time.Hour

// gitTimeout bounds each git process the summary runs.
const gitTimeout = 5 * time.Second

func parkingStore(c *CLI) (*parking.Store, error) {
	p, err := c.Project()
	if err != nil {
		return nil, err
	}
	return parking.Open(p, sessionfile.Open(p)), nil
}

// warnIndex writes the *parking.IndexError in err, if any, as warnings — the items were removed
// and logged, but Claude Code's memory index may still point at them — and returns the rest of
// err.
func (c *CLI) warnIndex(err error) error {
	ie, rest := parking.IndexWarning(err)
	if ie != nil {
		for _, e := range ie.Errs {
			c.Warn("memory index: %v", e)
		}
		c.Hint("cairn doctor checks the memory index; cairn doctor --fix removes pointers to parked items that are gone")
	}
	return rest
}

func sessionPark(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("session park", flag.ContinueOnError)
	why := fs.String("why", "", "why it was parked (one sentence)")
	how := fs.String("how", "", "what to ask or do when it is picked up again")
	slug := fs.String("slug", "", "the item's slug ([a-z0-9-]+; derived from the idea when not given)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	// The detail is required: the three entry forms have two parts ("Deferred: <idea>. Context:
	// <why>."), and a bullet without its second part reads as a half-written one.
	usage := usageOf("session", "park")
	if err := argsUsage("session", "park", pos, "<question|deferred|side>", "<idea>", "<detail>"); err != nil {
		return err
	}
	if strings.TrimSpace(pos[2]) == "" {
		return usagef("the detail is empty; %v", usage)
	}
	b, err := parking.NewBullet(pos[0], pos[1], pos[2], *why, *how)
	if err != nil {
		return usagef("%v; %v", err, usage)
	}
	if *slug != "" && !parking.ValidSlug(*slug) {
		return usagef("--slug %q: use lowercase letters, digits and single dashes", *slug)
	}
	b.Slug = *slug
	s, err := parkingStore(c)
	if err != nil {
		return err
	}
	it, added, err := s.Park(b)
	err = c.warnIndex(err)
	var full *parking.FullError
	if errors.As(err, &full) {
		fmt.Fprint(c.Stdout, renderResume(full.Items, c.Now()))
		return refusedError{fmt.Sprintf("%d items are parked already: archive one first (cairn session archive <slug>)", len(full.Items))}
	}
	if err != nil {
		return err
	}
	if !added {
		fmt.Fprintf(c.Stdout, "Already parked: %s — %s\n", it.Slug, it.Description)
		return nil
	}
	fmt.Fprintf(c.Stdout, "Parked: %s — %s\n", it.Slug, it.Description)
	return nil
}

func sessionResume(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("session resume", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("session", "resume")
	}
	s, err := parkingStore(c)
	if err != nil {
		return err
	}
	// Expired items go first, silently, as /session resume always did; failing to delete them
	// does not hide the list.
	if _, err := s.Expire(); err != nil {
		if err = c.warnIndex(err); err != nil {
			c.Warn("expiring old parked items: %v", err)
		}
	}
	its, err := s.List()
	if err != nil {
		return err
	}
	if *asJSON {
		_, err := c.Stdout.Write(renderResumeJSON(its, c.Now()))
		return err
	}
	fmt.Fprint(c.Stdout, renderResume(its, c.Now()))
	return nil
}

func sessionArchive(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("session archive", flag.ContinueOnError)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return argsUsage("session", "archive", nil, "<text>")
	}
	s, err := parkingStore(c)
	if err != nil {
		return err
	}
	it, err := s.Archive(query)
	err = c.warnIndex(err)
	var amb *parking.AmbiguousError
	if errors.As(err, &amb) {
		fmt.Fprintf(c.Stdout, "%q matches %d items; archive one by its slug:\n", query, len(amb.Candidates))
		for _, cand := range amb.Candidates {
			fmt.Fprintln(c.Stdout, itemLine(cand, c.Now()))
		}
		return refusedError{fmt.Sprintf("%q is ambiguous; nothing archived", query)}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Archived: %s\n", strings.Join(strings.Fields(it.Name), " "))
	return nil
}

func sessionSummary(ctx context.Context, c *CLI, args []string) error {
	pos, err := parseInterleaved(flag.NewFlagSet("session summary", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("session", "summary")
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	root := p.Root
	s, err := parkingStore(c)
	if err != nil {
		return err
	}
	now := p.Now()
	d := sessionDigest{Today: now}
	// The session served and its real start from the registry; unknown → the last 8 hours.
	reg, id, err := registryFor(c)
	if err != nil {
		return err
	}
	start, known := time.Time{}, false
	if id != "" {
		start, known = reg.Started(id)
		if p.Config != "" {
			ts, err := tasks.ForSession(p.Config, id)
			if err != nil {
				c.Warn("%v", err)
			}
			for _, t := range tasks.Completed(ts) {
				d.Completed = append(d.Completed, t.Subject)
			}
		}
	}
	if d.Parked, err = s.List(); err != nil {
		return err
	}
	// Archived today, as the original /session summary filters it (not since the session
	// started: an archive made earlier today, before this session, belongs to today's digest too).
	today := now.Format(parking.DateLayout)
	todays, err := parking.ReadAudit(root, func(e parking.AuditEntry) bool {
		return parking.IsRemoval(e.Action) && e.Time().In(now.Location()).Format(parking.DateLayout) == today
	})
	if err != nil {
		c.Warn("reading the audit log: %v", err)
	}
	for _, e := range todays {
		if e.Action == parking.ActionExpired {
			d.Expired = append(d.Expired, e)
		} else {
			d.Archived = append(d.Archived, e)
		}
	}
	since := start
	if !known {
		since = now.Add(-summaryWindow)
	}
	d.Commits = recentCommits(ctx, c.Env, root, since)
	text := d.Markdown()
	if digestLines(text) <= maxTerminalLines {
		fmt.Fprint(c.Stdout, text)
		return nil
	}
	rel, err := saveDigest(p.Files, root, now, text)
	if err != nil {
		return err
	}
	fmt.Fprint(c.Stdout, d.Compact(rel))
	return nil
}

// recentCommits returns "<hash> <subject>" of at most 20 commits since since, newest first;
// when git cannot answer that (an old git, a shallow clone), the last 15 commits; outside a git
// repository, none. git runs directly, never through a shell.
func recentCommits(ctx context.Context, env project.Env, root string, since time.Time) []string {
	out, err := git(ctx, env, root, "log", "--no-color", "--format=%h %s", "-n", "20", "--since="+since.UTC().Format(time.RFC3339))
	if err != nil {
		out, err = git(ctx, env, root, "log", "--no-color", "--format=%h %s", "-n", "15")
	}
	if err != nil {
		return nil
	}
	var commits []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			commits = append(commits, l)
		}
	}
	return commits
}

func git(ctx context.Context, env project.Env, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env.List()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	return stdout.String(), err
}
