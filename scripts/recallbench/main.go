// Command recallbench is cairn's memory-quality benchmark: it generates seeded Claude Code
// sessions with labelled facts, replays them through the built hooks as Claude Code would, and
// reports how many facts reach the model after a compaction, after /clear and at the next
// session's startup, with cairn and without (docs/BENCHMARKS.md, Recall). Run it from the module
// root:
//
//	go run ./scripts/recallbench                        # 36 sessions up to 2 MiB
//	go run ./scripts/recallbench -max-size 50MB -json /tmp/recall.json
//	go run ./scripts/recallbench -phrasing dev        # the held-out wordings' dev half
//
// The markdown report goes to stdout, progress to stderr. It measures whatever the hooks print,
// so the same command shows a change to the hand-back. This package only parses flags and
// builds the binaries; the benchmark is package recall, which the floor test runs too.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
	"github.com/cairn-hooks/cairn/scripts/recallbench/internal/recall"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recallbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sessions := fs.Int("sessions", 36, "number of sessions in the corpus")
	maxSize := fs.String("max-size", "2MB", "`size` of the largest transcript (K, M, G units are binary); the smallest is 8 KiB")
	seed := fs.Uint64("seed", 1, "random seed: the same flags give the same corpus")
	phrasing := fs.String("phrasing", recall.PhrasingDefault, "the `wordings` the sessions state their facts in: default, heldout (both halves of the held-out templates), dev or test (one half)")
	jsonOut := fs.String("json", "", "also write the report as JSON to `file`")
	seenOut := fs.String("seen", "", "also write what each moment showed (contexts, summaries, facts) as JSON lines to `file`")
	keep := fs.Bool("keep", false, "keep the fake machine (projects, transcripts) and print where it is")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	size, err := transcripttest.ParseSize(*maxSize)
	if err != nil {
		fmt.Fprintf(stderr, "recallbench: error: -max-size: %v\n", err)
		return 2
	}
	work, err := os.MkdirTemp("", "recallbench-")
	if err != nil {
		fmt.Fprintf(stderr, "recallbench: error: %v\n", err)
		return 1
	}
	if *keep {
		fmt.Fprintf(stderr, "recallbench: the fake machine is in %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	bin := filepath.Join(work, "bin") + string(filepath.Separator)
	build := exec.Command("go", "build", "-o", bin, "./hooks/...")
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(stderr, "recallbench: error: go build (run from the module root): %v\n", err)
		return 1
	}
	if _, err := recall.Corpus(*seed, 1, int(size), *phrasing); err != nil {
		fmt.Fprintf(stderr, "recallbench: error: -phrasing: %v\n", err)
		return 2
	}
	rep, played, err := recall.Run(context.Background(), recall.Options{Seed: *seed, Phrasing: *phrasing, Sessions: *sessions, MaxSize: int(size),
		Bin: bin, Work: filepath.Join(work, "machine"), Progress: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "recallbench: error: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, rep.Markdown())
	if *jsonOut != "" {
		data, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintf(stderr, "recallbench: error: %v\n", err)
			return 1
		}
	}
	if *seenOut != "" {
		var b []byte
		for _, p := range played {
			line, _ := json.Marshal(struct {
				Session *recall.Session `json:"session"`
				recall.Played
			}{p.Session, p})
			b = append(append(b, line...), '\n')
		}
		if err := os.WriteFile(*seenOut, b, 0o644); err != nil {
			fmt.Fprintf(stderr, "recallbench: error: %v\n", err)
			return 1
		}
	}
	return 0
}
