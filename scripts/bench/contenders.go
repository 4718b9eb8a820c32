package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/project"
)

//go:embed alternatives
var alternativesFS embed.FS

// writeAlternatives copies the shell, Python and Node contenders into dir.
func writeAlternatives(dir string) error {
	return fs.WalkDir(alternativesFS, "alternatives", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := alternativesFS.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.Base(p))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o755)
	})
}

// Kinds of contender.
const (
	kindFloor   = "floor"
	kindCairn   = "cairn"
	kindBefore  = "before" // a cairn contender run from the -base binaries
	kindSeed    = "seed"
	kindPopular = "popular"
)

// Budgets (docs/DESIGN.md, Budgets).
type budget struct {
	ratio float64 // × floor (median); 0 = none
	abs   float64 // ms, absolute (median and p90 reported); 0 = none
	rss   bool    // peak RSS ≤ 16 MiB applies (every hook)
}

// A contender is one command measured: a cairn hook in one case, the floor, or an alternative.
type contender struct {
	key   string // short id, stable across sizes
	name  string // label in the tables
	kind  string
	argv  []string
	stdin []byte // nil: no stdin (/dev/null)
	env   []string
	state *snapshot
	fresh bool // restore state with the bench session's activity set to now (see freshActivity)
	// fix, when set, gives a file's content at restore time (see snapshot.restore): freshClaims.
	fix func(path string, data []byte) []byte
	// pair names the cairn contender an alternative is compared with.
	pair   string
	budget budget
	// check validates one run's output (stdout, stderr, exit code, files written); it runs on
	// the warm-up runs.
	check func(out, errOut string, code, changed int) error

	times    []float64 // ms, wall clock
	cpu      []float64 // ms, user + system time, in the same runs
	rss      []int64   // KiB
	warnings map[string]int
}

// noteStderr records the warnings a cairn run printed.
func (c *contender) noteStderr(errOut string) {
	if c.kind != kindCairn && c.kind != kindFloor {
		return
	}
	for _, l := range strings.Split(errOut, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if c.warnings == nil {
				c.warnings = map[string]int{}
			}
			c.warnings[l]++
		}
	}
}

