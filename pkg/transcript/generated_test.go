package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

func generate(t testing.TB, o transcripttest.Options) (string, transcripttest.Truth) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "generated.jsonl")
	truth, err := transcripttest.WriteFile(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return path, truth
}

// checkTruth asks every question of a generated transcript and compares with what it holds.
func checkTruth(t *testing.T, lim limits, path string, truth transcripttest.Truth, root string) {
	t.Helper()
	if got, err := lim.lastAssistantText(path); err != nil || got != truth.LastAssistantText {
		t.Errorf("LastAssistantText = %q, %v; want %q", got, err, truth.LastAssistantText)
	}
	wantPrompts := truth.Prompts[:min(3, len(truth.Prompts))]
	if got, err := lim.lastUserPrompts(path, 3); err != nil || !slices.Equal(got, wantPrompts) {
		t.Errorf("LastUserPrompts = %q, %v; want %q", got, err, wantPrompts)
	}
	off, found, err := Open(path).LastBoundary()
	if err != nil || found != truth.HasBoundary || off != truth.LastBoundary {
		t.Errorf("LastBoundary = %d, %v, %v; want %d, %v", off, found, err, truth.LastBoundary, truth.HasBoundary)
	}
	if truth.HasBoundary {
		if c, err := Open(path).CompactionsAfter(truth.LastBoundary); err != nil || c == 0 {
			t.Errorf("CompactionsAfter(boundary) = %v, %v", c, err)
		}
		if c, err := Open(path).CompactionsAfter(truth.LastBoundary + 1); err != nil || c != 0 {
			t.Errorf("CompactionsAfter(boundary+1) = %v, %v", c, err)
		}
	}
	var want []string
	for _, p := range truth.Edited {
		want = append(want, relTo(root, p))
	}
	if got, err := lim.editedFilesSinceBoundary(path, root); err != nil || !slices.Equal(got, want) {
		t.Errorf("EditedFilesSinceBoundary:\n got %q, %v\nwant %q", got, err, want)
	}
	var todos []Todo
	for _, td := range truth.Todos {
		todos = append(todos, Todo{ID: td.ID, Subject: td.Subject, Status: td.Status})
	}
	if got, found, err := lim.lastTodos(path); err != nil || found != truth.HasTodos || !slices.Equal(got, todos) {
		t.Errorf("LastTodos = %+v, %v, %v; want %+v", got, found, err, truth.Todos)
	}
	if runs, err := lim.hookRuns(path, 1<<40); err != nil || len(runs) != truth.HookRuns {
		t.Errorf("HookRuns: %d runs, %v; want %d", len(runs), err, truth.HookRuns)
	}
}

func TestGeneratedTranscripts(t *testing.T) {
	const root = "/home/dev/project"
	for _, c := range []struct {
		name string
		o    transcripttest.Options
		lim  limits
	}{
		{"small", transcripttest.Options{Size: 200 << 10, Seed: 1}, defaultLimits},
		{"boundaries", transcripttest.Options{Size: 2 << 20, Boundaries: 3, Seed: 2}, defaultLimits},
		{"boundaries, small windows", transcripttest.Options{Size: 2 << 20, Boundaries: 5, Seed: 3}, limits{minWindow: 512, lineCap: 256 << 10}},
		{"long line", transcripttest.Options{Size: 5 << 20, LongLine: 3 << 20, Boundaries: 1, Seed: 4}, defaultLimits},
		{"partial tail", transcripttest.Options{Size: 5 << 20, LongLine: 3 << 20, Seed: 5, PartialTail: true}, defaultLimits},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, truth := generate(t, c.o)
			checkTruth(t, c.lim, path, truth, root)
		})
	}
}

func TestGeneratorDeterministic(t *testing.T) {
	o := transcripttest.Options{Size: 300 << 10, LongLine: 100 << 10, Boundaries: 2, Seed: 7}
	var a, b bytes.Buffer
	if _, err := transcripttest.Generate(&a, o); err != nil {
		t.Fatal(err)
	}
	if _, err := transcripttest.Generate(&b, o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same options, different bytes")
	}
	o.Seed++
	var c bytes.Buffer
	if _, err := transcripttest.Generate(&c, o); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds, same bytes")
	}
}

