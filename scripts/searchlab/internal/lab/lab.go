// Package lab holds what every engine of the search lab shares: a query as cairn search takes it,
// a hit, the Searcher interface and the snippet cut from the file a hit points at. It imports no
// cairn package and no engine, so that the per-engine query binaries differ only by their engine.
package lab

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Term is one word of a query, lowercased; Prefix for "lru*".
type Term struct {
	Text   string
	Prefix bool
}

// Query is a search: its words and its filters.
type Query struct {
	Raw    string   // the words as typed, joined by spaces (what cidx parses itself)
	Terms  []Term   // the words split as the engines' tokenizers split them
	Kind   string   // the --kind value as typed ("" for every kind)
	Kinds  []string // the kinds it names, expanded ("checkpoint" is saved, auto, handoff); nil for all
	Branch string   // "" for any
	Since  time.Time
	Limit  int
}

// KindNames are the kinds of item, as cairn names them.
var KindNames = []string{"saved", "auto", "handoff", "parked", "archived", "expired", "timeline"}

// Weight is each kind's prior, as pkg/search weighs BM25 (kind.go).
var Weight = map[string]float64{"saved": 1, "auto": 0.85, "handoff": 1, "parked": 1, "archived": 0.9, "expired": 0.8, "timeline": 0.5}

// ParseArgs reads a query's arguments as cairn search does (the flags searchtest.Queries use):
// --kind, --branch, --since Nd, and words. now is what --since counts back from.
func ParseArgs(args []string, now time.Time) (Query, error) {
	q := Query{Limit: 10}
	var words []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--kind", "--branch", "--since":
			if i+1 >= len(args) {
				return q, fmt.Errorf("%s needs a value", a)
			}
			i++
			v := args[i]
			switch a {
			case "--kind":
				q.Kind = v
				for _, f := range strings.Split(v, ",") {
					f = strings.ToLower(strings.TrimSpace(f))
					switch {
					case f == "":
					case f == "checkpoint" || f == "checkpoints":
						q.Kinds = append(q.Kinds, "saved", "auto", "handoff")
					case Weight[f] > 0:
						q.Kinds = append(q.Kinds, f)
					case Weight[strings.TrimSuffix(f, "s")] > 0:
						q.Kinds = append(q.Kinds, strings.TrimSuffix(f, "s"))
					default:
						return q, fmt.Errorf("unknown kind %q", f)
					}
				}
			case "--branch":
				q.Branch = v
			case "--since":
				d, err := strconv.Atoi(strings.TrimSuffix(v, "d"))
				if err != nil {
					return q, fmt.Errorf("--since %q: %v", v, err)
				}
				q.Since = now.AddDate(0, 0, -d)
			}
		default:
			words = append(words, a)
		}
	}
	q.Raw = strings.Join(words, " ")
	for _, w := range words {
		prefix := strings.HasSuffix(w, "*")
		ts := Tokens(strings.TrimRight(w, "*"))
		for i, t := range ts {
			q.Terms = append(q.Terms, Term{Text: t, Prefix: prefix && i == len(ts)-1})
		}
	}
	if len(q.Terms) == 0 {
		return q, fmt.Errorf("the query has no words")
	}
	return q, nil
}

// HasKind reports whether the query admits kind k.
func (q Query) HasKind(k string) bool {
	if len(q.Kinds) == 0 {
		return true
	}
	for _, x := range q.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Tokens splits s into lowercased runs of letters, digits and marks (as SQLite's unicode61 and
// bleve's unicode tokenizer split, near enough; cidx adds camelCase humps and joined identifiers
// as optional terms, which the lab's queries do not have).
func Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isWord(r) })
}

// Hit is one result.
type Hit struct {
	ID      string
	Kind    string
	Title   string
	Path    string // relative to the root
	Off, N  int64  // the line's bytes in Path (JSON lines); N == 0: the whole file
	Score   float64
	Snippet string
}

// Searcher is an engine's open index.
type Searcher interface {
	Search(q Query) ([]Hit, error)
	Close() error
}

// Snippets fills in each hit's snippet, reading its text back from the file as cidx does (no
// engine in the lab keeps a copy of the text for this: FTS5 is contentless, bleve's stored
// fields are not used for it).
func Snippets(root string, hits []Hit, q Query) {
	for i := range hits {
		hits[i].Snippet = snippet(filepath.Join(root, hits[i].Path), hits[i].Off, hits[i].N, q)
	}
}

// snippet is about 120 bytes of the text at path around the first word of the query in it.
func snippet(path string, off, n int64, q Query) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if n <= 0 {
		n = 1 << 20
	}
	b, _ := io.ReadAll(io.NewSectionReader(f, off, n))
	text := strings.ToLower(string(b))
	at := -1
	for _, t := range q.Terms {
		if i := strings.Index(text, t.Text); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	at = max(at, 0)
	lo, hi := max(at-40, 0), min(at+80, len(b))
	return strings.Join(strings.Fields(string(b[lo:hi])), " ")
}

// Flags are a query binary's arguments: -root, -index, then the query's (after "--" when they
// start with "--").
type Flags struct {
	Root, Index string
	Query       Query
}

// ParseFlags parses a query binary's command line.
func ParseFlags(fs *flag.FlagSet, args []string) (Flags, error) {
	var f Flags
	fs.StringVar(&f.Root, "root", ".", "the project")
	fs.StringVar(&f.Index, "index", "", "the index directory")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	var err error
	f.Query, err = ParseArgs(fs.Args(), time.Now())
	return f, err
}

// Print writes hits as a query binary does.
func Print(w io.Writer, hits []Hit) {
	if len(hits) == 0 {
		fmt.Fprintln(w, "No matches.")
		return
	}
	for _, h := range hits {
		fmt.Fprintf(w, "%s\t%s\t%.3f\t%s\n\t%s\n", h.Kind, h.ID, h.Score, h.Title, h.Snippet)
	}
}
