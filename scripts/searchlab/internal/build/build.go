// Package build builds the lab's indexes from scratch. It is apart from the engines so that
// their query binaries do not link the indexing code.
package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/corpus"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/bleveeng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/cidxeng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/fts5eng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

// Engines are the engines' names, in the report's order.
var Engines = []string{"cidx", "fts5", "bleve", "scan"}

// Build builds engine's index of the project at root in dir, which it creates; it returns the
// number of documents indexed (0 when the engine does not say).
func Build(engine, root, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	switch engine {
	case "cidx":
		return cidxeng.Build(root, dir)
	case "fts5":
		return FTS5(root, dir)
	case "bleve":
		return Bleve(root, dir)
	case "scan":
		return 0, nil
	}
	return 0, fmt.Errorf("unknown engine %q", engine)
}

// FTS5 fills a new database in one transaction, journal and sync off, then merges the FTS5
// segments into one ('optimize') and vacuums, so the file is what a shipped index would be.
func FTS5(root, dir string) (int, error) {
	db, err := fts5eng.OpenDB(dir, false)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	for _, s := range []string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "PRAGMA cache_size=-65536", fts5eng.Schema} {
		if _, err := db.Exec(s); err != nil {
			return 0, fmt.Errorf("%s: %v", s, err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return 0, err
	}
	insF, err := tx.Prepare("INSERT INTO f(rowid, title, body) VALUES(?, ?, ?)")
	if err != nil {
		return 0, err
	}
	insM, err := tx.Prepare("INSERT INTO m(id, did, kind, w, time, branch, title, path, off, n) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return 0, err
	}
	n := 0
	err = corpus.Walk(root, func(d *corpus.Doc) error {
		n++
		if _, err := insF.Exec(n, d.Title, d.Body); err != nil {
			return err
		}
		_, err := insM.Exec(n, d.ID, d.Kind, lab.Weight[d.Kind], d.Time, d.Branch, d.Title, d.Path, d.Off, d.N)
		return err
	})
	if err != nil {
		tx.Rollback()
		return n, err
	}
	if err := tx.Commit(); err != nil {
		return n, err
	}
	for _, s := range []string{"INSERT INTO f(f) VALUES('optimize')", "VACUUM"} {
		if _, err := db.Exec(s); err != nil {
			return n, fmt.Errorf("%s: %v", s, err)
		}
	}
	return n, nil
}

// Bleve indexes in batches of 1,000 documents, then force-merges scorch's segments into one;
// the build ends when the segments replaced are deleted and the index closed.
func Bleve(root, dir string) (int, error) {
	os.RemoveAll(dir) // bleve.New wants to create it
	im, err := bleveeng.Mapping()
	if err != nil {
		return 0, err
	}
	ix, err := bleve.New(dir, im)
	if err != nil {
		return 0, err
	}
	b := ix.NewBatch()
	n := 0
	err = corpus.Walk(root, func(d *corpus.Doc) error {
		n++
		doc := map[string]any{"title": d.Title, "body": d.Body, "kind": d.Kind, "time": float64(d.Time)}
		if d.Branch != "" {
			doc["branch"] = d.Branch
		}
		if err := b.Index(bleveeng.ID(d.Path, d.Off, d.N, d.ID), doc); err != nil {
			return err
		}
		if b.Size() >= 1000 {
			if err := ix.Batch(b); err != nil {
				return err
			}
			b.Reset()
		}
		return nil
	})
	if err == nil && b.Size() > 0 {
		err = ix.Batch(b)
	}
	// Merge the segments into one, as FTS5's 'optimize' does, so that the index measured is
	// what a shipped one would be, and no segment made obsolete by a merge is left to count.
	if err == nil {
		if adv, aerr := ix.Advanced(); aerr == nil {
			if sc, ok := adv.(*scorch.Scorch); ok {
				opts := mergeplan.SingleSegmentMergePlanOptions
				err = sc.ForceMerge(context.Background(), &opts)
				// The persister deletes the merged-away segments in the background: wait until
				// the segment files have not changed for a second (at most a minute).
				last, since := zaps(dir), time.Now()
				for start := time.Now(); err == nil && time.Since(since) < time.Second && time.Since(start) < time.Minute; {
					time.Sleep(100 * time.Millisecond)
					if z := zaps(dir); z != last {
						last, since = z, time.Now()
					}
				}
			}
		}
	}
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// zaps lists scorch's segment files.
func zaps(dir string) string {
	m, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	return strings.Join(m, " ")
}
