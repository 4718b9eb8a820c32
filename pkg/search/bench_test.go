package search

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/search/searchtest"
)

// The benchmarks run on generated histories (package searchtest): N checkpoints plus 20,000
// audit lines and 100,000 timeline lines, written once under the temp dir and reused
// (cairn-searchbench-<uid>/p<N>-a20000-t100000, as scripts/searchbench), never committed.
//
//	go test -run '^$' -bench . ./pkg/search/                              # 200 and 2,000
//	go test -run '^$' -bench . ./pkg/search/ -search.sizes=200,2000,20000  # and 20,000
var benchSizes = flag.String("search.sizes", "200,2000", "checkpoint counts of the generated histories")

func benchProject(b *testing.B, n int) string {
	b.Helper()
	// The layout scripts/searchbench uses, so that both share the histories.
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("cairn-searchbench-%d", os.Getuid()), fmt.Sprintf("p%d-a20000-t100000", n))
	root := filepath.Join(dir, "proj")
	done := filepath.Join(dir, ".generated")
	if _, err := os.Stat(done); err == nil {
		return root
	}
	os.RemoveAll(dir)
	if err := searchtest.Generate(root, searchtest.Options{Checkpoints: n, Audit: 20000, Timeline: 100000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(done, nil, 0o644)
	return root
}

func sizes(b *testing.B) []int {
	var out []int
	for _, s := range strings.Split(*benchSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			b.Fatalf("-search.sizes: %v", err)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkBuild is the cold build: every file read, tokenized and written as one segment.
func BenchmarkBuild(b *testing.B) {
	for _, n := range sizes(b) {
		root := benchProject(b, n)
		b.Run(fmt.Sprintf("checkpoints=%d", n), func(b *testing.B) {
			for b.Loop() {
				ix := Open(Config{Root: root, CacheDir: b.TempDir()})
				if st, err := ix.Sync(context.Background()); err != nil || !st.Rebuilt {
					b.Fatal(st, err)
				}
				ix.Close()
			}
		})
	}
}

// BenchmarkSearch is a search in a long-running process (the MCP server's case): the index
// opened once, each call its freshness check (a few stat calls) and the query, snippets
// included.
func BenchmarkSearch(b *testing.B) {
	for _, n := range sizes(b) {
		root := benchProject(b, n)
		ix := Open(Config{Root: root, CacheDir: b.TempDir()})
		if _, err := ix.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		for _, args := range searchtest.Queries {
			q, o := benchQuery(b, args)
			b.Run(fmt.Sprintf("checkpoints=%d/%s", n, strings.Join(args, "_")), func(b *testing.B) {
				for b.Loop() {
					if _, err := ix.Search(context.Background(), q, o); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		ix.Close()
	}
}

// benchQuery reads a query's arguments as cairn search does (the few flags the queries use).
func benchQuery(b *testing.B, args []string) (string, Options) {
	var o Options
	var words []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--kind":
			i++
			o.Kinds, _ = ParseKinds(args[i])
		case "--branch":
			i++
			o.Branch = args[i]
		case "--since":
			i++
			d, _ := strconv.Atoi(strings.TrimSuffix(args[i], "d"))
			o.Since = time.Now().AddDate(0, 0, -d)
		default:
			words = append(words, args[i])
		}
	}
	return strings.Join(words, " "), o
}