// Memory stays bounded whatever the file holds: a transcript with a 60 MB single line, asked
// every question. TotalAlloc counts every byte allocated during the call, so it bounds the
// heap the call can have added at its peak.
func TestMemoryBoundWithGiantLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 70 MB file")
	}
	path, truth := generate(t, transcripttest.Options{Size: 70 << 20, LongLine: 60 << 20, Boundaries: 2, Seed: 9})
	if fi, err := os.Stat(path); err != nil || fi.Size() < 70<<20 {
		t.Fatalf("generated file: %v, %v", fi, err)
	}
	const limit = 4 << 20 // a quarter of the 16 MiB a whole hook may use (docs/DESIGN.md, Budgets)
	measure := func(name string, f func()) {
		t.Helper()
		if alloc := allocated(t, name, f); alloc > limit {
			t.Errorf("%s allocated %d bytes, more than %d", name, alloc, limit)
		}
	}
	measure("LastAssistantText", func() {
		if s, err := LastAssistantText(path); err != nil || s != truth.LastAssistantText {
			t.Errorf("LastAssistantText = %q, %v", s, err)
		}
	})
	measure("LastUserPrompts", func() {
		if p, err := LastUserPrompts(path, 5); err != nil || !slices.Equal(p, truth.Prompts[:5]) {
			t.Errorf("LastUserPrompts = %q, %v", p, err)
		}
	})
	measure("LastBoundary", func() {
		if off, found, err := Open(path).LastBoundary(); err != nil || !found || off != truth.LastBoundary {
			t.Errorf("LastBoundary = %d, %v, %v", off, found, err)
		}
	})
	measure("EditedFilesSinceBoundary", func() {
		if f, err := EditedFilesSinceBoundary(path, "/home/dev/project"); err != nil || len(f) != len(truth.Edited) {
			t.Errorf("EditedFilesSinceBoundary = %d files, %v; want %d", len(f), err, len(truth.Edited))
		}
	})
	measure("LastTodos", func() {
		if _, _, err := LastTodos(path); err != nil {
			t.Error(err)
		}
	})
	measure("HookRuns", func() {
		if _, err := HookRuns(path, 1<<40); err != nil {
			t.Error(err)
		}
	})
}

// allocated returns the bytes allocated while f ran. TotalAlloc counts every allocation, freed
// or not, so it bounds what f can have added to the heap at its peak.
func allocated(t *testing.T, name string, f func()) uint64 {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%-24s allocated %6d KiB, heap in use %+6d KiB", name, alloc>>10, (int64(after.HeapInuse)-int64(before.HeapInuse))>>10)
	return alloc
}

// A giant assistant line (a 20 MB text, a Write of a 20 MB file) is read through its first
// MiB: the text comes back truncated, the written file is still seen, memory stays bounded.
func TestMemoryBoundWithGiantAssistantLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB file")
	}
	huge := strings.Repeat("All work and no play makes Jack a dull boy. ", 20<<20/44)
	path := writeLines(t,
		prompt("write it"),
		asst("m1", "", toolUseBlock("Write", `{"file_path":"/r/big.txt","content":`+jsonString(huge)+`}`)),
		toolResult("File created successfully"),
		asst("m2", "", textBlock(huge+" The end?")),
	)
	const limit = 6 << 20
	var text string
	if alloc := allocated(t, "LastAssistantText", func() { text, _ = LastAssistantText(path) }); alloc > limit {
		t.Errorf("LastAssistantText allocated %d bytes, more than %d", alloc, limit)
	}
	if !strings.HasPrefix(text, "All work") || len(text) > defaultLimits.lineCap || strings.HasSuffix(text, "The end?") {
		t.Errorf("LastAssistantText: %d bytes starting %.20q, want a prefix under 1 MiB", len(text), text)
	}
	var files []string
	if alloc := allocated(t, "EditedFilesSinceBoundary", func() { files, _ = EditedFilesSinceBoundary(path, "/r") }); alloc > limit {
		t.Errorf("EditedFilesSinceBoundary allocated %d bytes, more than %d", alloc, limit)
	}
	if !slices.Equal(files, []string{"big.txt"}) {
		t.Errorf("EditedFilesSinceBoundary = %q", files)
	}
}
