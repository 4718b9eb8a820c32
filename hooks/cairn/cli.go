package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// CLI is what a cairn process is given: its standard streams, environment, clock and working
// directory. A command that works on a project asks for the Project, which the CLI builds once
// from these, as hookio.Main does for a hook.
type CLI struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Env            project.Env
	Now            func() time.Time
	Cwd            string

	world *project.Project
}

// Project is the world of the command, built on first use: the project root
// ($CLAUDE_PROJECT_DIR, else the git top level of the working directory, else the working
// directory, with a warning), Claude Code's config directory ("" when unknown: legacy items are then not looked
// for), the confined writer, the clock and the CLI's voice for warnings.
func (c *CLI) Project() (*project.Project, error) {
	if c.world == nil {
		root, err := project.Root(c.Env, c.Cwd)
		if err != nil {
			return nil, err
		}
		if c.Env.Get("CLAUDE_PROJECT_DIR") == "" {
			if _, ok := project.GitTop(root); !ok {
				// Outside git the working directory is the only guess left, and a run, a parked
				// item or a checkpoint then lands wherever the command ran: say so.
				c.Warn("%s is not in a git repository: cairn takes it as the project; run cairn in the project's repository, or set CLAUDE_PROJECT_DIR", root)
			}
		}
		config, _ := project.ConfigDir(c.Env)
		c.world = &project.Project{Root: root, Config: config, Env: c.Env, Now: c.Now, Warn: c.Warn}
		// A linked worktree's shared knowledge lives under the main checkout: a second root.
		c.world.Files = safefile.Disk{Roots: c.world.Roots(), Repaired: func(what string) { c.Warn("repaired: %s", what) }}
	}
	return c.world, nil
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

// argsUsage is the usage error of a command given the wrong number of positional arguments:
// it names the ones missing (each as the usage line spells it, "<detail>"), or the first one too
// many, before the usage line.
func argsUsage(group, name string, pos []string, want ...string) error {
	usage := usageOf(group, name)
	switch {
	case len(pos) < len(want):
		missing := want[len(pos):]
		msg := "missing " + missing[0]
		if len(missing) > 1 {
			msg = "missing " + strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1]
		}
		return usagef("%s; %v", msg, usage)
	case len(pos) > len(want):
		return usagef("unexpected argument %q (quote text that holds spaces as one argument); %v", pos[len(want)], usage)
	}
	return nil
}

// usageError exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// refusedError exits 1 after its explanation has been printed on stdout.
type refusedError struct{ msg string }

func (e refusedError) Error() string { return e.msg }

// hintedError is an error followed by a "cairn: hint:" line saying what to do about it.
type hintedError struct {
	err  error
	hint string
}

func (e hintedError) Error() string { return e.err.Error() }
func (e hintedError) Unwrap() error { return e.err }

// withHint adds a hint line to err.
func withHint(err error, hint string) error { return hintedError{err, hint} }

// Warn writes one warning line on stderr, in the CLI's one voice.
func (c *CLI) Warn(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "cairn: warning: %s\n", plain.Line(fmt.Sprintf(format, args...), 0))
}

// Hint writes a hint line on stderr, after the warning or error it explains.
func (c *CLI) Hint(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "cairn: hint: %s\n", plain.Line(fmt.Sprintf(format, args...), 0))
}

// Main runs one cairn command and maps its outcome to the exit code, in one place. Everything a
// command prints goes through a terminal guard: text read from a project (a checkpoint's body, a
// file name, a parked item) can carry escape sequences, and none reaches the terminal raw.
func Main(ctx context.Context, c *CLI, args []string) int {
	if len(args) > 0 && args[0] == "mcp" {
		// The MCP server's stdout is the protocol's: unbuffered, unguarded (the SDK writes JSON,
		// which escapes every control character itself).
		in, out := c.Stdin, c.Stdout
		c.Stdout = io.Discard
		return exitCode(c, cmdMCP(ctx, c, in, out, args[1:]))
	}
	// Buffered: a listing of thousands of rows is one write, not one per row.
	out := bufio.NewWriterSize(c.Stdout, 32<<10)
	defer out.Flush()
	tw := &terminalWriter{w: out}
	c.Stdout = tw
	defer tw.flush()
	return exitCode(c, dispatch(ctx, c, args))
}

// exitCode reports err on stderr, in the CLI's one voice, and maps it to the exit code.
func exitCode(c *CLI, err error) int {
	var ue usageError
	var re refusedError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(c.Stderr, "cairn: usage: %s\n", plain.Line(ue.msg, 0))
		c.Hint("run cairn --help")
		return 2
	case errors.As(err, &re):
		fmt.Fprintf(c.Stderr, "cairn: refused: %s\n", plain.Line(re.msg, 0))
		return 1
	}
	fmt.Fprintf(c.Stderr, "cairn: error: %s\n", plain.Line(err.Error(), 0))
	var he hintedError
	if errors.As(err, &he) {
		c.Hint("%s", he.hint)
	}
	return 1
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
		return runCommand(ctx, c, args[0], cmd, args[1:])
	}
	g, ok := groups[args[0]]
	if !ok {
		names := slices.Concat(slices.Collect(maps.Keys(groups)), slices.Collect(maps.Keys(topLevel)))
		if s := suggest(args[0], names); s != "" {
			return usagef("unknown command %q; did you mean %q?", args[0], s)
		}
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
		names := slices.Sorted(maps.Keys(g))
		msg := fmt.Sprintf("unknown command \"%s %s\"", args[0], args[1])
		if s := suggest(args[1], names); s != "" {
			msg += fmt.Sprintf("; did you mean \"%s %s\"?", args[0], s)
		}
		return usagef("%s (the %s commands are: %s)", msg, args[0], strings.Join(names, ", "))
	}
	return runCommand(ctx, c, args[0]+" "+args[1], cmd, args[2:])
}

