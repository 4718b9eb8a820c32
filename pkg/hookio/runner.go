package hookio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// Hook describes one hook binary.
type Hook struct {
	Name    string // the binary's name, used as the prefix of every stderr line
	Event   string // the Claude Code event it serves, e.g. "PreCompact"
	Summary string // one sentence for --help: what it does and when Claude Code runs it
	// Wants, when set, is asked first, with the environment and the raw payload, whether the hook
	// has anything to do: a hook that runs before every tool call answers no for most of them,
	// before the project is looked for or anything else is read.
	Wants func(env project.Env, payload []byte) bool
	Run   func(ctx context.Context, inv *Invocation) error
}

// Invocation is one run of a hook: its payload, the protocol output it builds, and the world it
// runs in (the embedded Project, built once by Main and passed down to every flow). Everything a
// hook touches comes from here, so tests and dry runs can replace it.
type Invocation struct {
	*project.Project // Files is safefile.Disk, or safefile.DryRun under --dry-run; Warn is warn
	Payload          []byte
	Common           Common
	Out              bytes.Buffer // protocol output, written to stdout only if Run succeeds
	plan             bytes.Buffer // dry-run plans
	stderr           io.Writer
	name             string
}

// warn reports a problem that does not stop the hook: one stderr line and a log entry.
func (inv *Invocation) warn(format string, args ...any) {
	msg := plain.Line(fmt.Sprintf(format, args...), 0)
	fmt.Fprintf(inv.stderr, "%s: warning: %s\n", inv.name, msg)
	inv.log("warning", msg)
}

// repaired reports a repair made to cairn's own state (safefile.Disk's Repaired, which the catalog
// reports its rebuild through too): a warning, so that it is in .claude/state/cairn.log, where
// `cairn doctor` finds it, and a note for the next SessionStart (repairs.go).
func (inv *Invocation) repaired(what string) {
	inv.warn("%s %s", repairedPrefix, what)
	inv.noteRepair()
}

// repairedPrefix opens the warning of every repair of cairn's state, in stderr and cairn.log.
const repairedPrefix = "repaired:"

// logName is the size-bounded log file under .claude/state/ where hooks record their errors and
// warnings (stderr of a hook that exits 0 is seen only in Claude Code's debug log).
const logName = "cairn.log"

// maxLog bounds the log: past it, the log is moved to cairn.log.1 (replacing the older one).
const maxLog = 256 << 10

func (inv *Invocation) log(level, msg string) {
	if inv.DryRun || inv.Root == "" {
		return
	}
	path := filepath.Join(project.StateDir(inv.Root), logName)
	line := fmt.Sprintf("%s %s: %s: %s\n", inv.Now().UTC().Format(time.RFC3339), inv.name, level, plain.Field(msg, 0))
	// The log is best effort: failing to log must not fail the hook.
	_ = safefile.Disk{Roots: []string{inv.Root}}.Append(path, []byte(line), 0o600, safefile.NoSync, safefile.RotateAt(maxLog))
}

// Main runs h as a process would: it parses flags, reads the payload, runs the hook and maps every
// outcome to an exit code. Hooks fail open: whatever happens — bad input, an error, a panic — the
// exit code is 0 and stdout is empty unless the hook succeeded. Only misuse by hand (an unknown
// flag) exits 1, which Claude Code treats as a non-blocking error; Main never exits 2, the code
// that would block a prompt or a compaction.
func Main(ctx context.Context, h Hook, args []string, stdin io.Reader, stdout, stderr io.Writer, env project.Env, now func() time.Time) int {
	inv := &Invocation{Project: &project.Project{Env: env, Now: now}, stderr: stderr, name: h.Name}
	inv.Warn = inv.warn
	for _, a := range args {
		switch a {
		case "--help", "-h", "-help":
			fmt.Fprintf(stdout, "usage: %s [--dry-run] < payload.json\n\n%s\n\n"+
				"  --dry-run   read the payload, print the planned writes (path and new content or a diff), write nothing\n"+
				"  --help      show this help\n  --version   print the version\n", h.Name, h.Summary)
			return 0
		case "--version", "-version":
			fmt.Fprintf(stdout, "%s %s\n", h.Name, version.String())
			return 0
		case "--dry-run", "-dry-run", "-n":
			inv.DryRun = true
		default:
			fmt.Fprintf(stderr, "%s: error: unknown argument %q\n%s: hint: run %s --help\n", h.Name, a, h.Name, h.Name)
			return 1
		}
	}
	err := run(ctx, h, inv, stdin)
	if inv.DryRun {
		stdout.Write(inv.plan.Bytes())
	}
	if err != nil {
		msg := plain.Line(err.Error(), 0)
		fmt.Fprintf(stderr, "%s: error: %s\n", h.Name, msg)
		inv.log("error", msg)
		return 0
	}
	if inv.DryRun && inv.Out.Len() > 0 {
		fmt.Fprintf(stdout, "stdout (%s output for Claude Code)\n", h.Event)
	}
	stdout.Write(inv.Out.Bytes())
	return 0
}

func run(ctx context.Context, h Hook, inv *Invocation, stdin io.Reader) (err error) {
	defer func() {
		if p := recover(); p != nil {
			inv.Out.Reset()
			err = fmt.Errorf("internal error: %v [%s]", p, firstFrames(debug.Stack()))
		}
	}()
	raw, err := ReadPayload(stdin, stdinDeadline)
	if err != nil {
		return err
	}
	if h.Wants != nil && !h.Wants(inv.Env, raw) {
		return nil
	}
	inv.Payload = raw
	inv.Common = parseCommon(raw)
	root, err := project.Root(inv.Env, inv.Common.Cwd)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return fmt.Errorf("project root %s is not a directory", root)
	}
	inv.Root = root
	if inv.Common.HookEventName != "" && h.Event != "" && inv.Common.HookEventName != h.Event {
		return fmt.Errorf("payload is for %s, not %s: check the hook wiring", inv.Common.HookEventName, h.Event)
	}
	if cfg, err := project.ConfigDir(inv.Env); err == nil {
		inv.Config = cfg
	}
	// A linked worktree writes the knowledge its repository's checkouts share under the main
	// checkout: a second root, found once here for the whole hook.
	roots := inv.Roots()
	if inv.DryRun {
		inv.Files = safefile.DryRun{Out: &inv.plan, Roots: roots}
	} else {
		inv.Files = safefile.Disk{Roots: roots, Repaired: inv.repaired}
	}
	if err := h.Run(ctx, inv); err != nil {
		inv.Out.Reset()
		return err
	}
	return nil
}

func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "/") && !strings.Contains(l, "/runtime/") {
			out = append(out, filepath.Base(strings.Fields(l)[0]))
			if len(out) == 3 {
				break
			}
		}
	}
	return strings.Join(out, " < ")
}
