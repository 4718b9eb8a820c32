package search

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// toks renders the tokens of s as "kind:term" (w word, h hump, j join).
func toks(s string) []string {
	var out []string
	var tz tokenizer
	tz.tokens(s, func(t []byte, kind, a, b int) {
		out = append(out, fmt.Sprintf("%c:%s@%d", "whj"[kind], t, a))
	})
	return out
}

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"Hello, World!", "w:hello@0 w:world@7"},
		{"  the parser's error  ", "w:the@2 w:parser@6 w:s@13 w:error@15"},
		// Identifiers: words joined by '_' or '.' also give the whole identifier.
		{"login_parser", "w:login@0 w:parser@6 j:login_parser@0"},
		{"pkg.read_head.go", "w:pkg@0 w:read@4 w:head@9 w:go@14 j:pkg.read_head.go@0 j:read_head@4"},
		{"safefile.ReadHead()", "w:safefile@0 w:readhead@9 h:read@9 h:head@13 j:safefile.readhead@0"},
		{"v1.2.3", "w:v1@0 w:2@3 w:3@5 j:v1.2.3@0"},
		{"end of sentence. Next", "w:end@0 w:of@4 w:sentence@7 w:next@17"},
		{"__init__ a__b", "w:init@2 w:a@9 w:b@12"},
		// Paths are their components; a file name is also one identifier.
		{"pkg/search/index_test.go", "w:pkg@0 w:search@4 w:index@11 w:test@17 w:go@22 j:index_test.go@11 j:index_test@11"},
		{"feat/login-parser", "w:feat@0 w:login@5 w:parser@11"},
		// camelCase humps, acronyms, digits; plurals of acronyms stay whole.
		{"HTTPServer utf8Decode IDs URLs", "w:httpserver@0 h:http@0 h:server@4 w:utf8decode@11 h:utf8@11 h:decode@15 w:ids@22 w:urls@26"},
		{"ReadHead", "w:readhead@0 h:read@0 h:head@4"},
		// Unicode letters, digits and marks; everything lowercased.
		{"Größe ÉTÉ naïve 日本語", "w:größe@0 w:été@8 w:naïve@14 w:日本語@21"},
		{"cafe\u0301 ok", "w:cafe\u0301@0 w:ok@7"},
		{"emoji 🙂 and ‘quotes’", "w:emoji@0 w:and@11 w:quotes@18"},
		{"", ""},
	} {
		if got := strings.Join(toks(c.in), " "); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	// A token is cut at maxTerm bytes, on a rune boundary.
	long := strings.Repeat("é", 40)
	var got []string
	var tz tokenizer
	tz.tokens(long, func(t []byte, _, _, _ int) { got = append(got, string(t)) })
	if len(got) != 1 || got[0] != strings.Repeat("é", maxTerm/2) {
		t.Errorf("long token: %q", got)
	}
}

func TestParseQuery(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []term
	}{
		{"Login Parser", []term{{text: "login"}, {text: "parser"}}},
		{"login_parser", []term{{text: "login"}, {text: "parser"}, {text: "login_parser", optional: true}}},
		{"ReadHead", []term{{text: "readhead"}, {text: "read", optional: true}, {text: "head", optional: true}}},
		{"lru* cache", []term{{text: "lru", prefix: true}, {text: "cache"}}},
		{"pkg/sea*", []term{{text: "pkg"}, {text: "sea", prefix: true}}},
		{"parser parser PARSER", []term{{text: "parser"}}},
		{"read ReadHead", []term{{text: "read"}, {text: "readhead"}, {text: "head", optional: true}}},
		{"-- ** ?", nil},
	} {
		if got := parseQuery(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	text := "We rewrote the login parser so that it streams tokens. The old parser kept the whole form in memory, which broke on large uploads; see pkg/auth/login_parser.go for the details and the tests."
	for _, c := range []struct{ q, want string }{
		{"parser", "We rewrote the login «parser» so that it streams tokens. The old «parser» kept the whole form in memory, which broke on large uploads …"},
		{"login_parser", "… streams tokens. The old «parser» kept the whole form in memory, which broke on large uploads; see pkg/auth/«login_parser».go for the …"},
		{"upload*", "… which broke on large «uploads»; see pkg/auth/login_parser.go for the details and the tests."},
		{"absent", "We rewrote the login parser so that it streams tokens. The old parser kept the whole form in memory, which broke on large uploads …"},
	} {
		if got := snippet(text, parseQuery(c.q)); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
	// Matches inside one identifier merge into one mark; text is made one line.
	if got := snippet("call\nsafefile.ReadHead\there", parseQuery("ReadHead")); got != "call safefile.«ReadHead» here" {
		t.Errorf("got %q", got)
	}
	if got := snippet("x ReadHead", parseQuery("head")); got != "x Read«Head»" {
		t.Errorf("got %q", got)
	}
}
