package parking

import (
	"path/filepath"
	"strings"
)

// Match scores for archive, best first (see match).
const (
	scoreExact     = 4 // the slug, the name or the legacy file name
	scorePrefix    = 3 // the start of the slug
	scoreSubstring = 2 // inside the slug or the name
	scoreContent   = 1 // inside the description or the item's text
)

// match returns the items that match query best, case-insensitively: an exact slug, name or
// legacy file name beats a slug prefix, which beats a substring of the slug or name, which beats
// a substring of the description or text. The query is also compared as a slug ("Fix login"
// matches fix-login). More than one result means the query is ambiguous; none, that nothing matches.
func match(items []Item, query string) []Item {
	q := strings.ToLower(strings.TrimSpace(query))
	qs := Slugify(query)
	if q == "" {
		return nil
	}
	best, out := 0, []Item(nil)
	for _, it := range items {
		sc := score(it, q, qs)
		for _, c := range it.copies {
			sc = max(sc, score(c, q, qs))
		}
		switch {
		case sc == 0 || sc < best:
		case sc > best:
			best, out = sc, []Item{it}
		default:
			out = append(out, it)
		}
	}
	return out
}

func score(it Item, q, qs string) int {
	name := strings.ToLower(it.Name)
	file := ""
	if it.Path != "" {
		file = strings.ToLower(filepath.Base(it.Path))
	}
	switch {
	case it.Slug == q || it.Slug == qs || name == q || file != "" && (file == q || strings.TrimSuffix(file, legacySuffix) == q):
		return scoreExact
	case qs != "" && strings.HasPrefix(it.Slug, qs):
		return scorePrefix
	case qs != "" && strings.Contains(it.Slug, qs) || strings.Contains(name, q):
		return scoreSubstring
	case strings.Contains(strings.ToLower(it.Description), q) || strings.Contains(it.search, q):
		return scoreContent
	}
	return 0
}
