package transcript

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// Benchmarks run on generated transcripts of 1 MB, 50 MB and 200 MB with three compactions,
// and on 200 MB whose last turn holds a 60 MB tool result. Each benchmark generates its files
// once, into its own temporary directory. With -short only the 1 MB file is used.
//
//	go test -run '^$' -bench . -benchmem -p 1 ./pkg/transcript/
//
// "Last" questions should cost the same at every size; the 60 MB line costs a scan for '\n'
// over it when the answer lies before it. EditedFilesSinceBoundary reads the bytes after the
// last boundary (a quarter of the file here): its MB/s is the scan rate.

type benchFile struct {
	name  string
	path  string
	truth transcripttest.Truth
}

func benchFiles(b *testing.B) []benchFile {
	b.Helper()
	sizes := []struct {
		name       string
		size, long int64
	}{
		{"1MB", 1 << 20, 0},
		{"50MB", 50 << 20, 0},
		{"200MB", 200 << 20, 0},
		{"200MB+60MBline", 200 << 20, 60 << 20},
	}
	var files []benchFile
	for _, s := range sizes {
		if testing.Short() && s.size > 1<<20 {
			continue
		}
		path := fmt.Sprintf("%s/%s.jsonl", b.TempDir(), s.name)
		truth, err := transcripttest.WriteFile(path, transcripttest.Options{Size: s.size, LongLine: s.long, Boundaries: 3, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, benchFile{s.name, path, truth})
	}
	return files
}

func BenchmarkLastAssistantText(b *testing.B) {
	for _, f := range benchFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if s, err := LastAssistantText(f.path); err != nil || s != f.truth.LastAssistantText {
					b.Fatalf("%q, %v", s, err)
				}
			}
		})
	}
}

func BenchmarkLastUserPrompts(b *testing.B) {
	for _, f := range benchFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, err := LastUserPrompts(f.path, 3); err != nil || len(p) != 3 {
					b.Fatalf("%q, %v", p, err)
				}
			}
		})
	}
}

func BenchmarkLastBoundary(b *testing.B) {
	for _, f := range benchFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if off, _, err := Open(f.path).LastBoundary(); err != nil || off != f.truth.LastBoundary {
					b.Fatalf("%d, %v", off, err)
				}
			}
		})
	}
}

// BenchmarkLastBoundaryNone is the worst case of the boundary search: a transcript that was
// never compacted is read whole. Its MB/s is the backward scan rate.
func BenchmarkLastBoundaryNone(b *testing.B) {
	size := int64(200 << 20)
	if testing.Short() {
		size = 1 << 20
	}
	path := b.TempDir() + "/none.jsonl"
	truth, err := transcripttest.WriteFile(path, transcripttest.Options{Size: size, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(truth.Size)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, found, err := Open(path).LastBoundary(); err != nil || found {
			b.Fatalf("%v, %v", found, err)
		}
	}
}

func BenchmarkEditedFilesSinceBoundary(b *testing.B) {
	for _, f := range benchFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(f.truth.Size - f.truth.LastBoundary)
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if files, err := EditedFilesSinceBoundary(f.path, "/home/dev/project"); err != nil || len(files) != len(f.truth.Edited) {
					b.Fatalf("%d files, %v", len(files), err)
				}
			}
		})
	}
}

func BenchmarkLastTodos(b *testing.B) {
	for _, f := range benchFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, found, err := LastTodos(f.path); err != nil || !found {
					b.Fatalf("%v, %v", found, err)
				}
			}
		})
	}
}

func BenchmarkHookRuns1MiB(b *testing.B) {
	for _, f := range benchFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := HookRuns(f.path, 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEditedFilesNoTaskTools is BenchmarkEditedFilesSinceBoundary/200MB on the same
// transcript without its TodoWrite and TaskCreate lines, as a session that never used a task tool
// writes it. PreCompact's scan does not ask about task tools (ForCompaction reads the task list
// from Claude Code's task files or the last TodoWrite), so it looks for edits and the boundary
// only; before, it also tested every line for the three task-tool tokens until one turned up,
// which in such a session is never.
func BenchmarkEditedFilesNoTaskTools(b *testing.B) {
	size := int64(200 << 20)
	if testing.Short() {
		size = 1 << 20
	}
	dir := b.TempDir()
	path := dir + "/full.jsonl"
	if _, err := transcripttest.WriteFile(path, transcripttest.Options{Size: size, Boundaries: 3, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var kept []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.Contains(l, []byte(`TodoWrite"`)) && !bytes.Contains(l, []byte(`TaskCreate"`)) && !bytes.Contains(l, []byte(`TaskUpdate"`)) {
			kept = append(kept, l...)
		}
	}
	path = dir + "/no-tasks.jsonl"
	if err := os.WriteFile(path, kept, 0o644); err != nil {
		b.Fatal(err)
	}
	boundary, found, err := Open(path).LastBoundary()
	if err != nil || !found {
		b.Fatal(found, err)
	}
	b.SetBytes(int64(len(kept)) - boundary)
	b.ReportAllocs()
	for b.Loop() {
		if files, err := EditedFilesSinceBoundary(path, "/home/dev/project"); err != nil || len(files) == 0 {
			b.Fatalf("%d files, %v", len(files), err)
		}
	}
}

// BenchmarkForCompaction is PreCompact's one pass: the files edited and the commands run since
// the last boundary, the last prompts. Against BenchmarkEditedFilesSinceBoundary it shows what
// the commands cost.
func BenchmarkForCompaction(b *testing.B) {
	for _, f := range benchFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(f.truth.Size - f.truth.LastBoundary)
			b.ReportAllocs()
			for b.Loop() {
				if c, err := Open(f.path).ForCompaction("/home/dev/project", 5, false, 0); err != nil || len(c.Edited) != len(f.truth.Edited) {
					b.Fatalf("%d files, %v", len(c.Edited), err)
				}
			}
		})
	}
}

// BenchmarkForCompactionTail is the first PreCompact of a compaction as it runs when the
// session's claims name the files edited further back (pkg/compaction's editScan): the same pass
// bounded to the last 4 MiB, which here are tool results for four fifths of their bytes. Its MB/s
// is the tail scan's rate.
func BenchmarkForCompactionTail(b *testing.B) {
	const tail = 4 << 20
	for _, f := range benchFiles(b) {
		if f.truth.Size-f.truth.LastBoundary <= tail {
			continue // the whole stretch is read: BenchmarkForCompaction
		}
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(tail)
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if c, err := Open(f.path).ForCompaction("/home/dev/project", 3, false, tail); err != nil || !c.EditsCut {
					b.Fatalf("%v, %v", c.EditsCut, err)
				}
			}
		})
	}
}

// reportCPU reports the process's CPU time (user + system) per iteration beside the wall time: on a
// shared machine waiting for a core inflates ns/op, not this. Call the function it returns when
// the loop ends.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}
