// Command q-none parses a query's command line as the per-engine query binaries do and prints
// it, nothing more: the reference their sizes and run times are measured against.
//
//	q-none -root DIR -index DIR -- --kind checkpoint parser
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cairn-hooks/cairn/scripts/searchlab/internal/lab"
)

func main() {
	f, err := lab.ParseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "q-none:", err)
		os.Exit(2)
	}
	lab.Print(os.Stdout, nil)
	fmt.Fprintf(os.Stdout, "%s %s %q\n", f.Root, f.Index, f.Query.Raw)
}
