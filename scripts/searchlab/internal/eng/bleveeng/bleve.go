// Package bleveeng is bleve v2 (scorch) behind the lab's Searcher. The mapping is bleve's default
// (dynamic: every field indexed, stored, with term vectors, and in _all) with three changes: the
// default analyzer is bleve's standard one without its English stop-word filter (unicode
// tokenizer, lowercase), or the query "the" would find nothing; kind and branch are keyword
// fields, for exact filters; scoring is BM25 (bleve's default is TF-IDF). A document's id
// carries where it is in its file, so no stored field but the title and kind is read.
package bleveeng

import (
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

// Mapping is the index mapping.
func Mapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer("nostop", map[string]any{"type": custom.Name, "tokenizer": unicode.Name, "token_filters": []string{lowercase.Name}}); err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = "nostop"
	im.ScoringModel = "bm25"
	im.DefaultMapping.AddFieldMappingsAt("kind", bleve.NewKeywordFieldMapping())
	im.DefaultMapping.AddFieldMappingsAt("branch", bleve.NewKeywordFieldMapping())
	return im, nil
}

// ID is a document's id: its file, offset and length, and cairn's id.
func ID(path string, off, n int64, id string) string {
	return path + "\x00" + strconv.FormatInt(off, 10) + "\x00" + strconv.FormatInt(n, 10) + "\x00" + id
}

type searcher struct {
	ix   bleve.Index
	root string
}

// Open opens the index in dir, read-only, of the project at root.
func Open(root, dir string) (lab.Searcher, error) {
	ix, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, err
	}
	return &searcher{ix: ix, root: root}, nil
}

// Search requires every term in the title (boost 3) or the body, a prefix term as a prefix
// query; the filters are required clauses: a keyword term on kind (any of the kinds), on branch,
// a numeric range on time. Bleve scores the filter clauses too; the kinds' weights are not
// applied.
func (s *searcher) Search(q lab.Query) ([]lab.Hit, error) {
	var must []query.Query
	for _, t := range q.Terms {
		var title, body query.FieldableQuery
		if t.Prefix {
			title, body = bleve.NewPrefixQuery(t.Text), bleve.NewPrefixQuery(t.Text)
		} else {
			title, body = bleve.NewTermQuery(t.Text), bleve.NewTermQuery(t.Text)
		}
		title.SetField("title")
		title.(query.BoostableQuery).SetBoost(3)
		body.SetField("body")
		must = append(must, bleve.NewDisjunctionQuery(title, body))
	}
	if len(q.Kinds) > 0 {
		var ks []query.Query
		for _, k := range q.Kinds {
			tq := bleve.NewTermQuery(k)
			tq.SetField("kind")
			ks = append(ks, tq)
		}
		must = append(must, bleve.NewDisjunctionQuery(ks...))
	}
	if q.Branch != "" {
		tq := bleve.NewTermQuery(q.Branch)
		tq.SetField("branch")
		must = append(must, tq)
	}
	if !q.Since.IsZero() {
		min := float64(q.Since.Unix())
		rq := bleve.NewNumericRangeQuery(&min, nil)
		rq.SetField("time")
		must = append(must, rq)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(must...), q.Limit, 0, false)
	req.Fields = []string{"title", "kind"}
	res, err := s.ix.Search(req)
	if err != nil {
		return nil, err
	}
	hits := make([]lab.Hit, 0, len(res.Hits))
	for _, d := range res.Hits {
		p := strings.SplitN(d.ID, "\x00", 4)
		if len(p) != 4 {
			continue
		}
		h := lab.Hit{Path: p[0], ID: p[3], Score: d.Score}
		h.Off, _ = strconv.ParseInt(p[1], 10, 64)
		h.N, _ = strconv.ParseInt(p[2], 10, 64)
		h.Title, _ = d.Fields["title"].(string)
		h.Kind, _ = d.Fields["kind"].(string)
		hits = append(hits, h)
	}
	lab.Snippets(s.root, hits, q)
	return hits, nil
}

func (s *searcher) Close() error { return s.ix.Close() }
