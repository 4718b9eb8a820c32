package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/brief"
	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/registry"
)

func init() {
	register("session", "list", command{"[--json]",
		"list this project's sessions that have not ended: active, or idle after 10 minutes without a prompt; then the files each is editing (its live claims: cairn claims)", sessionListCmd})
	register("session", "inbox", command{"[--json]",
		"show what other sessions broadcast that this session has not seen yet, and mark it seen", sessionInboxCmd})
	register("session", "broadcast", command{"<message>",
		"send a message to the other sessions of this project; each gets it once, with its next prompt", sessionBroadcastCmd})
}

// recentWithoutSession is how many broadcasts the inbox shows to a reader outside any session.
const recentWithoutSession = 10

// registryFor opens the project's registry and names the session the CLI serves:
// $CLAUDE_CODE_SESSION_ID, else the most recently active session, else "".
func registryFor(c *CLI) (*registry.Registry, string, error) {
	p, err := c.Project()
	if err != nil {
		return nil, "", err
	}
	reg := registry.Open(p)
	sid, _ := reg.Current(c.Env.Get("CLAUDE_CODE_SESSION_ID"))
	return reg, sid, nil
}

func sessionListCmd(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("session list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON (every recorded session, ended ones too)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("session", "list")
	}
	reg, sid, err := registryFor(c)
	if err != nil {
		return err
	}
	sessions, err := reg.Sessions()
	if err != nil {
		return err
	}
	now := c.Now()
	slices.SortStableFunc(sessions, func(a, b registry.Session) int { return b.LastActivity.Compare(a.LastActivity) })
	p, err := c.Project()
	if err != nil {
		return err
	}
	live, _, err := claims.Open(p, reg).Live()
	if err != nil {
		c.Warn("claims: %v", err)
	}
	held := claimsBySession(live, maxListedClaims)
	if *asJSON {
		type row struct {
			ID           string    `json:"id"`
			Status       string    `json:"status"`
			Started      time.Time `json:"started"`
			LastActivity time.Time `json:"last_activity"`
			Branch       string    `json:"branch,omitempty"`
			EndedBy      string    `json:"ended_by,omitempty"`
			Current      bool      `json:"current,omitempty"`
			Claims       []string  `json:"claims,omitempty"`
		}
		out := []row{}
		for _, s := range sessions {
			out = append(out, row{s.ID, s.Display(now), s.Started, s.LastActivity, s.Branch, s.EndedBy, s.ID == sid, held[s.ID]})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return nil
	}
	var rows [][]string
	for _, s := range sessions {
		if s.Status != registry.StatusEnded {
			rows = append(rows, []string{registry.ShortID(s.ID), s.Display(now), minutesAgo(now, s.LastActivity)})
		}
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.Stdout, "No active sessions.")
		return nil
	}
	fmt.Fprint(c.Stdout, "📋 Active Sessions\n\n")
	markdownTable(c.Stdout, []string{"Session ID", "Status", "Last Activity"}, rows)
	if sid != "" {
		fmt.Fprintf(c.Stdout, "\nThis session: %s\n", registry.ShortID(sid))
	}
	// The table is the original /session list's; the files each session is editing follow it.
	var lines []string
	for _, s := range sessions {
		if paths := held[s.ID]; s.Status != registry.StatusEnded && len(paths) > 0 {
			for i := range paths {
				paths[i] = plain.Line(paths[i], 120)
			}
			lines = append(lines, fmt.Sprintf("- %s: %s", registry.ShortID(s.ID), strings.Join(paths, ", ")))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(c.Stdout, "\nEditing (file claims, cairn claims):\n%s\n", strings.Join(lines, "\n"))
	}
	return nil
}

// maxListedClaims is how many of a session's claimed files session list names.
const maxListedClaims = 5

// minutesAgo is the session list's time, as the original /session list shows it: "just now",
// "2 min ago", "3 h ago", "2 d ago".
func minutesAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d d ago", int(d/(24*time.Hour)))
}

// markdownTable writes the session list's table as users know it: cells padded to their
// column, dashes under the header.
func markdownTable(w io.Writer, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, v := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(v))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, v := range cells {
			b.WriteString(" " + v + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v)) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(header)
	var b strings.Builder
	b.WriteString("|")
	for _, wd := range widths {
		b.WriteString(strings.Repeat("-", wd+2) + "|")
	}
	fmt.Fprintln(w, b.String())
	for _, r := range rows {
		line(r)
	}
}

func sessionInboxCmd(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("session inbox", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("session", "inbox")
	}
	reg, sid, err := registryFor(c)
	if err != nil {
		return err
	}
	now := c.Now()
	var msgs []registry.Message
	if sid != "" {
		msgs, err = reg.Inbox(sid, now)
	} else {
		msgs, err = reg.Recent(recentWithoutSession)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		type row struct {
			From string    `json:"from"`
			TS   time.Time `json:"ts"`
			Msg  string    `json:"msg"`
		}
		out := []row{}
		for _, m := range msgs {
			out = append(out, row{m.From, m.Time, m.Msg})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return nil
	}
	if len(msgs) == 0 {
		fmt.Fprintln(c.Stdout, "No new messages.")
		return nil
	}
	if sid == "" {
		fmt.Fprintf(c.Stdout, "📬 Session Inbox (outside any session: the last %d broadcasts)\n\n", recentWithoutSession)
	} else {
		fmt.Fprint(c.Stdout, "📬 Session Inbox\n\n")
	}
	// The inbox table is not padded, as users know it: messages vary too much in length.
	fmt.Fprintln(c.Stdout, "| From | Time | Message |")
	fmt.Fprintln(c.Stdout, "|------|------|---------|")
	for _, m := range msgs {
		text := strings.ReplaceAll(plain.Line(m.Msg, 0), "|", `\|`)
		fmt.Fprintf(c.Stdout, "| %s | %s | \"%s\" |\n", strings.ReplaceAll(registry.ShortID(plain.Line(m.From, 0)), "|", `\|`), brief.Ago(now, m.Time), text)
	}
	return nil
}

func sessionBroadcastCmd(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("session broadcast", flag.ContinueOnError)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	msg := strings.TrimSpace(strings.Join(pos, " "))
	if msg == "" {
		return argsUsage("session", "broadcast", nil, "<message>")
	}
	reg, sid, err := registryFor(c)
	if err != nil {
		return err
	}
	now := c.Now()
	if err := reg.Broadcast(sid, msg, now); err != nil {
		return err
	}
	sessions, _ := reg.Sessions()
	others := 0
	for _, s := range sessions {
		if s.ID != sid && s.Status == registry.StatusActive {
			others++
		}
	}
	switch others {
	case 0:
		fmt.Fprintln(c.Stdout, "Broadcast recorded; no other session is active now: a session of this project that resumes receives it at its next prompt.")
	case 1:
		fmt.Fprintln(c.Stdout, "Broadcast sent to 1 other active session.")
	default:
		fmt.Fprintf(c.Stdout, "Broadcast sent to %d other active sessions.\n", others)
	}
	return nil
}
