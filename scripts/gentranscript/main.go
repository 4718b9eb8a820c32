// Command gentranscript writes a synthetic Claude Code transcript (JSONL) for benchmarks and
// manual tests of cairn's hooks: realistic line shapes, a target size, an optional giant
// single line and compaction boundaries, deterministic for a seed.
//
//	gentranscript -size 200MB -long-line 60MB -boundaries 3 -seed 1 -o /tmp/t.jsonl
//
// It prints what the transcript holds (size, lines, last boundary offset) on stderr.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gentranscript", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		size     = fs.String("size", "1MB", "approximate `size` of the transcript (K, M, G units are binary)")
		longLine = fs.String("long-line", "0", "`size` of one giant tool_result line in the last turn (0: none)")
		bounds   = fs.Int("boundaries", 0, "number of compaction boundaries, spread evenly")
		seed     = fs.Uint64("seed", 1, "random seed; the same flags give the same bytes")
		root     = fs.String("root", "", "project root of the edited files (default /home/dev/project)")
		partial  = fs.Bool("partial-tail", false, "end with a line cut short, without its newline")
		out      = fs.String("o", "-", "output `file`; - for stdout")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gentranscript: error: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	o := transcripttest.Options{Boundaries: *bounds, Seed: *seed, Root: *root, PartialTail: *partial}
	var err error
	if o.Size, err = transcripttest.ParseSize(*size); err != nil {
		fmt.Fprintf(stderr, "gentranscript: error: -size: %v\n", err)
		return 2
	}
	if o.LongLine, err = transcripttest.ParseSize(*longLine); err != nil {
		fmt.Fprintf(stderr, "gentranscript: error: -long-line: %v\n", err)
		return 2
	}
	var truth transcripttest.Truth
	if *out == "-" {
		bw := bufio.NewWriter(stdout)
		truth, err = transcripttest.Generate(bw, o)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
	} else {
		truth, err = transcripttest.WriteFile(*out, o)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gentranscript: error: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "gentranscript: %d bytes, %d lines, last boundary at %d (%v)\n",
		truth.Size, truth.Lines, truth.LastBoundary, truth.HasBoundary)
	return 0
}
