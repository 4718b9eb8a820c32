package search_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/pkg/search/searchtest"
)

// The index stays within half the size of the files it indexes (docs/DESIGN.md, Budgets), on a
// history shaped like the benchmark's: timeline titles and branches repeat, and must be stored
// once.
func TestIndexSize(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a history from $GOROOT/src's words")
	}
	root := filepath.Join(t.TempDir(), "proj")
	if err := searchtest.Generate(root, searchtest.Options{Checkpoints: 200, Audit: 6000, Timeline: 20000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	files, err := searchtest.Size(root)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	now := time.Now().Add(time.Hour)
	ix := search.Open(search.Config{Root: root, CacheDir: cache, Now: func() time.Time { return now }})
	defer ix.Close()
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	var index int64
	filepath.Walk(cache, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			index += fi.Size()
		}
		return nil
	})
	if index*2 > files {
		t.Errorf("the index is %d bytes for %d bytes of files: %.0f%%, over 50%%", index, files, 100*float64(index)/float64(files))
	}
	t.Logf("index %d bytes, files %d bytes: %.0f%%", index, files, 100*float64(index)/float64(files))
}

// The history's index stays within half the text it indexes (docs/DESIGN.md, Budgets): the
// prompts, Claude's text, commands, errors and paths of the transcripts, not their JSON lines.
// Measured on the peers' case of docs/BENCHMARKS.md: 201 sessions, about 80 MB of transcripts.
func TestHistoryIndexSize(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 80 MB of transcripts")
	}
	root := filepath.Join(t.TempDir(), "proj")
	config := filepath.Join(t.TempDir(), ".claude")
	if _, _, err := searchtest.History(filepath.Join(config, "projects", project.Slug(root)), root, searchtest.HistoryOptions{Sessions: 201, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	ix := search.Open(search.Config{Root: root, CacheDir: cache, ConfigDir: config, Roots: []string{root}})
	defer ix.Close()
	st, err := ix.SyncHistory(context.Background(), 0)
	if err != nil || st.Pending != 0 || st.Text == 0 {
		t.Fatal(st, err)
	}
	var index int64
	filepath.Walk(cache, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			index += fi.Size()
		}
		return nil
	})
	if index*2 > st.Text {
		t.Errorf("the index is %d bytes for %d bytes of text: %.0f%%, over 50%%", index, st.Text, 100*float64(index)/float64(st.Text))
	}
	t.Logf("index %d bytes, text %d bytes (of %d bytes of transcript): %.0f%%", index, st.Text, st.Bytes, 100*float64(index)/float64(st.Text))
}
