package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

func TestModifiedFiles(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command(git, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(root, "tracked.go"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(root, "staged.go"), []byte("a"), 0o644)
	run("add", ".")
	run("commit", "-q", "-m", "init")
	os.WriteFile(filepath.Join(root, "tracked.go"), []byte("b"), 0o644)
	os.WriteFile(filepath.Join(root, "staged.go"), []byte("b"), 0o644)
	run("add", "staged.go")
	os.MkdirAll(filepath.Join(root, "new dir"), 0o755)
	os.WriteFile(filepath.Join(root, "new dir", "x.txt"), []byte("x"), 0o644)
	if _, err := checkpoint.Save(safefile.Disk{Roots: []string{root}}, root, checkpoint.Entry{Title: "t", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	timeline.OpenAt(root, safefile.Disk{Roots: []string{root}}).Append(timeline.Event{Time: time.Now(), Event: timeline.SessionStart})
	files, err := modifiedFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files, "|"); got != "staged.go|tracked.go|new dir/x.txt" {
		t.Fatalf("%q", files)
	}
	if files, err := modifiedFiles(context.Background(), t.TempDir()); files != nil || err != nil {
		t.Fatalf("outside git: %v %v", files, err)
	}
}

func TestParsePorcelain(t *testing.T) {
	out := " M a.go\x00M  b.go\x00R  new.go\x00old.go\x00?? memory/projects/p/checkpoints/x.md\x00?? .claude/state/session.json\x00?? memory/timeline.jsonl.lock\x00?? dir/new file.txt\x00 D gone.go\x00MM a.go\x00"
	got := parsePorcelain([]byte(out), []string{"memory/projects/p/checkpoints/", ".claude/state/", timeline.File})
	if want := "a.go|b.go|new.go|dir/new file.txt|gone.go"; strings.Join(got, "|") != want {
		t.Fatalf("%q", got)
	}
}
