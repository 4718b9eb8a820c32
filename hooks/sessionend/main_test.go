package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// A panic in the expiry that runs beside step 1 fails open as one in run does: it comes back as
// an error, not as a crash of the hook (hookio recovers run's goroutine only).
func TestExpireBesideFailsOpen(t *testing.T) {
	err := <-expireBeside(nil) // a nil store panics in Expire
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("got %v, want an internal error", err)
	}
}

// Under --dry-run every planned write goes to one buffer (hookio's plan), which is not safe for
// concurrent use: the expiry plans its writes after step 1's, not beside them (with -race, the
// two goroutines' writes to the buffer were a data race; without, the plan's order varied). A
// parked item due to expire and a session to end make both write.
func TestDryRunPlansInOrder(t *testing.T) {
	root := t.TempDir()
	env := project.Env{"CLAUDE_CONFIG_DIR": filepath.Join(root, "config")}
	p := sessionfile.Path(root)
	os.MkdirAll(filepath.Dir(p), 0o755)
	var sb strings.Builder
	sb.WriteString("# Session context\n\n## Parked items\n\n")
	for i := range 8 {
		fmt.Fprintf(&sb, "- **old-%d** — Deferred: idea %d. Raised: 2026-01-0%d.\n", i, i, 1+i)
	}
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in := fmt.Sprintf(`{"session_id":"s1","hook_event_name":"SessionEnd","cwd":%q,"reason":"exit"}`, root)
	var out, errb bytes.Buffer
	now := time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)
	if code := hookio.Main(context.Background(), hook, []string{"--dry-run"}, strings.NewReader(in), &out, &errb, env, func() time.Time { return now }); code != 0 {
		t.Fatalf("exit %d", code)
	}
	plan := out.String()
	i, j := strings.Index(plan, "timeline.jsonl"), strings.Index(plan, "session-context.md")
	if i < 0 || j < 0 || j < i {
		t.Errorf("the plan lacks a write or has the expiry's before step 1's:\n%s\nstderr: %s", plan, errb.String())
	}
}
