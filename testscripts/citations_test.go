package testscripts

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The repository explains itself: a comment states the rule it relies on, or cites a document
// that is in the repository (docs/DESIGN.md and the pages beside it, the README,
// testscripts/e2e/FINDINGS.md). The documents cairn was first specified from — the product spec,
// the hooks reference, the four numbered seed designs — and the issue tracker are not, so a
// comment that cites them by name, section or number sends a reader nowhere.
var citations = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\bSPEC\b`), "the product spec"},
	{regexp.MustCompile(`(?i)\breference\s*§`), "the hooks reference"},
	{regexp.MustCompile(`(?i)\bseeds?\s+0\d\d\b|\bseed's\b|\bseeds'`), "a seed design"},
	{regexp.MustCompile(`(?i)\bissues?\s+#?\d+\b`), "an issue number"},
}

// citationIn returns what the first citation in text cites and where it starts, or "" and -1.
// "--issue N" is the flag of cairn run start, not a citation.
func citationIn(text string) (string, int) {
	for _, c := range citations {
		for _, m := range c.re.FindAllStringIndex(text, -1) {
			if !strings.HasSuffix(text[:m[0]], "--") {
				return c.what, m[0]
			}
		}
	}
	return "", -1
}

// commentLine is one line of a comment, with the line it is on.
type commentLine struct {
	line int
	text string
}

// commentBlocks returns the comments of a file as blocks of consecutive lines, so that a
// citation broken across two lines is still seen. kind is the file's kind: go, sh or txtar.
func commentBlocks(kind string, src []byte) ([][]commentLine, error) {
	switch kind {
	case "go":
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		var blocks [][]commentLine
		for _, g := range f.Comments {
			var b []commentLine
			for _, c := range g.List {
				line := fset.Position(c.Pos()).Line
				text := strings.TrimPrefix(c.Text, "//")
				if strings.HasPrefix(c.Text, "/*") {
					text = strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
				}
				for i, l := range strings.Split(text, "\n") {
					b = append(b, commentLine{line + i, l})
				}
			}
			blocks = append(blocks, b)
		}
		return blocks, nil
	case "txtar":
		// Only the script has comments; the files after it are fixtures.
		return hashComments(txtar.Parse(src).Comment, false), nil
	default:
		return hashComments(src, true), nil
	}
}

// hashComments returns the '#' comments of a script as blocks of consecutive comment lines. With
// trailing, a comment that follows a command on its line counts too (a '#' after a blank, outside
// quotes); the first line's "#!" does not.
func hashComments(src []byte, trailing bool) [][]commentLine {
	var blocks [][]commentLine
	var b []commentLine
	for i, l := range strings.Split(string(src), "\n") {
		text, ok := "", false
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") && !(i == 0 && strings.HasPrefix(t, "#!")) {
			text, ok = t[1:], true
		} else if trailing {
			text, ok = trailingComment(l)
		}
		if !ok {
			if b != nil {
				blocks, b = append(blocks, b), nil
			}
			continue
		}
		b = append(b, commentLine{i + 1, text})
	}
	if b != nil {
		blocks = append(blocks, b)
	}
	return blocks
}

// trailingComment returns the comment at the end of a shell command line, if any.
func trailingComment(l string) (string, bool) {
	var quote byte
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			i++
		case c == '#' && i > 0 && (l[i-1] == ' ' || l[i-1] == '\t'):
			return l[i+1:], true
		}
	}
	return "", false
}

// citationKind is the kind of file whose comments are checked, or "" for one that is not: Go
// source, shell scripts (by their suffix or a "#!" first line) and testscripts.
func citationKind(rel string, src []byte) string {
	switch {
	case strings.HasPrefix(rel, "scripts/searchlab/") || strings.Contains(rel, "/testdata/fuzz/"):
		// searchlab is a module of its own, kept as measured; fuzz corpora are generated.
		return ""
	case strings.HasSuffix(rel, ".go"):
		return "go"
	case strings.HasSuffix(rel, ".txtar"):
		return "txtar"
	case strings.HasSuffix(rel, ".sh") || filepath.Ext(rel) == "" && strings.HasPrefix(string(src), "#!"):
		return "sh"
	}
	return ""
}

