package search

import (
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/plain"
)

// Marks around a match in a snippet: guillemets, which neither markdown nor a terminal gives a
// meaning to, and which the text itself seldom holds (unlike ** or [ ]).
const (
	markOpen  = "«"
	markClose = "»"
)

const (
	snippetWords = 24  // a snippet is about this many words
	maxSnippet   = 300 // and at most this many characters
)

// snippet returns about snippetWords words of text around its densest cluster of matches of
// terms, each match between markOpen and markClose, as one line, "…" where it was cut. Without
// a match in text (the item matched by its title) it is the text's start.
func snippet(text string, terms []term) string {
	type span struct{ a, b int }
	var words, hits []span
	var tz tokenizer
	tz.tokens(text, func(t []byte, kind, a, b int) {
		if kind == tokWord {
			words = append(words, span{a, b})
		}
		for _, q := range terms {
			if q.matches(t) {
				hits = append(hits, span{a, b})
				break
			}
		}
	})
	if len(words) == 0 {
		return ""
	}
	// Weigh each word by the matches that cover it (a word of a matching identifier counts
	// twice), then merge the hits (a join comes after its words, a hump inside one) into sorted,
	// disjoint spans to mark.
	slices.SortFunc(hits, func(x, y span) int { return x.a - y.a })
	hit := make([]int, len(words))
	for _, h := range hits {
		i, _ := slices.BinarySearchFunc(words, h.a, func(w span, a int) int { return w.b - a - 1 })
		for ; i < len(words) && words[i].a < h.b; i++ {
			hit[i]++
		}
	}
	merged := hits[:0]
	for _, h := range hits {
		if n := len(merged); n > 0 && h.a <= merged[n-1].b {
			merged[n-1].b = max(merged[n-1].b, h.b)
			continue
		}
		merged = append(merged, h)
	}
	// The window of snippetWords words with the most hits, started a few words before its first.
	best, bestN, n := 0, 0, 0
	for i := range words {
		n += hit[i]
		if i >= snippetWords {
			n -= hit[i-snippetWords]
		}
		if n > bestN {
			bestN, best = n, max(i-snippetWords+1, 0)
		}
	}
	for j := best; j < min(best+snippetWords, len(words)); j++ {
		if hit[j] > 0 {
			best = max(j-4, 0)
			break
		}
	}
	if len(words) <= snippetWords {
		best = 0 // a short text is shown whole
	}
	last := min(best+snippetWords, len(words)) - 1
	from, to := words[best].a, words[last].b
	if best == 0 {
		from = 0 // keep what comes before the first word ("- **slug**")
	}
	if last == len(words)-1 {
		to = len(text) // and after the last ("tests.")
	}
	var b strings.Builder
	if best > 0 {
		b.WriteString("… ")
	}
	pos := from
	for _, m := range merged {
		if m.b <= from || m.a >= to {
			continue
		}
		a, e := max(m.a, from), min(m.b, to)
		b.WriteString(text[pos:a])
		b.WriteString(markOpen + text[a:e] + markClose)
		pos = e
	}
	b.WriteString(text[pos:to])
	if last < len(words)-1 {
		b.WriteString(" …")
	}
	s := plain.Line(b.String(), maxSnippet)
	if strings.Count(s, markOpen) > strings.Count(s, markClose) {
		s += markClose // cut inside a match
	}
	return s
}
