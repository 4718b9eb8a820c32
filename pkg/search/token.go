package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTerm bounds a token's length in bytes: a longer one is cut (a base64 blob is not a word,
// and a term that long is never typed).
const maxTerm = 64

// What a token is. A query requires its words and lets humps and joins add to the score, so
// "login_parser" finds "login parser" too, the exact identifier first.
const (
	tokWord   = iota // a run of letters, digits and marks, lowercased: "readhead", "go"
	tokHump          // a camelCase part of a word of two or more: "read", "head" of ReadHead
	tokJoined        // words joined by '_' or '.': "login_parser", "index.go", "v1.2"
)

// isWordRune reports a letter, a digit or a combining mark (so that a decomposed "é" stays in
// its word).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// wordAt returns the end of the run of word runes starting at i (i itself when none).
func wordAt(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			return i
		}
		i += n
	}
	return i
}

// tokenizer holds the scratch space of tokens.
type tokenizer struct {
	buf  []byte
	runs [][2]int
}

// tokens calls emit for each token of s, in order of their start: for each word its lowercased
// text (kind tokWord), its camelCase humps when it has two or more (tokHump), and after the
// words of an identifier joined by '_' or '.' the whole identifier and the snake_case ones in it
// (tokJoined). The term passed
// to emit is valid only during the call. Separators are everything else: spaces, punctuation,
// '/', '-', so a path is its components ("pkg/search/index_test.go": pkg, search, index, test,
// go, index_test.go and index_test).
func (tz *tokenizer) tokens(s string, emit func(term []byte, kind, start, end int)) {
	i := 0
	for i < len(s) {
		end := wordAt(s, i)
		if end == i {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		// An identifier: words joined by single '_' or '.' between word runes.
		tz.runs = append(tz.runs[:0], [2]int{i, end})
		for end+1 < len(s) && (s[end] == '_' || s[end] == '.') {
			next := wordAt(s, end+1)
			if next == end+1 {
				break
			}
			tz.runs = append(tz.runs, [2]int{end + 1, next})
			end = next
		}
		for _, r := range tz.runs {
			emit(tz.lower(s[r[0]:r[1]]), tokWord, r[0], r[1])
			tz.humps(s, r[0], r[1], emit)
		}
		if len(tz.runs) > 1 {
			emit(tz.lower(s[tz.runs[0][0]:end]), tokJoined, tz.runs[0][0], end)
			tz.snakeParts(s, emit)
		}
		i = end
	}
}

// snakeParts emits the snake_case identifiers inside a dotted one: "login_parser" of
// "login_parser.go", "read_head" of "pkg.read_head".
func (tz *tokenizer) snakeParts(s string, emit func([]byte, int, int, int)) {
	runs := tz.runs
	for i := 0; i < len(runs); {
		j := i
		for j+1 < len(runs) && s[runs[j][1]] == '_' {
			j++
		}
		if j > i && (i > 0 || j < len(runs)-1) {
			emit(tz.lower(s[runs[i][0]:runs[j][1]]), tokJoined, runs[i][0], runs[j][1])
		}
		i = j + 1
	}
}

// lower returns w lowercased in the scratch buffer, cut to maxTerm bytes on a rune boundary.
func (tz *tokenizer) lower(w string) []byte {
	b := tz.buf[:0]
	for i := 0; i < len(w); {
		c := w[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if len(b)+1 > maxTerm {
				break
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(w[i:])
		if r == utf8.RuneError && n == 1 {
			i++
			continue
		}
		r = unicode.ToLower(r)
		if len(b)+utf8.RuneLen(r) > maxTerm {
			break
		}
		b = utf8.AppendRune(b, r)
		i += n
	}
	tz.buf = b
	return b
}

// humps emits the camelCase parts of the word s[a:b] when it has two or more: a hump starts at
// an upper-case letter that follows a lower-case letter or a digit ("readHead", "utf8Decode"),
// or that starts a capitalised word after an acronym ("HTTPServer": http, server).
func (tz *tokenizer) humps(s string, a, b int, emit func([]byte, int, int, int)) {
	if b-a < 2 {
		return
	}
	// Most words are lower-case ASCII: no humps, no need to decode them.
	upper := false
	for i := a + 1; i < b && !upper; i++ {
		upper = s[i] >= 'A' && s[i] <= 'Z' || s[i] >= utf8.RuneSelf
	}
	if !upper {
		return
	}
	var bounds [16]int
	nb := 0
	var prev, cur rune = -1, -1
	prevAt := a
	for i := a; i < b; {
		r, n := utf8.DecodeRuneInString(s[i:])
		if prev >= 0 && unicode.IsUpper(r) && (unicode.IsLower(cur) || unicode.IsDigit(cur)) && nb < len(bounds) {
			bounds[nb] = i
			nb++
		} else if prev >= 0 && unicode.IsUpper(cur) && unicode.IsUpper(prev) && unicode.IsLower(r) && prevAt > a && nb < len(bounds) &&
			!(r == 's' && i+n == b) { // "IDs", "URLs": a plural, not a hump
			bounds[nb] = prevAt
			nb++
		}
		prev, cur, prevAt = cur, r, i
		i += n
	}
	if nb == 0 {
		return
	}
	start := a
	for k := 0; k <= nb; k++ {
		end := b
		if k < nb {
			end = bounds[k]
		}
		if end > start {
			emit(tz.lower(s[start:end]), tokHump, start, end)
		}
		start = end
	}
}

// term is one term of a query.
type term struct {
	text     string
	prefix   bool // "lru*": every term that starts with text
	optional bool // a hump or a join: it adds to the score but is not required
}

// parseQuery splits a query into terms: the words of every field are required (all must match),
// the humps and joins optional; a field ending in '*' makes its last word a prefix.
func parseQuery(q string) []term {
	var out []term
	seen := map[term]int{}
	add := func(t term) {
		key := t
		key.optional = false
		if i, ok := seen[key]; ok {
			if !t.optional {
				out[i].optional = false
			}
			return
		}
		seen[key] = len(out)
		out = append(out, t)
	}
	var tz tokenizer
	for _, f := range strings.Fields(q) {
		prefix := strings.HasSuffix(f, "*")
		f = strings.TrimRight(f, "*")
		lastWord := -1
		var toks []term
		tz.tokens(f, func(t []byte, kind, _, _ int) {
			if kind == tokWord {
				lastWord = len(toks)
			}
			toks = append(toks, term{text: string(t), optional: kind != tokWord})
		})
		for i, t := range toks {
			if prefix {
				if i != lastWord && !t.optional {
					add(t)
				} else if i == lastWord {
					t.prefix = true
					add(t)
				}
				continue // a prefix field's humps and joins would require what the prefix spares
			}
			add(t)
		}
	}
	return out
}

// matches reports whether the token t matches the query term.
func (q term) matches(t []byte) bool {
	if q.prefix {
		return len(t) >= len(q.text) && string(t[:len(q.text)]) == q.text
	}
	return string(t) == q.text
}
