// Command q-scan runs one query on the scan engine and prints the hits: the lab's whole-process
// measurement of that engine (and, less q-none, the size it adds to a binary).
//
//	q-scan -root PROJECT -index DIR -- --kind checkpoint parser
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/scaneng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

func main() {
	f, err := lab.ParseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "q-scan:", err)
		os.Exit(2)
	}
	s, err := scaneng.Open(f.Root, f.Index)
	if err != nil {
		fmt.Fprintln(os.Stderr, "q-scan:", err)
		os.Exit(1)
	}
	hits, err := s.Search(f.Query)
	s.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "q-scan:", err)
		os.Exit(1)
	}
	lab.Print(os.Stdout, hits)
}
