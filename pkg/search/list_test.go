package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
)

func listed(t *testing.T, ix *Index) map[string]Checkpoint {
	t.Helper()
	cps, err := ix.Checkpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Checkpoint{}
	for _, c := range cps {
		m[strings.TrimSuffix(c.Name, ".md")] = c
	}
	return m
}

// Checkpoints lists every checkpoint file with its kind, branch and status, through the base and
// the delta: new files, files changed, files gone, and files that cannot be read.
func TestCheckpointsList(t *testing.T) {
	p := newTestProject(t)
	clk := &clock{t: time.Now().Add(time.Hour)}
	a := p.checkpoint(checkpoint.Entry{Title: "mine", Branch: "main", Status: "blocked", Time: at(-3)}, "")
	b := p.checkpoint(checkpoint.Entry{Title: "before-auto-compaction", Branch: "feat/x", Status: checkpoint.StatusAuto, Time: at(-2)}, "auto")
	gone := p.checkpoint(checkpoint.Entry{Title: "gone", Branch: "main", Time: at(-1)}, "handoff")
	p.audit(at(-2), "old-item", "archived", "- **old-item** — gamma") // not a checkpoint
	ix := openAt(p, t.TempDir(), clk)
	defer ix.Close()
	m := listed(t, ix)
	if len(m) != 3 || m[a].Kind != Saved || m[a].Status != "blocked" || m[a].Branch != "main" || !m[a].Read ||
		m[b].Kind != Auto || m[b].Branch != "feat/x" || m[b].Status != "auto" || m[gone].Kind != Handoff || !m[a].Time.Equal(at(-3).Truncate(time.Second)) {
		t.Fatalf("%+v", m)
	}
	if m[a].Path != "memory/projects/proj/checkpoints/"+a+".md" {
		t.Fatal(m[a].Path)
	}

	// A new one, one removed, one that cannot be read: the delta's view.
	c := p.checkpoint(checkpoint.Entry{Title: "new", Branch: "other", Time: at(0)}, "")
	os.Remove(filepath.Join(checkpoint.Dir(p.root), gone+".md"))
	bad := filepath.Join(checkpoint.Dir(p.root), "20261120-130000-unreadable.md")
	os.WriteFile(bad, []byte("x"), 0o000)
	clk.add(time.Minute)
	m = listed(t, ix)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{a, b, c, "20261120-130000-unreadable"}
	slices.Sort(want)
	if os.Getuid() == 0 {
		// root reads a 0000 file: it is listed as read.
		if !slices.Equal(keys, want) || m[c].Branch != "other" {
			t.Fatalf("%v %+v", keys, m)
		}
		return
	}
	if !slices.Equal(keys, want) || m[c].Branch != "other" || m["20261120-130000-unreadable"].Read {
		t.Fatalf("%v %+v", keys, m)
	}
}
