//go:build !unix

package main

import (
	"context"
	"errors"
	"io"
	"os/exec"
)

// runMCP runs the server on this process's stdin and stdout and waits for it (Windows has no
// exec that keeps the process).
func runMCP(ctx context.Context, srv string, env []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, srv)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, stdin, stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return refusedError{"cairn-mcp exited with status " + ee.ProcessState.String()}
	}
	return err
}
