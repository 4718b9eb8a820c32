package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// The standard project (docs/BENCHMARKS.md): an active run, 10 parked items, 100 legacy
// session-open-*.md files, 50 checkpoints, 8 registered sessions with 1,000 broadcast events,
// Claude Code task files, a git history, and transcripts of every size asked for (one state adds
// 192 past sessions, filling the registry). Everything lives under one temporary directory:
//
//	work/bin/            the built binaries (unless -bin)
//	work/alternatives/   the shell, Python and Node contenders
//	work/proj/           the project (a git repository)
//	work/home/.claude/   HOME/.claude = CLAUDE_CONFIG_DIR: legacy memory files, task files
//	work/transcripts/    T-<size>.jsonl, C-<size>.jsonl (the same and one line), and E-<size>.jsonl
//	                     (C and a turn after the compaction: what SessionEnd reads)
type fixture struct {
	work, bin, alt    string
	proj, home, conf  string
	transcripts       string
	memDir            string // legacy memory dir (Claude Code's slug spelling)
	env               []string
	archiveTarget     string // a legacy item's slug that matches exactly one item
	base              *snapshot
	now               time.Time
	log               func(format string, args ...any)
	generatedSizes    map[string]*sizeFiles
	transcriptSeconds float64
	python, node      string // the interpreters, resolved (see resolveInterpreters)
	holder            string // the live session whose claim the claims state holds (claims)
}

// Session ids.
const (
	benchSession = "bench-session"          // the session the hooks run for
	newSession   = "bench-new-session-0001" // SessionStart startup: a session the registry has not seen
	otherPrefix  = "other-session-0"        // the 7 other registered sessions
)

const (
	parkedBullets = 10
	legacyFiles   = 100
	checkpoints   = 50
	otherSessions = 7
	broadcasts    = 1000
	gitCommits    = 20
)

func newFixture(work, bin string, log func(string, ...any)) *fixture {
	f := &fixture{
		work: work, bin: bin, alt: filepath.Join(work, "alternatives"),
		proj: filepath.Join(work, "proj"), home: filepath.Join(work, "home"),
		transcripts: filepath.Join(work, "transcripts"), now: time.Now(), log: log,
		generatedSizes: map[string]*sizeFiles{},
	}
	f.conf = filepath.Join(f.home, ".claude")
	f.memDir = filepath.Join(f.conf, "projects", project.Slug(f.proj), "memory")
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "GODEBUG", "GOGC", "GOMEMLIMIT", "GIT_DIR", "GIT_WORK_TREE":
			continue
		}
		env = append(env, kv)
	}
	f.env = append(env, "HOME="+f.home, "CLAUDE_CONFIG_DIR="+f.conf, "TZ=UTC", "LC_ALL=C.UTF-8")
	return f
}

// run runs a binary of the fixture in the project, with stdin, and fails on a non-zero exit or
// (for cairn's hooks) any stderr.
func (f *fixture) run(stdin []byte, extraEnv []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = f.proj
	cmd.Env = append(append([]string{}, f.env...), extraEnv...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, errb.String())
	}
	if strings.Contains(errb.String(), ": error:") && strings.HasPrefix(name, f.bin) {
		return out.Bytes(), fmt.Errorf("%s %s: stderr: %s", filepath.Base(name), strings.Join(args, " "), errb.String())
	}
	return out.Bytes(), nil
}

func (f *fixture) cairn(env []string, args ...string) error {
	_, err := f.run(nil, env, filepath.Join(f.bin, "cairn"), args...)
	return err
}

func (f *fixture) hook(name string, payload []byte) ([]byte, error) {
	return f.run(payload, nil, filepath.Join(f.bin, name))
}

