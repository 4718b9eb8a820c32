package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/registry"
)

func init() {
	topLevel["claims"] = command{"[--json]",
		"list the live file claims of this worktree: which session is editing which file, since when, on which branch. The PreToolUse hook claims a file before Claude edits it and, when another live session holds it, tells Claude, never blocking; CAIRN_CLAIMS in settings.json's env changes that: ask puts the warning to you before the edit, off claims and says nothing. A claim lasts 30 minutes after the session's last edit of the file and ends with the session; each worktree has its own",
		cmdClaims}
}

// claimRow is one live claim as cairn claims --json prints it.
type claimRow struct {
	Session string    `json:"session"`
	Path    string    `json:"path"`
	Since   time.Time `json:"since"`
	Touched time.Time `json:"last_edit"`
	Branch  string    `json:"branch,omitempty"`
	Current bool      `json:"current,omitempty"`
}

func cmdClaims(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("", "claims")
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	live, sessions, err := claims.Open(p, registry.Open(p)).Live()
	if err != nil {
		return err
	}
	_, sid, _ := registryFor(c)
	now := c.Now()
	if *asJSON {
		out := []claimRow{}
		for _, cl := range live {
			out = append(out, claimRow{cl.Session, plain.Line(cl.Path, 0), cl.Since, cl.Touched, plain.Line(sessions[cl.Session].Branch, 0), cl.Session == sid})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return nil
	}
	if len(live) == 0 {
		fmt.Fprintln(c.Stdout, "No live file claims: no session of this worktree has edited a file in the last 30 minutes.")
		return nil
	}
	fmt.Fprint(c.Stdout, "📌 File claims: files the live sessions of this worktree are editing\n\n")
	var rows [][]string
	for _, cl := range live {
		who := registry.ShortID(cl.Session)
		if cl.Session == sid {
			who += " (this)"
		}
		rows = append(rows, []string{who, cell(cl.Path, 80), minutesAgo(now, cl.Since), minutesAgo(now, cl.Touched), cell(orNone(sessions[cl.Session].Branch), 40)})
	}
	markdownTable(c.Stdout, []string{"Session", "File", "Since", "Last edit", "Branch"}, rows)
	return nil
}

// cell is a table cell of text from a file: one line, its pipes escaped, at most max runes.
func cell(s string, max int) string { return strings.ReplaceAll(plain.Line(s, max), "|", `\|`) }

// claimsBySession groups the live claims by session, each session's most recent first, at most
// max paths each.
func claimsBySession(live []claims.Claim, max int) map[string][]string {
	out := map[string][]string{}
	for _, cl := range live {
		if len(out[cl.Session]) < max {
			out[cl.Session] = append(out[cl.Session], cl.Path)
		}
	}
	return out
}
