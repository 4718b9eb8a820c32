package setup

import (
	"strings"
	"testing"
)

func TestIgnoreBlock(t *testing.T) {
	for _, in := range []string{"", "*.swp\n", "*.swp", "a\r\nb\r\n", "# cairn: runtime state\n"} {
		with := withIgnoreBlock([]byte(in))
		if !strings.Contains(string(with), ignoreBegin) || strings.Count(string(with), ignoreEnd) != 1 {
			t.Errorf("withIgnoreBlock(%q) = %q", in, with)
		}
		if again := withIgnoreBlock(with); string(again) != string(with) {
			t.Errorf("withIgnoreBlock is not idempotent on %q: %q", with, again)
		}
		if strings.Contains(in, "\r\n") && strings.Contains(strings.ReplaceAll(string(with), "\r\n", ""), "\n") {
			t.Errorf("withIgnoreBlock(%q) mixes line endings: %q", in, with)
		}
		out, had := withoutIgnoreBlock(with)
		want := in
		if in != "" && !strings.HasSuffix(in, "\n") {
			want += "\n" // the line end the block needed stays
		}
		if !had || string(out) != want {
			t.Errorf("withoutIgnoreBlock(%q) = %q, %v; want %q", with, out, had, want)
		}
	}
	// A changed block is replaced in place; a begin line without its end is not a block.
	changed := "a\n" + ignoreBegin + "\n/state/\n" + ignoreEnd + "\nb\n"
	if got := string(withIgnoreBlock([]byte(changed))); got != "a\n"+ignoreBlock("\n")+"b\n" {
		t.Errorf("replaced block: %q", got)
	}
	if _, had := withoutIgnoreBlock([]byte(ignoreBegin + "\n/state/\n")); had {
		t.Error("a block without its end line was found")
	}
}