func (f *fixture) git(args ...string) error {
	args = append([]string{"-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)
	_, err := f.run(nil, nil, "git", args...)
	return err
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// payload is a hook's stdin as Claude Code sends it.
func payload(event, sid, cwd, transcriptPath string, extra ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":%q`, sid, transcriptPath, cwd, event)
	for i := 0; i+1 < len(extra); i += 2 {
		v, _ := json.Marshal(extra[i+1])
		if extra[i+1] == "null" {
			v = []byte("null")
		}
		fmt.Fprintf(&b, `,%q:%s`, extra[i], v)
	}
	b.WriteString("}")
	return []byte(b.String())
}

var words = strings.Fields(`parser cache token lexer retry budget index schema migration flag config
	release docs tests bench fixture logger router session queue worker upload export import
	theme layout search filter sort paging metrics tracing auth login refresh webhook`)

// build makes the project, the home directory and the transcripts' directory, and takes the
// base snapshot.
func (f *fixture) build() error {
	r := rand.New(rand.NewPCG(7, 7))
	word := func() string { return words[r.IntN(len(words))] }
	for _, d := range []string{f.proj, f.conf, f.transcripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}

	// A git repository with a short history, the read-order files, and some source.
	if err := f.git("init", "-q"); err != nil {
		return err
	}
	files := map[string]string{
		"AGENTS.md":                       "# Agents\n\nRead .agents/rules/ before changing code. Run the tests before a commit.\n",
		".agents/rules/compaction.md":     "# Compaction\n\nBefore compaction write the run's MEMORY.md; after it re-read the files it names.\n",
		".agents/rules/testing.md":        "# Testing\n\nEvery change comes with a test.\n",
		".agents/rules/style.md":          "# Style\n\ngofmt, short functions, no globals.\n",
		".agents/lessons-learned.md":      "# Lessons learned\n\n- Do not resume from the compaction summary alone.\n",
		"README.md":                       "# Bench project\n",
		"go.mod":                          "module example.com/benchproj\n\ngo 1.26\n",
		".gitignore":                      "/.temp/\n",
		"src/main.go":                     "package main\n\nfunc main() {}\n",
		"src/parser/parser.go":            "package parser\n",
		"src/parser/lexer.go":             "package parser\n",
		"src/server/server.go":            "package server\n",
		"docs/design.md":                  "# Design\n",
		".agents/runs/.keep":              "",
		"memory/context.md":               "# Project context\n\nA Go service with a parser and a server.\n",
		"memory/learnings.jsonl":          `{"ts":"2026-09-01T10:00:00Z","learning":"the lexer is the hot path"}` + "\n",
		".claude/settings.json":           "{}\n",
		"src/parser/testdata/input-1.txt": "a b c\n",
	}
	for p, c := range files {
		if err := writeFile(filepath.Join(f.proj, p), c); err != nil {
			return err
		}
	}
	if err := f.git("add", "-A"); err != nil {
		return err
	}
	if err := f.git("commit", "-q", "-m", "Initial commit"); err != nil {
		return err
	}
	for i := 1; i < gitCommits; i++ {
		p := filepath.Join(f.proj, "src", "parser", fmt.Sprintf("step%02d.go", i))
		if err := writeFile(p, fmt.Sprintf("package parser\n\n// Step %d: %s %s.\nconst step%02d = %d\n", i, word(), word(), i, i)); err != nil {
			return err
		}
		if err := f.git("add", "-A"); err != nil {
			return err
		}
		if err := f.git("commit", "-q", "-m", fmt.Sprintf("parser: step %d, %s the %s", i, word(), word())); err != nil {
			return err
		}
	}
	// Two files modified and not committed (context save records them).
	if err := writeFile(filepath.Join(f.proj, "src/main.go"), "package main\n\nfunc main() { run() }\n"); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(f.proj, "src/server/server.go"), "package server\n\n// Serve serves.\nfunc Serve() {}\n"); err != nil {
		return err
	}

	// The active run, its state and its whiteboard prose.
	f.log("fixture: run, checkpoints, sessions, parked items, legacy files")
	if err := f.cairn(nil, "run", "start", "bench-run", "--issue", "7", "--branch", "main", "--pr", "42"); err != nil {
		return err
	}
	if err := f.cairn(nil, "run", "set", "phase=implement", "gate_spec=pass", "gate_quality=pass",
		"gate_architecture=pending", "gate_security=pending", "plan_open=3", "worktree="+f.proj); err != nil {
		return err
	}
	var prose strings.Builder
	prose.WriteString("# Run bench-run — whiteboard\n\n## Current state\n")
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&prose, "- Step %d of the %s %s is done; the %s tests pass.\n", i, word(), word(), word())
	}
	prose.WriteString("\n## In progress\n- src/parser/lexer.go: the token cache.\n- src/server/server.go: the retry budget.\n")
	prose.WriteString("\n## Next\n- Wire the cache into the parser, then run the benchmarks.\n")
	prose.WriteString("\n## Decisions\n")
	for i := 0; i < 15; i++ {
		fmt.Fprintf(&prose, "- Keep the %s in the %s, because the %s depends on it.\n", word(), word(), word())
	}
	prose.WriteString("\n## Blockers\n- None.\n")
	if err := os.WriteFile(filepath.Join(f.proj, ".agents/runs/bench-run/MEMORY.md"), []byte(prose.String()), 0o644); err != nil {
		return err
	}

	// 50 checkpoints through the CLI.
	for i := 1; i <= checkpoints; i++ {
		title := fmt.Sprintf("checkpoint %02d %s %s", i, word(), word())
		if err := f.cairn(nil, "context", "save", title,
			"--summary", fmt.Sprintf("Worked on the %s and the %s; %d tests added.", word(), word(), i),
			"--decisions", fmt.Sprintf("Keep the %s; drop the %s.", word(), word()),
			"--remaining", fmt.Sprintf("Finish the %s, then the %s.", word(), word()),
			"--notes", "See docs/design.md."); err != nil {
			return err
		}
	}

	// Claude Code's task files for the bench session.
	taskDir := filepath.Join(f.conf, "tasks", benchSession)
	statuses := []string{"completed", "completed", "completed", "in_progress", "pending", "pending"}
	for i, st := range statuses {
		t := map[string]any{"id": strconv.Itoa(i + 1), "subject": fmt.Sprintf("Task %d: the %s %s", i+1, word(), word()),
			"description": "Do it well.", "activeForm": "Doing it", "status": st, "blocks": []string{}, "blockedBy": []string{}}
		data, _ := json.MarshalIndent(t, "", "  ")
		if err := writeFile(filepath.Join(taskDir, fmt.Sprintf("%d.json", i+1)), string(data)); err != nil {
			return err
		}
	}

	// 8 sessions: 7 others register, broadcast 1,000 messages between them, then the bench
	// session registers (its cursor at the end of the log: it has seen everything).
	none := filepath.Join(f.transcripts, "absent.jsonl")
	for i := 1; i <= otherSessions; i++ {
		sid := fmt.Sprintf("%s%d", otherPrefix, i)
		if _, err := f.hook("sessionstart", payload("SessionStart", sid, f.proj, none, "source", "startup", "model", "claude-opus-4-8")); err != nil {
			return err
		}
	}
	var log bytes.Buffer
	for i := 0; i < broadcasts; i++ {
		// The event log's line format ({"ts","from","type","msg"}, registry.ParseEvent).
		ev := struct {
			Time string `json:"ts"`
			From string `json:"from"`
			Type string `json:"type"`
			Msg  string `json:"msg"`
		}{
			Time: f.now.Add(-time.Duration(broadcasts-i) * 5 * time.Second).UTC().Format(time.RFC3339),
			From: fmt.Sprintf("%s%d", otherPrefix, 1+r.IntN(otherSessions)),
			Type: registry.TypeBroadcast,
			Msg:  fmt.Sprintf("Heads-up %d: I changed the %s in the %s; rebase before touching the %s.", i, word(), word(), word()),
		}
		line, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		log.Write(line)
		log.WriteByte('\n')
	}
	ef, err := os.OpenFile(filepath.Join(f.proj, registry.EventsFile), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := ef.Write(log.Bytes()); err != nil {
		return err
	}
	if err := ef.Close(); err != nil {
		return err
	}
	// Another session on the branch ended earlier and left a hand-off: SessionStart at startup
	// points to it. (Before the bench session registers: it has seen that session end.) Its
	// transcript is where Claude Code keeps it, in the config directory: the pointer names only a
	// session this machine ran.
	other := filepath.Join(f.conf, "projects", project.Slug(f.proj), otherPrefix+"1.jsonl")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(other, []byte(`{"type":"user","message":{"role":"user","content":"Refactor the lexer's state into a struct"}}`+"\n"+
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"src/lexer.go","old_string":"a","new_string":"b"}}]}}`+"\n"), 0o644); err != nil {
		return err
	}
	if _, err := f.hook("sessionend", payload("SessionEnd", otherPrefix+"1", f.proj, other, "reason", "prompt_input_exit")); err != nil {
		return err
	}
	if _, err := f.hook("sessionstart", payload("SessionStart", benchSession, f.proj, none, "source", "startup", "model", "claude-opus-4-8")); err != nil {
		return err
	}

	// 10 parked items through the CLI, then dated over the last 25 days (two of them stale).
	kinds := []string{"deferred", "question", "side"}
	for i := 0; i < parkedBullets; i++ {
		idea := fmt.Sprintf("the %s %s for item %d", word(), word(), i+1)
		if err := f.cairn([]string{"CLAUDE_CODE_SESSION_ID=" + benchSession}, "session", "park", kinds[i%3], idea,
			fmt.Sprintf("we were fixing the %s", word()), "--why", "It came up mid-task.", "--how", "Ask whether it is still wanted."); err != nil {
			return err
		}
	}
	ages := []int{0, 0, 1, 2, 4, 7, 11, 15, 20, 25}
	ctxPath := filepath.Join(f.proj, ".claude/state/session-context.md")
	data, err := os.ReadFile(ctxPath)
	if err != nil {
		return err
	}
	i := 0
	data = raisedRe.ReplaceAllFunc(data, func(m []byte) []byte {
		age := ages[min(i, len(ages)-1)]
		i++
		return []byte("Raised: " + f.now.AddDate(0, 0, -age).Format("2006-01-02"))
	})
	if i != parkedBullets {
		return fmt.Errorf("session-context.md: %d bullets, want %d", i, parkedBullets)
	}
	if err := os.WriteFile(ctxPath, data, 0o644); err != nil {
		return err
	}

	// 100 legacy session-open-*.md files of the original /session workflow, aged 0 to 28 days
	// by mtime.
	for i := 0; i < legacyFiles; i++ {
		age := i % 29
		slug := fmt.Sprintf("legacy-%03d-%s-%s", i, word(), word())
		if i == 42 {
			f.archiveTarget = slug
		}
		mt := f.now.AddDate(0, 0, -age)
		name := fmt.Sprintf("session-open-%s-%s.md", slug, mt.Format("2006-01-02"))
		body := fmt.Sprintf("---\nname: %s\ndescription: Deferred: the %s of the %s. Context: we were busy with the %s.\ntype: project\n---\n\n"+
			"Deferred: the %s of the %s.\n\n**Why:** It came up while fixing the %s.\n**How to apply:** Ask whether the %s still needs it.\n",
			slug, word(), word(), word(), word(), word(), word(), word())
		p := filepath.Join(f.memDir, name)
		if err := writeFile(p, body); err != nil {
			return err
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			return err
		}
	}

	// The contenders' scripts.
	if err := writeAlternatives(f.alt); err != nil {
		return err
	}
	f.base, err = takeSnapshot(f.proj, f.home)
	return err
}

var raisedRe = regexp.MustCompile(`Raised: \d{4}-\d{2}-\d{2}`)

// sizeFiles are the transcripts of one size: T is read by PreCompact, UserPromptSubmit,
// SessionEnd and the Python and Node hooks; C is T and one more line, the transcript of an
// earlier compaction of the same session, which SessionStart(compact) reads.
type sizeFiles struct {
	label   string
	T, C, E string
	opts    transcripttest.Options
	edited  []string // the files T edits after its last boundary, relative to the project
}

// transcriptsFor generates the transcripts of one size.
func (f *fixture) transcriptsFor(sz sizeSpec) (*sizeFiles, error) {
	if s, ok := f.generatedSizes[sz.label]; ok {
		return s, nil
	}
	s := &sizeFiles{
		label: sz.label,
		T:     filepath.Join(f.transcripts, "T-"+sz.label+".jsonl"),
		C:     filepath.Join(f.transcripts, "C-"+sz.label+".jsonl"),
		E:     filepath.Join(f.transcripts, "E-"+sz.label+".jsonl"),
		opts:  transcripttest.Options{Size: sz.size, LongLine: sz.line, Boundaries: 3, Seed: 1, Root: f.proj},
	}
	start := time.Now()
	truth, err := transcripttest.WriteFile(s.T, s.opts)
	if err != nil {
		return nil, err
	}
	f.transcriptSeconds += time.Since(start).Seconds()
	for _, e := range truth.Edited {
		if rel, err := filepath.Rel(f.proj, e); err == nil && !strings.HasPrefix(rel, "..") {
			s.edited = append(s.edited, filepath.ToSlash(rel))
		}
	}
	// C is T and one more line, so that the PreCompact recorded on C is another compaction
	// than a PreCompact on T.
	if err := copyFile(s.C, s.T); err != nil {
		return nil, err
	}
	extra := `{"parentUuid":"ffffffff-0000-4000-8000-000000000000","isSidechain":false,"userType":"external","cwd":"` + f.proj +
		`","sessionId":"3f0c2a9e-5d1b-4c7e-9a2f-6b8d0e1f2a3b","version":"2.1.240","gitBranch":"main","type":"system","subtype":"turn_duration","durationMs":5123,"isMeta":false,"uuid":"ffffffff-0000-4000-8000-00000000000f","timestamp":"2026-09-30T11:59:00.000Z"}` + "\n"
	if err := appendTo(s.C, extra); err != nil {
		return nil, err
	}
	// E is C and a turn after the compaction, the transcript a session ends on: a transcript
	// only grows, so SessionEnd reads one at least as long as the one its last PreCompact
	// recorded (C). A SessionEnd on T, shorter than that, is a transcript rewritten since (the
	// sessionend-shrunk row): the offsets the checkpoint recorded cannot be trusted there.
	if err := copyFile(s.E, s.C); err != nil {
		return nil, err
	}
	line := func(typ, parent, uuid, ts, message string) string {
		return `{"parentUuid":"` + parent + `","isSidechain":false,"userType":"external","cwd":"` + f.proj +
			`","sessionId":"3f0c2a9e-5d1b-4c7e-9a2f-6b8d0e1f2a3b","version":"2.1.240","gitBranch":"main","type":"` + typ +
			`","message":` + message + `,"uuid":"` + uuid + `","timestamp":"` + ts + `"}` + "\n"
	}
	turn := line("user", "ffffffff-0000-4000-8000-00000000000f", "ffffffff-0000-4000-8000-000000000010", "2026-09-30T12:00:00.000Z",
		`{"role":"user","content":"Now run the lexer tests again and tell me what still fails."}`) +
		line("assistant", "ffffffff-0000-4000-8000-000000000010", "ffffffff-0000-4000-8000-000000000011", "2026-09-30T12:00:04.000Z",
			`{"model":"claude-opus-4-8","id":"msg_after","type":"message","role":"assistant","content":[{"type":"text","text":"They pass now; nothing still fails."}],"stop_reason":"end_turn","stop_sequence":null}`)
	if err := appendTo(s.E, turn); err != nil {
		return nil, err
	}
	f.log("fixture: transcript %s: %.1f MiB (%s)", sz.label, float64(truth.Size)/(1<<20), time.Since(start).Round(time.Millisecond))
	f.generatedSizes[sz.label] = s
	return s, nil
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func appendTo(path, text string) error {
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := fh.WriteString(text); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// states are the fixture states one size's contenders start from.
type states struct {
	// standard: the project as built, after a PreCompact of this session on C: SessionStart
	// compact with C then finds that PreCompact ran.
	standard *snapshot
	// missed: the project as built, no PreCompact recorded: SessionStart compact must repair.
	missed *snapshot
	// afterPreCompact: standard, then PreCompact on T: a second PreCompact for the same
	// compaction (Claude Code fires it 2–4 times) finds its event recorded.
	afterPreCompact *snapshot
	// expired: standard with every parked item 40 days old: SessionEnd's worst state (110
	// items to delete and log).
	expired *snapshot
	// unseen: standard and 3 broadcasts from another session since the bench session's last
	// prompt.
	unseen *snapshot
	// room: standard without the legacy files and with 9 parked items, so that automatic
	// parking writes a bullet instead of being refused by the pollution guard.
	room *snapshot
	// noRun: standard without an active run: SessionStart(compact) hands back the compaction's
	// checkpoint instead of the whiteboard.
	noRun *snapshot
	// handedOff: standard after the bench session's SessionEnd left its hand-off: a second
	// SessionEnd finds nothing new to hand off.
	handedOff *snapshot
	// sessions200: standard with the registry at its cap of 200 sessions: 192 more over the last
	// 29 days, most of them ended (by SessionEnd, or as orphans when the next one registered), as
	// about seven sessions a day leave it within the 30-day keep.
	sessions200 *snapshot
	// claims: sessions200 with 2,000 file claims of its past sessions, a live claim of another
	// session on conflictFile (whose transcript, 2 MiB, holds its user's requests) and the bench
	// session's own claim on ownFile: the state PreToolUse runs in.
	claims *snapshot
}

// Files of the claims state (states.claims).
const (
	claimFiles   = 2000
	conflictFile = "src/parser/lexer.go"  // claimed by the fixture's holder, live
	ownFile      = "src/parser/parser.go" // claimed by the bench session
)

// statesFor builds the states for one size, from the base snapshot.
func (f *fixture) statesFor(s *sizeFiles) (*states, error) {
	st := &states{}
	roots := []string{f.proj, f.home}
	restoreBase := func() error { _, err := f.base.restore(nil); return err }
	if err := restoreBase(); err != nil {
		return nil, err
	}
	// The bench session claimed each file it edited, as PreToolUse does before every edit: what
	// a compaction reads instead of the whole stretch since the last one (package compaction).
	if err := f.claimEdits(s); err != nil {
		return nil, err
	}
	var err error
	if st.missed, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}
	// PreCompact records C's length. Claude Code (2.1.332, testscripts/e2e/FINDINGS.md) runs
	// SessionStart(compact) before it writes the compaction's boundary, so the transcript
	// SessionStart sees is C as PreCompact saw it.
	if _, err := f.hook("precompact", payload("PreCompact", benchSession, f.proj, s.C, "trigger", "auto", "custom_instructions", "null")); err != nil {
		return nil, err
	}
	if st.standard, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	if _, err := f.hook("precompact", payload("PreCompact", benchSession, f.proj, s.T, "trigger", "auto", "custom_instructions", "null")); err != nil {
		return nil, err
	}
	if st.afterPreCompact, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	// expired: every bullet raised 40 days ago, every legacy file modified 40 days ago.
	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	old := f.now.AddDate(0, 0, -40)
	ctxPath := filepath.Join(f.proj, ".claude/state/session-context.md")
	data, err := os.ReadFile(ctxPath)
	if err != nil {
		return nil, err
	}
	data = raisedRe.ReplaceAll(data, []byte("Raised: "+old.Format("2006-01-02")))
	if err := os.WriteFile(ctxPath, data, 0o644); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(f.memDir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := os.Chtimes(filepath.Join(f.memDir, e.Name()), old, old); err != nil {
			return nil, err
		}
	}
	if st.expired, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	// unseen: three broadcasts after the bench session's cursor.
	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	for i := 1; i <= 3; i++ {
		if err := f.cairn([]string{"CLAUDE_CODE_SESSION_ID=" + otherPrefix + "2"}, "session", "broadcast",
			fmt.Sprintf("Unseen %d: the parser's public API changed; rebase before touching src/parser.", i)); err != nil {
			return nil, err
		}
	}
	if st.unseen, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	// room: no legacy files, 9 bullets.
	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(f.memDir); err != nil {
		return nil, err
	}
	data, err = os.ReadFile(ctxPath)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "- **") {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	if err := os.WriteFile(ctxPath, []byte(strings.Join(lines, "")), 0o644); err != nil {
		return nil, err
	}
	if st.room, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	// noRun: no active run.
	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Join(f.proj, ".agents/runs/active")); err != nil {
		return nil, err
	}
	if st.noRun, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	// handedOff: the bench session ended once already.
	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	if _, err := f.hook("sessionend", payload("SessionEnd", benchSession, f.proj, s.E, "reason", "prompt_input_exit")); err != nil {
		return nil, err
	}
	if st.handedOff, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	// sessions200: 192 past sessions, then one prompt of the bench session, which moves its
	// cursor past their lines in the event log (as its next prompt would).
	if _, err := st.standard.restore(nil); err != nil {
		return nil, err
	}
	if err := f.pastSessions(registryCap - 1 - otherSessions); err != nil {
		return nil, err
	}
	if _, err := f.hook("userpromptsubmit", payload("UserPromptSubmit", benchSession, f.proj, s.T, "prompt", "Yes.")); err != nil {
		return nil, err
	}
	if st.sessions200, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}

	// claims: on top of sessions200.
	if err := f.claims(); err != nil {
		return nil, err
	}
	if st.claims, err = takeSnapshot(roots...); err != nil {
		return nil, err
	}
	return st, nil
}