// citationsIn returns one "file:line: comment (cites …)" line per comment block of a file that
// cites a document outside the repository.
func citationsIn(rel string, src []byte) ([]string, error) {
	kind := citationKind(rel, src)
	if kind == "" {
		return nil, nil
	}
	blocks, err := commentBlocks(kind, src)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, b := range blocks {
		var joined strings.Builder
		starts := make([]int, len(b))
		for i, l := range b {
			if i > 0 {
				joined.WriteByte(' ')
			}
			starts[i] = joined.Len()
			joined.WriteString(l.text)
		}
		what, at := citationIn(joined.String())
		if at < 0 {
			continue
		}
		i := len(starts) - 1
		for starts[i] > at {
			i--
		}
		out = append(out, rel+":"+strconv.Itoa(b[i].line)+": "+strings.TrimSpace(b[i].text)+" (cites "+what+")")
	}
	return out, nil
}

// TestCommentsCiteTheRepository fails on every comment in a tracked Go file, shell script or
// testscript that cites a document outside the repository.
func TestCommentsCiteTheRepository(t *testing.T) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v): comments are not checked", err)
	}
	checked := 0
	for _, rel := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet in the index
			}
			t.Fatal(err)
		}
		if citationKind(rel, src) == "" {
			continue
		}
		checked++
		found, err := citationsIn(rel, src)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		for _, f := range found {
			t.Errorf("%s: state the rule in the comment's own words, or cite a document in the repository (docs/DESIGN.md, docs/*.md, README.md, testscripts/e2e/FINDINGS.md)", f)
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d files from %s: the directory is wrong", checked, cmd.Dir)
	}
}

// The checker sees what it must and nothing else.
func TestCitationsIn(t *testing.T) {
	for _, tc := range []struct {
		rel, src string
		want     int
	}{
		{"a.go", "package a\n\n// SPEC §3 says so.\nvar x int\n", 1},
		{"a.go", "package a\n\n// As the spec says.\nvar x int\n", 0},
		{"a.go", "package a\n\n// The hooks (reference §2.5) run.\nvar x int\n", 1},
		{"a.go", "package a\n\n// The layout of seed\n// 000, exactly.\nvar x int\n", 1},
		{"a.go", "package a\n\n/* seeds 000 and 003 */\nvar x int\n", 1},
		{"a.go", "package a\n\n// Dropped in issue 12.\nvar x int\n", 1},
		{"a.go", "package a\n\n// cairn run start ID --issue 4\nvar x int\n", 0},
		{"a.go", "package a\n\n// deterministic for a seed.\nvar x = \"SPEC §1, seed 000, issue 7\"\n", 0},
		{"a.go", "package a\n\n// (testscripts/e2e/FINDINGS.md §k; docs/DESIGN.md, Budgets)\nvar x int\n", 0},
		{"a.sh", "#!/bin/sh\n# Seed 001's hook.\necho hi\n", 1},
		{"a.sh", "#!/bin/sh\necho '# issue 3' \"# SPEC\" # and issue 3\n", 1},
		{"a.sh", "#!/bin/sh\necho '# issue 3' \"# SPEC\" x#issue 3\n", 0},
		{"run", "#!/bin/sh\n# SPEC\n", 1},
		{"run", "# SPEC\n", 0},
		{"t.txtar", "# the seed's order\nexec cairn run start r1 --issue 3\n-- f.md --\n# SPEC §2\n", 1},
		{"t.txtar", "exec cairn\n-- f.md --\n# SPEC §2\n", 0},
		{"scripts/searchlab/a.go", "package a\n\n// SPEC §10\n", 0},
		{"pkg/x/testdata/fuzz/FuzzX/1", "#!/bin/sh\n# SPEC\n", 0},
	} {
		got, err := citationsIn(tc.rel, []byte(tc.src))
		if err != nil {
			t.Fatalf("%s %q: %v", tc.rel, tc.src, err)
		}
		if len(got) != tc.want {
			t.Errorf("%s %q: found %q, want %d", tc.rel, tc.src, got, tc.want)
		}
	}
}
