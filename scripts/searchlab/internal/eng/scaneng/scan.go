// Package scaneng is the baseline: no index. Each query reads every file, splits every document
// into words, keeps those holding every term (a prefix term: a word starting with it) and that
// pass the filters, and ranks them by term frequency (a title word counts 3) times the kind's
// weight, newer first among equals.
package scaneng

import (
	"sort"
	"strings"

	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/corpus"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

type searcher struct{ root string }

// Open returns the scan of the project at root; there is no index.
func Open(root, _ string) (lab.Searcher, error) { return searcher{root}, nil }

func count(words []string, t lab.Term) int {
	n := 0
	for _, w := range words {
		if w == t.Text || t.Prefix && strings.HasPrefix(w, t.Text) {
			n++
		}
	}
	return n
}

func (s searcher) Search(q lab.Query) ([]lab.Hit, error) {
	type match struct {
		hit  lab.Hit
		time int64
	}
	var ms []match
	since := int64(0)
	if !q.Since.IsZero() {
		since = q.Since.Unix()
	}
	err := corpus.Walk(s.root, func(d *corpus.Doc) error {
		if !q.HasKind(d.Kind) || q.Branch != "" && d.Branch != q.Branch || since != 0 && d.Time < since {
			return nil
		}
		title, body := lab.Tokens(d.Title), lab.Tokens(d.Body)
		score := 0
		for _, t := range q.Terms {
			n := 3*count(title, t) + count(body, t)
			if n == 0 {
				return nil
			}
			score += n
		}
		ms = append(ms, match{lab.Hit{ID: d.ID, Kind: d.Kind, Title: d.Title, Path: d.Path, Off: d.Off, N: d.N,
			Score: float64(score) * lab.Weight[d.Kind]}, d.Time})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].hit.Score != ms[j].hit.Score {
			return ms[i].hit.Score > ms[j].hit.Score
		}
		return ms[i].time > ms[j].time
	})
	hits := make([]lab.Hit, 0, q.Limit)
	for i := 0; i < len(ms) && i < q.Limit; i++ {
		hits = append(hits, ms[i].hit)
	}
	lab.Snippets(s.root, hits, q)
	return hits, nil
}

func (searcher) Close() error { return nil }
