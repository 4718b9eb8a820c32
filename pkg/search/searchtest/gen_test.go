package searchtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
)

// The history has what was asked, in cairn's shapes, and the same options give the same files.
func TestGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("reads $GOROOT/src for its words")
	}
	o := Options{Checkpoints: 40, Audit: 30, Timeline: 60, Seed: 3}
	var trees [2]string
	for i := range trees {
		trees[i] = filepath.Join(t.TempDir(), "proj")
		if err := Generate(trees[i], o); err != nil {
			t.Fatal(err)
		}
	}
	names, err := checkpoint.Names(trees[0])
	if err != nil || len(names) != 40 {
		t.Fatalf("%d checkpoints, %v", len(names), err)
	}
	kinds := map[string]int{}
	for _, n := range names {
		data, _ := os.ReadFile(filepath.Join(checkpoint.Dir(trees[0]), n))
		other, _ := os.ReadFile(filepath.Join(checkpoint.Dir(trees[1]), n))
		if !bytes.Equal(data, other) {
			t.Fatalf("%s differs between two runs", n)
		}
		fm, body := checkpoint.SplitLoose(data)
		heading, sec := checkpoint.ParseBody(body)
		if heading == "" || sec.Summary == "" || fm["branch"] == nil {
			t.Fatalf("%s: not a checkpoint's shape", n)
		}
		switch {
		case fm["kind"] == "handoff":
			kinds["handoff"]++
		case fm["status"] == checkpoint.StatusAuto:
			kinds["auto"]++
		default:
			kinds["saved"]++
		}
	}
	if kinds["auto"] == 0 || kinds["saved"] == 0 {
		t.Errorf("kinds: %v", kinds)
	}
	for rel, want := range map[string]int{".notes/logs/session-archive.jsonl": 30, "memory/timeline.jsonl": 60} {
		data, err := os.ReadFile(filepath.Join(trees[0], rel))
		if err != nil || bytes.Count(data, []byte("\n")) != want {
			t.Errorf("%s: %d lines, %v", rel, bytes.Count(data, []byte("\n")), err)
		}
	}
	if n, err := Size(trees[0]); err != nil || n < 40*500 {
		t.Errorf("size %d, %v", n, err)
	}
}
