// Package cidxeng is cairn's own index (pkg/search) behind the lab's Searcher.
package cidxeng

import (
	"context"

	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

type searcher struct{ ix *search.Index }

// Open opens the index of the project at root kept under cache (search.Config.CacheDir).
func Open(root, cache string) (lab.Searcher, error) {
	return searcher{search.Open(search.Config{Root: root, CacheDir: cache})}, nil
}

// Build builds the index whole: Sync on an empty cache directory. It returns the number of
// documents indexed.
func Build(root, cache string) (int, error) {
	ix := search.Open(search.Config{Root: root, CacheDir: cache})
	defer ix.Close()
	st, err := ix.Sync(context.Background())
	return st.Docs, err
}

// Search runs the query as cairn search does: the freshness check, the query, the snippets.
func (s searcher) Search(q lab.Query) ([]lab.Hit, error) {
	kinds, err := search.ParseKinds(q.Kind)
	if err != nil {
		return nil, err
	}
	rs, err := s.ix.Search(context.Background(), q.Raw, search.Options{Kinds: kinds, Branch: q.Branch, Since: q.Since, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	hits := make([]lab.Hit, 0, len(rs.Items))
	for _, r := range rs.Items {
		hits = append(hits, lab.Hit{ID: r.ID, Kind: r.Kind.String(), Title: r.Title, Path: r.Path, Score: r.Score, Snippet: r.Snippet})
	}
	return hits, nil
}

func (s searcher) Close() error { return s.ix.Close() }
