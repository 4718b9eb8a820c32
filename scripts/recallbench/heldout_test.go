package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/scripts/recallbench/internal/recall"
	"github.com/cairn-hooks/cairn/testscripts/testbin"
)

// heldOutSessions is how many seeded sessions the held-out comparison replays in one project, on
// one branch: more than retention keeps of each kind (30 automatic checkpoints and 30 hand-offs
// per branch), so that the oldest sessions' checkpoints are pruned.
const heldOutSessions = 50

// TestHeldOut is the held-out comparison of docs/BENCHMARKS.md (History): seeded sessions
// replayed in one project through the built hooks, as Claude Code runs them, until retention
// prunes the oldest sessions' checkpoints; then a fact planted in each of twelve of those sessions
// is searched for. Each must lead to its session, twice: with Claude Code's transcripts (the
// session itself, or a checkpoint of it), and with the transcripts gone and the index rebuilt,
// from what retention kept of the checkpoints it pruned (memory/pruned.jsonl).
func TestHeldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 50 sessions through the built hooks")
	}
	testbin.TouchSources("../..")
	bin, cleanup, err := testbin.Build("../..", "heldout-bin-")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	work := t.TempDir()
	m := &recall.Machine{Bin: bin, Work: filepath.Join(work, "machine"), Now: time.Now(), Project: filepath.Join(work, "proj")}
	sessions, err := recall.Corpus(7, heldOutSessions, 16<<10, recall.PhrasingDefault)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sessions {
		sessions[i].Branch = "main"
		if _, err := recall.Replay(context.Background(), m, &sessions[i]); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	cairn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "cairn"), args...)
		cmd.Dir = m.Project
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(m.Work, "home"),
			"CLAUDE_CONFIG_DIR=" + filepath.Join(m.Work, "home", ".claude"), "CLAUDE_PROJECT_DIR=" + m.Project,
			"XDG_CACHE_HOME=" + filepath.Join(work, "cache"), "TZ=UTC"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// Retention pruned the oldest sessions' checkpoints: the comparison is about what it removed.
	// A session none of whose checkpoints is left is one whose checkpoints were all pruned.
	var left strings.Builder
	ckpts, _ := filepath.Glob(filepath.Join(m.Project, "memory", "projects", "*", "checkpoints", "*.md"))
	for _, p := range ckpts {
		data, _ := os.ReadFile(p)
		left.Write(data)
	}
	// The facts: one of each of the first twelve sessions whose checkpoints were pruned, one
	// class each in turn, from what holds when the session ended.
	classes := []string{recall.Decision, recall.ErrorText, recall.MainRequest, recall.TestCommand, recall.LastCommit, recall.EditedPath}
	type fact struct {
		s      *recall.Session
		needle string
	}
	var facts []fact
	for i := 0; len(facts) < 12 && i < len(sessions); i++ {
		if strings.Contains(left.String(), sessions[i].ID) {
			continue
		}
		_, held := sessions[i].Facts()
		for k := range classes {
			class := classes[(len(facts)+k)%len(classes)]
			if f, ok := find(held, class); ok {
				facts = append(facts, fact{&sessions[i], f.Needle})
				break
			}
		}
	}
	if len(facts) != 12 {
		t.Fatalf("%d sessions with pruned checkpoints and a fact to look for, want 12: the corpus does not test retention", len(facts))
	}

	// found reports whether one of the first three results of a search for the needle is the
	// session, or an item cairn show ties to it.
	found := func(f fact) bool {
		out := cairn("search", "--limit", "3", "--", f.needle)
		for _, l := range strings.Split(out, "\n") {
			id, ok := strings.CutPrefix(l, "  id: ")
			if !ok {
				continue
			}
			if id == "session:"+f.s.ID || strings.Contains(cairn("show", "--", id), f.s.ID) {
				return true
			}
		}
		t.Logf("session %d (%s): %q not found:\n%s", f.s.Index, f.s.Shape, f.needle, out)
		return false
	}
	cairn("index")
	n := 0
	for _, f := range facts {
		if found(f) {
			n++
		}
	}
	t.Logf("with the transcripts: %d of %d facts lead to their session", n, len(facts))
	if n != len(facts) {
		t.Errorf("with the transcripts: %d of %d", n, len(facts))
	}

	// Without the transcripts, from a fresh index: what retention kept.
	os.RemoveAll(filepath.Join(m.Work, "home", ".claude", "projects"))
	os.RemoveAll(filepath.Join(work, "cache"))
	n = 0
	for _, f := range facts {
		if found(f) {
			n++
		}
	}
	t.Logf("from the pruned checkpoints alone: %d of %d", n, len(facts))
	if n != len(facts) {
		t.Errorf("from the pruned checkpoints alone: %d of %d", n, len(facts))
	}
}

func find(facts []recall.Fact, class string) (recall.Fact, bool) {
	for _, f := range facts {
		if f.Class == class {
			return f, true
		}
	}
	return recall.Fact{}, false
}
