package search_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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