// claims records the claims of the claims state through package claims itself, at the fixture's
// clock: 2,000 paths claimed by the registry's past sessions, conflictFile by another session the
// registry holds as active (f.holder, with a transcript of its own) and ownFile by the bench
// session.
// claimEdits records the bench session's claims on the files s's transcript edits (PreToolUse's
// record: the list a compaction reads).
func (f *fixture) claimEdits(s *sizeFiles) error {
	// A restore removes and makes directories again: the trees this process holds open are let go
	// (safefile.Release), or a write would land in a directory that is gone.
	safefile.Release()
	world := &project.Project{Root: f.proj, Config: f.conf, Files: safefile.Disk{Roots: []string{f.proj}},
		Now: func() time.Time { return f.now }, Warn: func(string, ...any) {}}
	store := claims.Open(world, registry.Open(world))
	for i := len(s.edited) - 1; i >= 0; i-- { // oldest first, as they were edited
		if _, err := store.Record(benchSession, s.edited[i]); err != nil {
			return err
		}
	}
	return nil
}

func (f *fixture) claims() error {
	world := &project.Project{Root: f.proj, Config: f.conf, Files: safefile.Disk{Roots: []string{f.proj}},
		Now: func() time.Time { return f.now }, Warn: func(string, ...any) {}}
	ss, err := registry.Open(world).Sessions()
	if err != nil || len(ss) == 0 {
		return fmt.Errorf("claims: the registry: %d sessions, %v", len(ss), err)
	}
	for _, s := range ss {
		if s.Status == registry.StatusActive && s.ID != benchSession && f.holder == "" {
			f.holder = s.ID
		}
	}
	if f.holder == "" {
		return fmt.Errorf("claims: no other active session in the registry")
	}
	store := claims.Open(world, registry.Open(world))
	for i := 0; i < claimFiles; i++ {
		if _, err := store.Record(ss[i%len(ss)].ID, fmt.Sprintf("pkg/gen/file%04d.go", i)); err != nil {
			return err
		}
	}
	for sid, rel := range map[string]string{f.holder: conflictFile, benchSession: ownFile} {
		if _, err := store.Record(sid, rel); err != nil {
			return err
		}
	}
	tr := filepath.Join(f.conf, "projects", project.Slug(f.proj), f.holder+".jsonl")
	_, err = transcripttest.WriteFile(tr, transcripttest.Options{Size: 2 << 20, Seed: 11, Root: f.proj})
	return err
}

