package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// cairn --help and cairn claims --help say what a user needs to know of file claims: that the
// PreToolUse hook makes them, how CAIRN_CLAIMS changes it, and that each worktree has its own; and
// --help states the worktree rule.
func TestHelpSaysClaimsAndWorktrees(t *testing.T) {
	var top bytes.Buffer
	help(&top)
	for _, want := range []string{"PreToolUse", "CAIRN_CLAIMS", "ask", "off", "each worktree has its own", "Worktrees: ", "main checkout", "file claims."} {
		if !strings.Contains(top.String(), want) {
			t.Errorf("cairn --help does not say %q", want)
		}
	}
	var out bytes.Buffer
	c := &CLI{Stdout: &out}
	if err := runCommand(context.Background(), c, "claims", topLevel["claims"], []string{"--help"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"usage: cairn claims [--json]", "PreToolUse", "CAIRN_CLAIMS", "each worktree has its own"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("cairn claims --help does not say %q:\n%s", want, out.String())
		}
	}
}
