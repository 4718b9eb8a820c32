package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// CLI is the world a cairn command runs in.
type CLI struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Env            project.Env
	Now            func() time.Time
	Cwd            string

	root string
}

// Root is the project root: $CLAUDE_PROJECT_DIR, else the git top level of the working
// directory, else the working directory.
func (c *CLI) Root() (string, error) {
	if c.root == "" {
		r, err := project.Root(c.Env, c.Cwd)
		if err != nil {
			return "", err
		}
		c.root = r
	}
	return c.root, nil
}

// Project is the project root and its confined writer, for the commands that write.
func (c *CLI) Project() (string, safefile.Writer, error) {
	root, err := c.Root()
	if err != nil {
		return "", nil, err
	}
	return root, safefile.Disk{Roots: []string{root}}, nil
}

// Files is the confined writer for the project.
func (c *CLI) Files() (safefile.Writer, error) {
	_, files, err := c.Project()
	return files, err
}

// command is one leaf of the command tree.
type command struct {
	usage   string // after "cairn <group> <name>"
	summary string
	run     func(ctx context.Context, c *CLI, args []string) error
}

// groups is the command tree: cairn <group> <name> args…; other files register their groups
// in init functions.
var groups = map[string]map[string]command{}

// topLevel commands take no group: cairn install, cairn doctor.
var topLevel = map[string]command{}

// register adds a command to a group from an init function; several files may add to one group.
func register(group, name string, cmd command) {
	if groups[group] == nil {
		groups[group] = map[string]command{}
	}
	if _, dup := groups[group][name]; dup {
		panic("cairn: command registered twice: " + group + " " + name)
	}
	groups[group][name] = cmd
}

// usageOf is the usage error of a registered command ("" group for a top-level one), built from
// its registration so that --help and the error never drift apart.
func usageOf(group, name string) error {
	cmd := topLevel[name]
	if group != "" {
		cmd = groups[group][name]
		name = group + " " + name
	}
	return usagef("%s", strings.TrimSpace("cairn "+name+" "+cmd.usage))
}

// usageError exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// refusedError exits 1 after its explanation has been printed on stdout.
type refusedError struct{ msg string }

func (e refusedError) Error() string { return e.msg }

// Main runs one cairn command and maps its outcome to the exit code, in one place.
func Main(ctx context.Context, c *CLI, args []string) int {
	err := dispatch(ctx, c, args)
	var ue usageError
	var re refusedError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(c.Stderr, "cairn: usage: %s\ncairn: hint: run cairn --help\n", ue.msg)
		return 2
	case errors.As(err, &re):
		fmt.Fprintf(c.Stderr, "cairn: refused: %s\n", re.msg)
		return 1
	default:
		fmt.Fprintf(c.Stderr, "cairn: error: %s\n", err)
		return 1
	}
}

func dispatch(ctx context.Context, c *CLI, args []string) error {
	if len(args) == 0 {
		help(c.Stderr)
		return usagef("cairn <group> <command> [arguments]")
	}
	switch args[0] {
	case "--help", "-h", "help":
		help(c.Stdout)
		return nil
	case "--version", "version":
		fmt.Fprintf(c.Stdout, "cairn %s\n", version.String())
		return nil
	}
	if cmd, ok := topLevel[args[0]]; ok {
		return cmd.run(ctx, c, args[1:])
	}
	g, ok := groups[args[0]]
	if !ok {
		return usagef("unknown command %q", args[0])
	}
	if len(args) < 2 || args[1] == "--help" || args[1] == "-h" {
		groupHelp(c.Stdout, args[0], g)
		if len(args) < 2 {
			return usagef("cairn %s <command>", args[0])
		}
		return nil
	}
	cmd, ok := g[args[1]]
	if !ok {
		return usagef("unknown command \"%s %s\"", args[0], args[1])
	}
	return cmd.run(ctx, c, args[2:])
}

func help(w io.Writer) {
	fmt.Fprintf(w, "cairn %s — session continuity for Claude Code\n\nusage:\n", version.String())
	var names []string
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, l := range groupLines(n, groups[n]) {
			fmt.Fprintln(w, l)
		}
	}
	var tops []string
	for n := range topLevel {
		tops = append(tops, n)
	}
	sort.Strings(tops)
	for _, n := range tops {
		fmt.Fprintf(w, "  cairn %s %s\n      %s\n", n, topLevel[n].usage, topLevel[n].summary)
	}
	fmt.Fprintln(w, "\nExit codes: 0 success, 1 error or refused (the list is on stdout), 2 usage.")
}

func groupHelp(w io.Writer, name string, g map[string]command) {
	for _, l := range groupLines(name, g) {
		fmt.Fprintln(w, l)
	}
}

func groupLines(name string, g map[string]command) []string {
	var subs []string
	for s := range g {
		subs = append(subs, s)
	}
	sort.Strings(subs)
	var out []string
	for _, s := range subs {
		out = append(out, strings.TrimRight(fmt.Sprintf("  cairn %s %s %s", name, s, g[s].usage), " "), "      "+g[s].summary)
	}
	return out
}

// parseInterleaved parses flags that may come before, between or after positional arguments
// ("cairn run start ID --issue 4"), returning the positionals in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
