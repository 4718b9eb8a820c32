package search

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
)

// A linked worktree searches its repository's shared knowledge — the checkpoints and the timeline
// under the main checkout — and its own parked items, not the main checkout's; every result
// recorded in a worktree names it, and the index holds each checkpoint once.
func TestWorktreeSearchesSharedKnowledge(t *testing.T) {
	main, wt := newTestProject(t), newTestProject(t)
	ck := main.checkpoint(checkpoint.Entry{Title: "fixing the zebra parser", Branch: "feat", Worktree: "wt-feat", Time: at(0),
		Sections: checkpoint.Sections{Summary: "zebra stripes"}}, "")
	tl := main.event(at(0, 1, 0), map[string]string{"event": "session_start", "session": "s1", "branch": "feat", "worktree": "wt-feat"})
	// What retention pruned lies where the catalog that pruned it does: under the main checkout.
	pruned := "20261101-090000-before-auto-compaction"
	main.appendFile(catalog.PrunedFile, jsonLine(map[string]string{"ts": "2026-11-01T09:00:00Z", "checkpoint": "memory/projects/main/checkpoints/" + pruned + ".md",
		"kind": "auto", "branch": "feat", "session": "s1", "text": "---\nkind: auto\nbranch: feat\n---\n# before-auto-compaction\n\n## Summary\nthe zebra okapi cache\n"}))
	main.parked("- **Deferred (2026-11-20):** zebra in the main checkout only")
	wt.parked("- **Deferred (2026-11-20):** zebra in the worktree only")

	now := time.Now().Add(time.Hour)
	cfg := Config{Root: wt.root, Shared: main.root, CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	ix := Open(cfg)
	defer ix.Close()
	rs, err := ix.Search(context.Background(), "zebra", Options{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	var parked []string
	byID := map[string]Result{}
	for _, r := range rs.Items {
		byID[r.ID] = r
		if r.Kind == Parked {
			parked = append(parked, r.Snippet)
		}
	}
	if r, ok := byID[ck]; !ok || r.Worktree != "wt-feat" || r.Branch != "feat" {
		t.Errorf("the main checkout's checkpoint from the worktree: %+v (found %v)", r, ok)
	}
	if len(parked) != 1 || !strings.Contains(parked[0], "worktree only") {
		t.Errorf("parked items found: %q, want the worktree's alone", parked)
	}
	rs, err = ix.Search(context.Background(), "feat", Options{Limit: 20})
	found := false
	for _, r := range rs.Items {
		if r.ID == tl {
			found = r.Worktree == "wt-feat"
		}
	}
	if err != nil || !found {
		t.Errorf("the timeline's event, with its worktree, not found: %+v %v", rs.Items, err)
	}
	cps, err := ix.Checkpoints(context.Background())
	if err != nil || len(cps) != 1 || cps[0].Worktree != "wt-feat" || cps[0].Branch != "feat" || !cps[0].Read {
		t.Errorf("Checkpoints = %+v, %v", cps, err)
	}
	it, err := Show(cfg, ck)
	if err != nil || it.Worktree != "wt-feat" || filepath.Base(it.Path) != ck+".md" {
		t.Errorf("Show = %+v, %v", it, err)
	}
	if it, err := Show(cfg, tl); err != nil || it.Worktree != "wt-feat" {
		t.Errorf("Show(timeline) = %+v, %v", it, err)
	}
	rs, err = ix.Search(context.Background(), "okapi", Options{Limit: 20})
	if err != nil || len(rs.Items) != 1 || rs.Items[0].ID != "pruned:"+pruned {
		t.Errorf("the pruned checkpoint, from the worktree: %+v %v", rs.Items, err)
	}
	if it, err := Show(cfg, "pruned:"+pruned); err != nil || !strings.Contains(it.Text, "zebra okapi") {
		t.Errorf("Show(pruned) = %+v, %v", it, err)
	}
}
