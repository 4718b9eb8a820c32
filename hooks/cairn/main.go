// Command cairn is the command line for everything manual in cairn: the run whiteboard
// (cairn run …), parked items and the session registry (cairn session …), checkpoints
// (cairn context …) and the installation (cairn install, uninstall, doctor). Claude Code's
// skills call it through the Bash tool; people call it from a terminal.
//
// Exit codes: 0 on success, 1 on error or a refused outcome (the list is then on stdout),
// 2 on a usage error.
package main

import (
	"context"
	"os"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
)

func main() {
	cwd, _ := os.Getwd()
	os.Exit(Main(context.Background(), &CLI{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Env: project.EnvFrom(os.Environ()), Now: time.Now, Cwd: cwd,
	}, os.Args[1:]))
}
