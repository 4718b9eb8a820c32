package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// Opened from a linked worktree, the catalog is the repository's: it and the checkpoints it
// writes live under the main checkout, and each checkpoint and timeline line names the worktree.
func TestCatalogOfALinkedWorktree(t *testing.T) {
	dir := t.TempDir()
	main, wt := filepath.Join(dir, "main"), filepath.Join(dir, "wt")
	for _, args := range [][]string{{"init", "-q", "-b", "main", main}, {"-C", main, "commit", "-q", "--allow-empty", "-m", "i"}, {"-C", main, "worktree", "add", "-q", wt, "-b", "feat"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x.invalid", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	p := &project.Project{Root: wt, Files: safefile.Disk{Roots: []string{wt, main}}}
	x := Open(p, timeline.Open(p))
	if x.Root() != main {
		t.Fatalf("the catalog of a worktree lives under %s, want the main checkout %s", x.Root(), main)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ho, err := x.Handoff(HandoffInput{SessionID: "s-wt", Branch: "feat", Now: now, Doing: "the lexer"})
	if err != nil {
		t.Fatal(err)
	}
	auto, _, err := x.Auto(AutoInput{SessionID: "s-wt", Trigger: "manual", Event: "s-wt/manual/10", Branch: "feat", Now: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{ho.Path, auto.Path} {
		if !strings.HasPrefix(s, main+string(filepath.Separator)) {
			t.Errorf("%s: not under the main checkout", s)
		}
		data, _ := os.ReadFile(s)
		if !strings.Contains(string(data), "\nbranch: feat\nworktree: wt\n") {
			t.Errorf("%s does not name its worktree:\n%s", s, data)
		}
	}
	if _, err := os.Stat(filepath.Join(main, IndexFile)); err != nil {
		t.Errorf("the catalog: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, IndexFile)); err == nil {
		t.Errorf("a catalog in the worktree")
	}
	tl, _ := os.ReadFile(filepath.Join(main, timeline.File))
	if !strings.Contains(string(tl), `"event":"handoff","session":"s-wt","branch":"feat","worktree":"wt"`) {
		t.Errorf("timeline:\n%s", tl)
	}
}
