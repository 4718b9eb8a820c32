package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/project/projecttest"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// A checkpoint retention pruned is still found, by its words, as kind pruned; cairn show takes
// its pruned: id and its own name, read from the log of pruned checkpoints.
func TestPrunedFound(t *testing.T) {
	p := newTestProject(t)
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	var first checkpoint.Saved
	for i := 0; i <= catalog.RetainPerBranch; i++ {
		w := projecttest.New(t, p.root, "", start.Add(time.Duration(i)*time.Minute))
		in := catalog.AutoInput{SessionID: "s1", Trigger: "auto", Event: fmt.Sprintf("s1/auto/%d", i), Branch: "main",
			Now: start.Add(time.Duration(i) * time.Minute), Prompts: []string{fmt.Sprintf("tune the okapi%d cache", i)}}
		s, _, err := catalog.Open(w.Project, timeline.Open(w.Project)).Auto(in)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = s
		}
	}
	if _, err := os.Stat(first.Path); err == nil {
		t.Fatal("not pruned")
	}
	ix := p.index(t.TempDir())
	defer ix.Close()
	rs, err := ix.Search(context.Background(), "okapi0", Options{})
	if err != nil || len(rs.Items) != 1 {
		t.Fatalf("%+v %v", rs, err)
	}
	r := rs.Items[0]
	name := strings.TrimSuffix(filepath.Base(first.Path), ".md")
	if r.ID != "pruned:"+name || r.Kind != Pruned || r.Branch != "main" || r.Title != "before-auto-compaction" || !strings.Contains(r.Snippet, "«okapi0»") {
		t.Errorf("result: %+v", r)
	}
	for _, id := range []string{"pruned:" + name, name} {
		it, err := Show(Config{Root: p.root}, id)
		if err != nil || it.Kind != Pruned || !strings.Contains(it.Text, "tune the okapi0 cache") || it.Path != catalog.PrunedFile {
			t.Errorf("show %s: %+v %v", id, it, err)
		}
	}
	if _, err := Show(Config{Root: p.root}, "pruned:20261101-090000-nope"); err == nil {
		t.Error("an unknown pruned id shows")
	}
	if rs, _ := ix.Search(context.Background(), "okapi0", Options{Kinds: 1 << Pruned}); len(rs.Items) != 1 {
		t.Errorf("--kind pruned: %+v", rs.Items)
	}
}
