package main

import (
	"regexp"
	"strings"
	"testing"
)

// validStatus is the regexp it replaces.
func TestValidStatusMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)
	var cases []string
	for c := 0; c < 256; c++ {
		cases = append(cases, string([]byte{byte(c)}), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a")
	}
	cases = append(cases, "", "done", "in-progress", "-x", strings.Repeat("a", 32), strings.Repeat("a", 33), "a\n", "Done")
	for _, s := range cases {
		if got, want := validStatus(s), re.MatchString(s); got != want {
			t.Errorf("validStatus(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}

// What the CLI prints reaches a terminal without raw control sequences, even when a rune or an
// escape is split between writes.
func TestTerminalWriter(t *testing.T) {
	var b strings.Builder
	tw := &terminalWriter{w: &b}
	for _, part := range []string{"ok \x1b]52;c;aGk=\x07 é", "\xc2", "\x9b31m\n\ttab"} {
		tw.Write([]byte(part))
	}
	tw.flush()
	if want := `ok \x1b]52;c;aGk=\x07 é\u009b31m` + "\n\ttab"; b.String() != want {
		t.Fatalf("%q, want %q", b.String(), want)
	}
}
