//go:build unix

package main

import (
	"context"
	"io"
	"syscall"
)

// runMCP replaces this process with the server: its stdin and stdout are the client's pipes
// already, and one process is what Claude Code expects to stop.
func runMCP(_ context.Context, srv string, env []string, _ io.Reader, _, _ io.Writer) error {
	return syscall.Exec(srv, []string{srv}, env)
}
