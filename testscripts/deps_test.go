package testscripts

import (
	"os/exec"
	"strings"
	"testing"
)

// The hooks run as fresh processes, so every package they link costs its init on every run: no
// hook links the YAML front-matter parser (0.2–0.3 ms of init, a tenth of UserPromptSubmit's
// budget). Only the CLI reads checkpoints through YAML (pkg/checkpoint/saved).
func TestHooksLinkNoYAML(t *testing.T) {
	heavy := []string{"github.com/adrg/frontmatter", "gopkg.in/yaml.v2", "github.com/BurntSushi/toml", "github.com/cairn-hooks/cairn/pkg/checkpoint/saved"}
	for _, hook := range []string{"precompact", "sessionstart", "sessionend", "userpromptsubmit"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/cairn-hooks/cairn/hooks/"+hook).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", hook, err)
		}
		deps := strings.Fields(string(out))
		for _, h := range heavy {
			for _, d := range deps {
				if d == h {
					t.Errorf("%s links %s", hook, h)
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/cairn-hooks/cairn/hooks/cairn").Output()
	if err != nil || !strings.Contains(string(out), "github.com/adrg/frontmatter\n") {
		t.Errorf("the CLI should read checkpoints through adrg/frontmatter: %v", err)
	}
}
