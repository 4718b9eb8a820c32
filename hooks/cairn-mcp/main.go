// Command cairn-mcp is cairn's MCP server over stdio (package mcpserver); `cairn mcp` runs it,
// and Claude Code starts that through .mcp.json or the plugin. Its tools run the cairn binary
// installed beside it.
//
// It is a binary of its own so that the CLI does not link the SDK, which nearly doubles the CLI's
// size and adds to the start of every command (docs/BENCHMARKS.md), and `cairn session resume`
// has a budget of 2× a bare Go binary (docs/DESIGN.md, Budgets).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/cairn-hooks/cairn/pkg/mcpserver"
	"github.com/cairn-hooks/cairn/pkg/version"
)

func main() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run serves MCP on stdin and stdout until the client closes stdin. The exit code: 0, 1 for an
// error (on stderr, which Claude Code logs), 2 for a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		switch a {
		case "--version", "version":
			fmt.Fprintf(stdout, "cairn-mcp %s\n", version.String())
			return 0
		default:
			fmt.Fprintf(stderr, "cairn-mcp: usage: cairn-mcp (or cairn mcp): an MCP server on stdin and stdout, started by Claude Code\n")
			return 2
		}
	}
	cli, err := siblingCLI()
	if err != nil {
		fmt.Fprintf(stderr, "cairn-mcp: error: %v\n", err)
		return 1
	}
	if err := mcpserver.Serve(ctx, cli, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "cairn-mcp: error: %v\n", err)
		return 1
	}
	return 0
}

// siblingCLI is the cairn binary installed beside this one.
func siblingCLI() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real // a link to cairn-mcp, as to cairn: the binaries are beside its target
	}
	name := "cairn"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("no cairn binary beside %s: install both with install.sh or cairn install", self)
	}
	return p, nil
}
