package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-hooks/cairn/pkg/setup"
)

// cairn mcp starts cairn's MCP server, the cairn-mcp binary installed beside this one (see
// hooks/cairn-mcp: the CLI does not link the MCP SDK, which would double its start-up time).

func init() {
	topLevel["mcp"] = command{"", "serve cairn's tools (search, show, list_checkpoints, save_checkpoint, park, list_parked, archive, list_sessions, claims, forget, broadcast) to Claude Code over stdio, with the Model Context Protocol; Claude Code starts it through .mcp.json or the plugin",
		func(ctx context.Context, c *CLI, args []string) error {
			return usagef("cairn mcp runs on its own, not inside another command") // Main starts it
		}}
}

// cmdMCP replaces this process with cairn-mcp (on Windows, runs it on stdin and stdout and
// waits), passing args on. It is called by Main before the CLI's output buffering.
func cmdMCP(ctx context.Context, c *CLI, stdin io.Reader, stdout io.Writer, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintf(stdout, "usage: cairn mcp\n\n%s\n", topLevel["mcp"].summary)
		return nil
	}
	if len(args) > 0 {
		return usageOf("", "mcp")
	}
	me, err := self()
	if err != nil {
		return err
	}
	srv := filepath.Join(filepath.Dir(me), setup.ExeFile(setup.MCPBinary))
	if fi, err := os.Stat(srv); err != nil || !fi.Mode().IsRegular() {
		return withHint(fmt.Errorf("no %s beside %s", setup.ExeFile(setup.MCPBinary), me), "install cairn again (./install.sh, or go install …/hooks/...@latest): cairn-mcp ships with it")
	}
	return runMCP(ctx, srv, c.Env.List(), stdin, stdout, c.Stderr)
}