// registryCap is the most sessions the registry keeps (pkg/registry's maxSessions).
const registryCap = 200

// pastSessions registers n sessions of the last 29 days through the registry itself, which
// takes the clock as a value (the hooks read the real one): three in four of them end by
// SessionEnd after 40 minutes, and the others are marked ended as orphans by the next one.
func (f *fixture) pastSessions(n int) error {
	reg := registry.Open(&project.Project{Root: f.proj, Files: safefile.Disk{Roots: []string{f.proj}}})
	first := f.now.Add(-29 * 24 * time.Hour)
	step := 29 * 24 * time.Hour / time.Duration(n+1)
	for i := 0; i < n; i++ {
		at := first.Add(time.Duration(i) * step)
		sid := fmt.Sprintf("%08x-7a3c-4d1e-9b2f-%012x", 0x5e5510e0+i, 0xc0ffee000+i)
		if err := reg.Register(sid, "main", at); err != nil {
			return err
		}
		if i%4 != 3 {
			if err := reg.End(sid, at.Add(40*time.Minute)); err != nil {
				return err
			}
		}
	}
	ss, err := reg.Sessions()
	if err != nil {
		return err
	}
	if len(ss) != registryCap {
		return fmt.Errorf("the registry holds %d sessions, want %d", len(ss), registryCap)
	}
	return nil
}
