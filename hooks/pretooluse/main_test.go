package main

import (
	"strings"
	"testing"
)

// pretooluse --help says how CAIRN_CLAIMS changes the hook, both of its values.
func TestHelpSaysTheModes(t *testing.T) {
	for _, want := range []string{"CAIRN_CLAIMS", "ask", "off", "never blocks"} {
		if !strings.Contains(hook.Summary, want) {
			t.Errorf("the hook's --help does not say %q: %s", want, hook.Summary)
		}
	}
}
