package testscripts

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// One owner per file cairn keeps (docs/DESIGN.md, One world, one handle per file): only the
// package that owns a file builds its name, so a reader finds every read and write of it in one
// place and a handle is the only way in. Each rule names a file, how a string literal names it,
// and the one package allowed to.
var owners = []struct {
	file  string
	names func(lit string) bool
	owner string
}{
	{"the checkpoint catalog", func(s string) bool { return strings.Contains(s, "checkpoint-events.json") }, "pkg/checkpoint/catalog"},
	{"a run's whiteboard", func(s string) bool { return s == "MEMORY.md" || strings.HasSuffix(s, "/MEMORY.md") }, "pkg/runstate"},
	{"a run's state", func(s string) bool { return s == "state.json" || strings.HasSuffix(s, "/state.json") }, "pkg/runstate"},
	{"the session context file", func(s string) bool { return isPath(s, "session-context.md") }, "pkg/sessionfile"},
	{"the session registry", func(s string) bool { return isPath(s, "session.json") || isPath(s, "session.events.jsonl") }, "pkg/registry"},
	{"the timeline", func(s string) bool { return isPath(s, "timeline.jsonl") }, "pkg/timeline"},
	{"the log of pruned checkpoints", func(s string) bool { return strings.HasSuffix(s, "pruned.jsonl") }, "pkg/checkpoint/catalog"},
	{"cairn forget's tombstones", func(s string) bool { return strings.HasSuffix(s, "forgotten.jsonl") }, "pkg/tombstone"},
}

// isPath reports whether the literal s is a path to the file named name: the name itself or a path
// ending in it — not a sentence that mentions it, which a message may.
func isPath(s, name string) bool { return s == name || strings.HasSuffix(s, "/"+name) }

// exempt are packages that name these files for another reason: Claude Code's own auto-memory
// index is also called MEMORY.md (pkg/memindex), and the benchmarks and the search test corpus
// build projects from scratch.
var exempt = map[string]bool{
	"pkg/memindex": true, "scripts/bench": true, "scripts/contextbench": true, "scripts/searchbench": true,
	"pkg/search/searchtest": true, "scripts/recallbench/internal/recall": true,
}

func TestOneOwnerPerFile(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, "../"))
		if d.IsDir() {
			if rel == "testscripts" || rel == "scripts/searchlab" || strings.HasPrefix(d.Name(), ".") && rel != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || exempt[filepath.ToSlash(filepath.Dir(rel))] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, o := range owners {
				if o.names(s) && pkg != o.owner {
					t.Errorf("%s names %s (%q); only %s may: ask its handle", fset.Position(lit.Pos()), o.file, s, o.owner)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