// suggest is the candidate a mistyped word most likely meant: the one it is a prefix of, when
// only one is ("resum" → "resume"), else the nearest within two edits ("sesion" → "session"),
// when no other is as near. "" when nothing is close enough to say.
func suggest(word string, candidates []string) string {
	var prefixed []string
	for _, c := range candidates {
		if strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 && word != "" {
		return prefixed[0]
	}
	best, bestD, ties := "", 3, 0
	for _, c := range candidates {
		switch d := editDistance(word, c); {
		case d < bestD:
			best, bestD, ties = c, d, 0
		case d == bestD:
			ties++
		}
	}
	// One edit in a two-letter word is a different word, not a typo.
	if ties > 0 || bestD >= len([]rune(word)) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// helpRequest is a command's -h or --help: what its flags are, for runCommand to print.
type helpRequest struct{ flags string }

func (helpRequest) Error() string        { return "help requested" }
func (helpRequest) Is(target error) bool { return target == flag.ErrHelp }

// runCommand runs cmd, and answers its -h or --help with its usage, what it does and its flags.
func runCommand(ctx context.Context, c *CLI, name string, cmd command, args []string) error {
	err := cmd.run(ctx, c, args)
	var h helpRequest
	if !errors.As(err, &h) {
		return err
	}
	fmt.Fprintf(c.Stdout, "usage: %s\n\n%s\n", strings.TrimRight("cairn "+name+" "+cmd.usage, " "), cmd.summary)
	if h.flags != "" {
		fmt.Fprintf(c.Stdout, "\nflags:\n%s", h.flags)
	}
	return nil
}

// worktreeRule is the one rule of a repository's worktrees, as --help states it (README, Worktrees).
const worktreeRule = "Worktrees: the checkouts of one repository share its knowledge — checkpoints, hand-offs, the\n" +
	"timeline, and so search — which lives in the main checkout; each keeps its own working state:\n" +
	"the run whiteboard, parked items, the session registry and file claims."

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
		fmt.Fprintf(w, "%s\n      %s\n", strings.TrimRight("  cairn "+n+" "+topLevel[n].usage, " "), topLevel[n].summary)
	}
	fmt.Fprintln(w, "\n"+worktreeRule)
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
// ("cairn run start ID --issue 4"), returning the positionals in order. "--" ends the flags:
// everything after it is positional, however it starts, which is how text that begins with "-"
// is passed (the skills put every piece of user text there). A flag this command does not take
// is a usage error that names it exactly as typed, says what the command takes, and lists the
// group's commands.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	if err := unknownFlags(fs, args); err != nil {
		return nil, err
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				var b strings.Builder
				fs.SetOutput(&b)
				fs.PrintDefaults()
				// PrintDefaults writes "-name"; cairn's help and README write "--name" (both parse).
				flags := strings.ReplaceAll("\n"+b.String(), "\n  -", "\n  --")[1:]
				return nil, helpRequest{flags: flags}
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// unknownFlags reports the flags in args that fs does not define, as typed.
func unknownFlags(fs *flag.FlagSet, args []string) error {
	var unknown []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "h" || name == "help" {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			token, _, _ := strings.Cut(a, "=")
			unknown = append(unknown, token)
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
			i++ // its value, which may start with "-"
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	var takes []string
	fs.VisitAll(func(f *flag.Flag) { takes = append(takes, "--"+f.Name) })
	msg := fmt.Sprintf("unknown flag %s for cairn %s", strings.Join(unknown, ", "), fs.Name())
	if len(unknown) > 1 {
		msg = fmt.Sprintf("unknown flags %s for cairn %s", strings.Join(unknown, ", "), fs.Name())
	}
	if len(takes) > 0 {
		msg += " (it takes " + strings.Join(takes, ", ") + ")"
	} else {
		msg += " (it takes no flags)"
	}
	msg += `; text that starts with "-" goes after "--"`
	if group, _, ok := strings.Cut(fs.Name(), " "); ok && groups[group] != nil {
		var names []string
		for n := range groups[group] {
			names = append(names, n)
		}
		sort.Strings(names)
		msg += fmt.Sprintf("; the %s commands are: %s", group, strings.Join(names, ", "))
	}
	return usagef("%s", msg)
}

// terminalWriter writes through plain.Terminal: every control character but newline and tab
// is shown as an escape. A rune cut between two writes is held until the next.
type terminalWriter struct {
	w       io.Writer
	pending []byte
}

func (t *terminalWriter) Write(p []byte) (int, error) {
	buf := append(t.pending, p...)
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	t.pending = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, plain.Terminal(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *terminalWriter) flush() {
	if len(t.pending) > 0 {
		io.WriteString(t.w, plain.Terminal(string(t.pending)))
		t.pending = nil
	}
}
