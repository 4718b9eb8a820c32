package transcript

import (
	"bytes"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// maxHookRuns bounds what HookRuns returns; the most recent runs are kept.
const maxHookRuns = 10000

// HookRun is one hook execution that Claude Code recorded in the transcript, as an "attachment"
// line whose attachment.type starts with "hook_":
//
//	{"type":"attachment","attachment":{"type":"hook_success","hookName":"PreToolUse:Bash",
//	 "hookEvent":"PreToolUse","command":"…","exitCode":0,"durationMs":31,…},"timestamp":"…"}
//
// hook_cancelled lines add timedOut and timeoutMs when the hook hit its timeout.
type HookRun struct {
	Event    string // hookEvent, or the part of hookName before ':' when hookEvent is absent
	HookName string // hookName, e.g. "PreToolUse:Bash", "SessionStart:startup"
	Command  string // the hook's command; "" when not recorded
	// Outcome is attachment.type without "hook_": success, non_blocking_error, blocking_error,
	// error_during_execution, cancelled, or any newer kind.
	Outcome    string
	DurationMs int64 // -1 when the line carries no durationMs
	TimedOut   bool
	Timestamp  string // the line's timestamp, as written
}

// HookRuns returns the hook runs recorded in the last maxBytes of the transcript, oldest first,
// for `cairn doctor`. A hook line is a run when it carries a durationMs or a command: that keeps
// hook_success, the error kinds and hook_cancelled, and leaves out hook_additional_context, which
// repeats a run already recorded, and the bare hook_cancelled lines of older versions, which
// name no command. Stop hooks' system "stop_hook_summary" lines are not read.
// maxBytes <= 0 reads nothing. At most the last 10000 runs are returned.
func HookRuns(path string, maxBytes int64) ([]HookRun, error) {
	return defaultLimits.hookRuns(path, maxBytes)
}

func (lim limits) hookRuns(path string, maxBytes int64) ([]HookRun, error) {
	if maxBytes <= 0 {
		return nil, nil
	}
	var runs []HookRun
	_, err := withFile(path, func(r io.ReaderAt, size int64) error {
		var err error
		runs, err = lim.hookRunsAt(r, size, maxBytes)
		return err
	})
	return runs, err
}

func (lim limits) hookRunsAt(r io.ReaderAt, size, maxBytes int64) ([]HookRun, error) {
	var (
		runs []HookRun
		p    parser
		s    = newFwdScanner(r, size, max(0, size-maxBytes), lim)
	)
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		// The type value starts a JSON string: "hook_…". Unquoted prose does not match.
		if !bytes.Contains(l.data, []byte(`"hook_`)) {
			continue
		}
		e, ok := p.entry(l)
		// A line cut at 1 MiB (a hook that printed a lot) may lose "type", which is written
		// after the attachment.
		if !ok || e.typ != "attachment" && (e.typ != "" || !e.attachment.Exists()) {
			continue
		}
		if run, ok := hookRun(e); ok {
			if len(runs) == 2*maxHookRuns {
				runs = append(runs[:0], runs[maxHookRuns:]...)
			}
			runs = append(runs, run)
		}
	}
	if len(runs) > maxHookRuns {
		runs = runs[len(runs)-maxHookRuns:]
	}
	return runs, s.err
}

func hookRun(e entry) (HookRun, bool) {
	a := e.attachment
	typ := a.Get("type").Str
	outcome, ok := strings.CutPrefix(typ, "hook_")
	if !ok {
		return HookRun{}, false
	}
	command := a.Get("command")
	if command.Type != gjson.String {
		command = a.Get("blockingError.command") // hook_blocking_error nests it
	}
	duration := a.Get("durationMs")
	if !duration.Exists() && command.Str == "" {
		return HookRun{}, false
	}
	run := HookRun{
		Event:      a.Get("hookEvent").Str,
		HookName:   clean(a.Get("hookName").Str),
		Command:    clean(command.Str),
		Outcome:    clean(outcome),
		DurationMs: -1,
		TimedOut:   a.Get("timedOut").Bool(),
		Timestamp:  clean(e.timestamp),
	}
	if duration.Type == gjson.Number {
		run.DurationMs = duration.Int()
	}
	if run.Event == "" {
		run.Event, _, _ = strings.Cut(run.HookName, ":")
	}
	run.Event = clean(run.Event)
	return run, true
}