// contenders lists every contender for one transcript size.
func (f *fixture) contenders(s *sizeFiles, st *states) []*contender {
	bin := func(name string) string { return filepath.Join(f.bin, name) }
	alt := func(name string) string { return filepath.Join(f.alt, name) }
	sid := benchSession
	pc := payload("PreCompact", sid, f.proj, s.T, "trigger", "auto", "custom_instructions", "null")
	ups := func(prompt string) []byte {
		return payload("UserPromptSubmit", sid, f.proj, s.T, "permission_mode", "default", "prompt", prompt)
	}
	const (
		answer   = "Yes, look at src/parser/lexer.go next, and keep the tests green."
		deferral = "Good idea, but let's come back to that after the release; first fix the failing lexer test."
		request  = "Add a --verbose flag to the CLI and document it in the README."
	)
	hookBudget2 := budget{ratio: 2, rss: true}
	// What PostCompact receives: the model's reply, an analysis then a summary of ~6 KB.
	compactSummary := "<analysis>\nThe user asked for the lexer and the parser; " + strings.Repeat("analysis ", 100) + "\n</analysis>\n\n<summary>\n" +
		strings.Repeat("1. Primary request: refactor the lexer's state into a struct, keep the tests green, wire src/parser/parser.go to it.\n", 50) + "</summary>"
	upsBudget := budget{ratio: 1.3, rss: true}
	// What PreToolUse receives before a tool call: the tool's name and its input.
	tool := func(name, key, value string) []byte {
		in, _ := json.Marshal(map[string]string{key: value})
		p := payload("PreToolUse", sid, f.proj, s.T, "permission_mode", "default", "tool_name", name)
		return append(p[:len(p)-1], []byte(`,"tool_input":`+string(in)+`,"tool_use_id":"toolu_bench"}`)...)
	}
	realProj := f.proj
	if r, err := filepath.EvalSymlinks(f.proj); err == nil {
		realProj = r // claims are keyed by the checkout's real path (package claims)
	}
	claimsDir := filepath.Join(f.conf, "cairn", "claims", project.Slug(realProj))
	cliEnv := []string{"CLAUDE_CODE_SESSION_ID=" + sid}

	// Warnings on stderr are allowed (a 200 MB transcript with thousands of edited files makes
	// PreCompact shorten its snapshot, and say so); the report lists them.
	quiet := func(out, errOut string, code, _ int) error {
		if code != 0 || strings.Contains(errOut, ": error:") {
			return fmt.Errorf("exit %d, stderr %q", code, errOut)
		}
		return nil
	}
	contains := func(sub string) func(string, string, int, int) error {
		return func(out, errOut string, code, changed int) error {
			if err := quiet(out, errOut, code, changed); err != nil {
				return err
			}
			if !strings.Contains(out, sub) {
				return fmt.Errorf("stdout lacks %q: %.300q", sub, out)
			}
			return nil
		}
	}
	writes := func(want bool, next func(string, string, int, int) error) func(string, string, int, int) error {
		return func(out, errOut string, code, changed int) error {
			if err := next(out, errOut, code, changed); err != nil {
				return err
			}
			if (changed > 0) != want {
				return fmt.Errorf("%d files changed, want writes=%v", changed, want)
			}
			return nil
		}
	}
	empty := func(out, errOut string, code, changed int) error {
		if err := quiet(out, errOut, code, changed); err != nil {
			return err
		}
		if out != "" {
			return fmt.Errorf("stdout not empty: %.300q", out)
		}
		return nil
	}
	exit0 := func(out, errOut string, code, _ int) error {
		if code != 0 {
			return fmt.Errorf("exit %d, stderr %q", code, errOut)
		}
		return nil
	}
	exit0Contains := func(sub string) func(string, string, int, int) error {
		return func(out, errOut string, code, changed int) error {
			if err := exit0(out, errOut, code, changed); err != nil {
				return err
			}
			if !strings.Contains(out, sub) {
				return fmt.Errorf("stdout lacks %q: %.300q", sub, out)
			}
			return nil
		}
	}

	// handedOff checks whether the bench session has a hand-off checkpoint.
	handedOff := func(want bool) error {
		dir := filepath.Join(f.proj, "memory", "projects", filepath.Base(f.proj), "checkpoints")
		ents, _ := os.ReadDir(dir)
		got := false
		for _, e := range ents {
			if data, _ := os.ReadFile(filepath.Join(dir, e.Name())); strings.Contains(string(data), "Hand-off written by cairn when session "+sid+" ended") {
				got = true
			}
		}
		if got != want {
			return fmt.Errorf("hand-off of %s: %v, want %v", sid, got, want)
		}
		return nil
	}

	cs := []*contender{
		{key: "floor", name: "floor: bare Go, decodes stdin", kind: kindFloor, argv: []string{bin("floor")}, stdin: ups(request), state: st.standard, check: quiet},

		{key: "precompact", name: "precompact (first of a compaction)", kind: kindCairn, argv: []string{bin("precompact")}, stdin: pc, state: st.standard, budget: hookBudget2,
			check: writes(true, empty)},
		{key: "precompact-repeat", name: "precompact (repeated, same compaction)", kind: kindCairn, argv: []string{bin("precompact")}, stdin: pc, state: st.afterPreCompact, budget: hookBudget2,
			check: writes(false, empty)},
		{key: "sessionstart-startup", name: "sessionstart startup (new session)", kind: kindCairn, argv: []string{bin("sessionstart")},
			stdin: payload("SessionStart", newSession, f.proj, filepath.Join(f.transcripts, newSession+".jsonl"), "source", "startup", "model", "claude-opus-4-8"),
			state: st.standard, budget: hookBudget2, check: func(out, errOut string, code, changed int) error {
				if err := contains(".agents/lessons-learned.md")(out, errOut, code, changed); err != nil {
					return err
				}
				return contains("left a hand-off checkpoint")(out, errOut, code, changed)
			}},
		{key: "sessionstart-handback", name: "sessionstart compact without a run (hand-back)", kind: kindCairn, argv: []string{bin("sessionstart")},
			stdin: payload("SessionStart", sid, f.proj, s.C, "source", "compact", "model", "claude-opus-4-8"),
			state: st.noRun, budget: hookBudget2, check: contains("cairn hand-back after this compaction")},
		{key: "postcompact", name: "postcompact (keeps Claude Code's summary)", kind: kindCairn, argv: []string{bin("postcompact")},
			stdin: payload("PostCompact", sid, f.proj, s.C, "trigger", "auto", "compact_summary", compactSummary),
			state: st.standard, budget: hookBudget2, check: writes(true, empty)},
		{key: "sessionstart-compact", name: "sessionstart compact (after PreCompact)", kind: kindCairn, argv: []string{bin("sessionstart")},
			stdin: payload("SessionStart", sid, f.proj, s.C, "source", "compact", "model", "claude-opus-4-8"),
			state: st.standard, budget: hookBudget2, check: func(out, errOut string, code, changed int) error {
				if err := contains("## Current state")(out, errOut, code, changed); err != nil {
					return err
				}
				if data, _ := os.ReadFile(filepath.Join(f.proj, ".agents/runs/bench-run/MEMORY.md")); strings.Contains(string(data), "recorded late") {
					return fmt.Errorf("repaired a PreCompact that ran")
				}
				return nil
			}},
		{key: "sessionstart-repair", name: "sessionstart compact (PreCompact missed: repairs)", kind: kindCairn, argv: []string{bin("sessionstart")},
			stdin: payload("SessionStart", sid, f.proj, s.C, "source", "compact", "model", "claude-opus-4-8"),
			state: st.missed, budget: hookBudget2, check: func(out, errOut string, code, changed int) error {
				if err := contains("## Current state")(out, errOut, code, changed); err != nil {
					return err
				}
				if data, _ := os.ReadFile(filepath.Join(f.proj, ".agents/runs/bench-run/MEMORY.md")); !strings.Contains(string(data), "recorded late") {
					return fmt.Errorf("did not repair the missed PreCompact")
				}
				return nil
			}},
		{key: "sessionend", name: "sessionend (leaves a hand-off)", kind: kindCairn, argv: []string{bin("sessionend")},
			stdin: payload("SessionEnd", sid, f.proj, s.E, "reason", "prompt_input_exit"), state: st.standard, budget: budget{ratio: 2.5, rss: true},
			check: func(out, errOut string, code, changed int) error {
				if err := writes(true, empty)(out, errOut, code, changed); err != nil {
					return err
				}
				return handedOff(true)
			}},
		{key: "sessionend-shrunk", name: "sessionend on a transcript rewritten shorter since its compaction (hand-off)", kind: kindCairn, argv: []string{bin("sessionend")},
			stdin: payload("SessionEnd", sid, f.proj, s.T, "reason", "prompt_input_exit"), state: st.standard, budget: budget{abs: 500, rss: true},
			check: func(out, errOut string, code, changed int) error {
				if err := writes(true, empty)(out, errOut, code, changed); err != nil {
					return err
				}
				return handedOff(true)
			}},
		{key: "sessionend-nowork", name: "sessionend (nothing new since its hand-off)", kind: kindCairn, argv: []string{bin("sessionend")},
			stdin: payload("SessionEnd", sid, f.proj, s.E, "reason", "prompt_input_exit"), state: st.handedOff, budget: hookBudget2, check: writes(true, empty)},
		{key: "sessionend-worst", name: "sessionend, worst state (110 items expire, and a hand-off)", kind: kindCairn, argv: []string{bin("sessionend")},
			stdin: payload("SessionEnd", sid, f.proj, s.E, "reason", "prompt_input_exit"), state: st.expired, budget: budget{abs: 500, rss: true},
			check: func(out, errOut string, code, changed int) error {
				if err := empty(out, errOut, code, changed); err != nil {
					return err
				}
				if n, _ := os.ReadDir(f.memDir); len(n) != 0 {
					return fmt.Errorf("%d legacy files left", len(n))
				}
				return handedOff(true)
			}},
		{key: "ups-answer", name: "userpromptsubmit: a plain answer", kind: kindCairn, argv: []string{bin("userpromptsubmit")},
			stdin: ups(answer), state: st.standard, fresh: true, budget: upsBudget, check: writes(false, empty)},
		{key: "ups-answer-200", name: "userpromptsubmit: a plain answer, 200 sessions registered", kind: kindCairn, argv: []string{bin("userpromptsubmit")},
			stdin: ups(answer), state: st.sessions200, fresh: true, budget: upsBudget, check: writes(false, empty)},
		{key: "ups-deferral", name: "userpromptsubmit: a deferral (guard: 110 open)", kind: kindCairn, argv: []string{bin("userpromptsubmit")},
			stdin: ups(deferral), state: st.standard, fresh: true, budget: upsBudget, check: writes(false, contains("did not park"))},
		{key: "ups-request", name: "userpromptsubmit: new request after a question (guard)", kind: kindCairn, argv: []string{bin("userpromptsubmit")},
			stdin: ups(request), state: st.standard, fresh: true, budget: upsBudget, check: writes(false, contains("did not park"))},
		{key: "ups-park", name: "userpromptsubmit: new request, parks (9 open)", kind: kindCairn, argv: []string{bin("userpromptsubmit")},
			stdin: ups(request), state: st.room, fresh: true, budget: upsBudget, check: writes(true, contains("cairn parked"))},
		{key: "ups-broadcast", name: "userpromptsubmit: answer + 3 unseen broadcasts", kind: kindCairn, argv: []string{bin("userpromptsubmit")},
			stdin: ups(answer), state: st.unseen, fresh: true, budget: upsBudget, check: writes(true, contains("Unseen 3"))},
		{key: "pretooluse-tool", name: "pretooluse: a tool that edits no file and runs no command (Read)", kind: kindCairn, argv: []string{bin("pretooluse")},
			stdin: tool("Read", "file_path", filepath.Join(f.proj, "src/main.go")), state: st.claims, budget: upsBudget, check: writes(false, empty)},
		{key: "pretooluse-bash", name: "pretooluse: a shell command (Bash), notes where the transcript stands", kind: kindCairn, argv: []string{bin("pretooluse")},
			stdin: tool("Bash", "command", "go test ./..."), state: st.claims, budget: upsBudget, check: writes(true, empty)},
		{key: "pretooluse-claim-8", name: "pretooluse: an edit, claims the file (8 sessions, no claims)", kind: kindCairn, argv: []string{bin("pretooluse")},
			stdin: tool("Edit", "file_path", filepath.Join(f.proj, "src/fresh.go")), state: st.standard, budget: upsBudget, check: writes(true, empty)},
		{key: "pretooluse-claim", name: "pretooluse: an edit, claims the file (200 sessions, 2,000 claims)", kind: kindCairn, argv: []string{bin("pretooluse")},
			stdin: tool("Edit", "file_path", filepath.Join(f.proj, "src/fresh.go")), state: st.claims, budget: upsBudget, check: writes(true, empty)},
		{key: "pretooluse-again", name: "pretooluse: an edit of a file it claimed a minute ago", kind: kindCairn, argv: []string{bin("pretooluse")},
			stdin: tool("Write", "file_path", filepath.Join(f.proj, ownFile)), state: st.claims, fix: freshClaims(claimsDir, sid, f.holder), budget: upsBudget, check: writes(false, empty)},
		{key: "pretooluse-conflict", name: "pretooluse: an edit of a file another live session claims (warns)", kind: kindCairn, argv: []string{bin("pretooluse")},
			stdin: tool("Edit", "file_path", filepath.Join(f.proj, conflictFile)), state: st.claims, fix: freshClaims(claimsDir, sid, f.holder), budget: hookBudget2,
			check: writes(true, contains("cairn: another live Claude Code session"))},
		{key: "resume", name: "cairn session resume", kind: kindCairn, argv: []string{bin("cairn"), "session", "resume"}, env: cliEnv,
			state: st.standard, budget: budget{ratio: 2}, check: writes(false, contains("## Session Pending"))},
		{key: "archive", name: "cairn session archive (a legacy item)", kind: kindCairn, argv: []string{bin("cairn"), "session", "archive", f.archiveTarget}, env: cliEnv,
			state: st.standard, check: writes(true, contains("Archived:"))},
		{key: "summary", name: "cairn session summary", kind: kindCairn, argv: []string{bin("cairn"), "session", "summary"}, env: cliEnv,
			state: st.standard, check: contains("→")},

		{key: "seed-resume", name: "original /session resume (bash)", kind: kindSeed, pair: "resume", argv: []string{"bash", alt("seed000-resume.sh")}, env: cliEnv,
			state: st.standard, check: exit0Contains("## Session Pending")},
		{key: "seed-archive", name: "original /session archive (bash)", kind: kindSeed, pair: "archive", argv: []string{"bash", alt("seed000-archive.sh"), f.archiveTarget}, env: cliEnv,
			state: st.standard, check: writes(true, exit0Contains("Archived:"))},
		{key: "seed-summary", name: "original /session summary (bash)", kind: kindSeed, pair: "summary", argv: []string{"bash", alt("seed000-summary.sh")}, env: cliEnv,
			state: st.standard, check: exit0Contains("→")},
		{key: "seed-precompact", name: "original save-session PreCompact (bash grep/sed)", kind: kindSeed, pair: "precompact", argv: []string{"bash", alt("seed001-save-session.sh")},
			stdin: pc, state: st.standard, check: writes(true, exit0)},
		{key: "seed-sessionstart", name: "original context-loader SessionStart (bash)", kind: kindSeed, pair: "sessionstart-startup", argv: []string{"bash", alt("seed001-context-loader.sh")},
			stdin: payload("SessionStart", newSession, f.proj, filepath.Join(f.transcripts, newSession+".jsonl"), "source", "startup"),
			state: st.standard, check: exit0Contains("lessons-learned.md")},

		{key: "python", name: "python3 hook: stdin + last 64 KiB", kind: kindPopular, pair: "ups-request", argv: []string{f.python, alt("hook.py")},
			stdin: ups(request), state: st.standard, check: exit0},
		{key: "node", name: "node hook: stdin + last 64 KiB", kind: kindPopular, pair: "ups-request", argv: []string{f.node, alt("hook.js")},
			stdin: ups(request), state: st.standard, check: exit0},
	}
	return cs
}

// befores returns, for each cairn contender of cs, a twin that runs the same command from the
// binaries in dir (an earlier build), on the same state and payload and under the same check,
// keyed "before:" + its key.
func befores(cs []*contender, dir string) []*contender {
	var out []*contender
	for _, c := range cs {
		if c.kind != kindCairn {
			continue
		}
		b := *c
		b.key, b.name, b.kind, b.pair = beforeKey+c.key, "before: "+c.name, kindBefore, ""
		b.argv = append([]string{filepath.Join(dir, filepath.Base(c.argv[0]))}, c.argv[1:]...)
		out = append(out, &b)
	}
	return out
}

const beforeKey = "before:"
