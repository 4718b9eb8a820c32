// Command q-cidx runs one query on the cidx engine and prints the hits: the lab's whole-process
// measurement of that engine (and, less q-none, the size it adds to a binary).
//
//	q-cidx -root PROJECT -index DIR -- --kind checkpoint parser
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/eng/cidxeng"
	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

func main() {
	f, err := lab.ParseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "q-cidx:", err)
		os.Exit(2)
	}
	s, err := cidxeng.Open(f.Root, f.Index)
	if err != nil {
		fmt.Fprintln(os.Stderr, "q-cidx:", err)
		os.Exit(1)
	}
	hits, err := s.Search(f.Query)
	s.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "q-cidx:", err)
		os.Exit(1)
	}
	lab.Print(os.Stdout, hits)
}
