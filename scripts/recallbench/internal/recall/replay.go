package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/claims"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Seen is what one moment put in front of the model, and what it could have asked for.
type Seen struct {
	Moment  string `json:"moment"`
	Index   int    `json:"index"`   // the compaction's number in the session (1, 2, …); 0 for the others
	Facts   []Fact `json:"facts"`   // what holds at this moment
	Summary string `json:"summary"` // Claude Code's summary, as Claude sees it (after a compaction only)
	Context string `json:"context"` // cairn's SessionStart additionalContext
	// Asked is what `cairn session resume` lists at this moment: the parked items Claude gets
	// when the user asks for them.
	Asked string `json:"asked"`
	// Restored is what `cairn context restore NAME` prints for the checkpoint the context names,
	// "" when it names none: what Claude gets if it follows cairn's pointer.
	Restored string `json:"restored"`
}

// Played is one session's replay.
type Played struct {
	Session *Session `json:"-"`
	Bytes   int64    `json:"bytes"` // the transcript's final size
	Seen    []Seen   `json:"seen"`
	// Stderr holds what any hook or command wrote on stderr: cairn's hooks are silent when all
	// is well, so each line is a finding.
	Stderr []string `json:"stderr,omitempty"`
	// Claimed is how many files the session held claims on when each of its compactions began,
	// summed: the claims PreToolUse records before each edit are what let a compaction bound its
	// read of the transcript (package compaction), as it does in a real session.
	Claimed int `json:"claimed"`
}

// Machine is the fake machine sessions are replayed on: cairn's built binaries, one HOME whose
// Claude Code config directory every project shares (so that every other session is another
// project's, a negative control), and a directory for the projects.
type Machine struct {
	Bin  string // holds sessionstart, userpromptsubmit, pretooluse, precompact, postcompact, sessionend, cairn
	Work string
	Now  time.Time // the real clock when the run started: parked items' dates are relative to it
	// Project, when set, is the one project every session is replayed in, each on the branch
	// its Session names: a shared history, whose checkpoints retention prunes as they pile up
	// (scripts/recallbench's held-out test). Otherwise each session has a project of its own.
	Project string
}

func (m *Machine) home() string   { return filepath.Join(m.Work, "home") }
func (m *Machine) config() string { return filepath.Join(m.home(), ".claude") }

// slug is Claude Code's name for a project's transcript directory: the path with every byte that
// is not a letter or a digit replaced by '-'.
func slug(path string) string {
	b := []byte(path)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// replay is one session being played.
type replay struct {
	m          *Machine
	s          *Session
	ctx        context.Context
	root       string
	tdir       string // <config>/projects/<slug>
	sid        string // the session being played
	tpath      string
	l          *liner
	msgs       int
	out        Played
	skipUPS    int // the step whose UserPromptSubmit already ran (an automatic compaction's prompt)
	lastPrompt string
}

// Replay plays session s on m: a git repository as the project, the transcript appended as the
// session goes so that each hook sees the file as it would be at that moment, and the hook events
// in the order Claude Code sends them (testscripts/e2e/FINDINGS.md §b, §i): SessionStart(startup),
// UserPromptSubmit per prompt, PreCompact, SessionStart(compact), PostCompact, the boundary, more
// turns, SessionEnd(clear), SessionStart(clear) in a new session, SessionEnd(other), and the next
// session's SessionStart(startup).
func Replay(ctx context.Context, m *Machine, s *Session) (Played, error) {
	r := &replay{m: m, s: s, ctx: ctx, skipUPS: -1, out: Played{Session: s}}
	r.root = filepath.Join(m.Work, "projects", s.Token, "app")
	if m.Project != "" {
		r.root = m.Project
	}
	r.tdir = filepath.Join(m.config(), "projects", slug(r.root))
	r.sid = s.ID
	r.tpath = filepath.Join(r.tdir, r.sid+".jsonl")
	r.l = &liner{sid: s.ID, cwd: r.root, branch: s.Branch, clock: m.Now.Add(-3 * time.Hour)}
	if err := r.setup(); err != nil {
		return r.out, err
	}
	r.hook("sessionstart", r.payload("SessionStart", kv{"source", "startup"}))
	compactions := 0
	for i, st := range s.Steps {
		if err := ctx.Err(); err != nil {
			return r.out, err
		}
		switch st.Kind {
		case "compact":
			compactions++
			if st.Trigger == "auto" && i+1 < len(s.Steps) && s.Steps[i+1].Kind == "prompt" {
				// An automatic compaction runs after the prompt's UserPromptSubmit, before the
				// prompt is sent (FINDINGS §b).
				r.ups(s.Steps[i+1].Text)
				r.skipUPS = i + 1
			}
			r.compact(st, compactions)
		case "clear":
			r.clear(st)
		default:
			if err := r.step(i, st); err != nil {
				return r.out, err
			}
		}
	}
	return r.out, nil
}

// setup makes the project: a git repository on the session's branch with a first commit, the
// parked item that has expired and the one archived before the session.
func (r *replay) setup() error {
	if err := os.MkdirAll(filepath.Join(r.root, "internal", r.s.Token), 0o755); err != nil {
		return err
	}
	os.MkdirAll(r.tdir, 0o700)
	os.MkdirAll(filepath.Join(r.m.Work, "tmp"), 0o700)
	os.WriteFile(filepath.Join(r.root, "go.mod"), []byte("module github.com/acme/app\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(r.root, "internal", r.s.Token, "parse.go"), []byte("package "+r.s.Token+"\n"), 0o644)
	steps := [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "initial commit"}, {"checkout", "-q", "-B", r.s.Branch}}
	if _, err := os.Stat(filepath.Join(r.root, ".git")); err == nil {
		// A shared project: the session starts on its branch, made where the last one ended.
		steps = [][]string{{"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "before " + r.s.Token}, {"checkout", "-q", "-B", r.s.Branch}}
	}
	for _, g := range steps {
		if err := r.git(g...); err != nil {
			return err
		}
	}
	state := filepath.Join(r.root, ".claude", "state")
	os.MkdirAll(state, 0o755)
	old := r.m.Now.AddDate(0, 0, -35).Format("2006-01-02")
	item := fmt.Sprintf("# Session context\n\n## Parked items\n\n- **old-%s-archive** — Deferred: %s. Context: raised in an old session. Raised: %s.\n", r.s.Token, r.s.Expired.Needle, old)
	if err := os.WriteFile(filepath.Join(state, "session-context.md"), []byte(item), 0o644); err != nil {
		return err
	}
	// The archived item is parked and archived through the CLI, as a user would, before the
	// session starts (so before the expired one is swept).
	r.cli("session", "park", "deferred", r.s.Archived.Needle, "raised in an earlier session")
	r.cli("session", "archive", r.s.Archived.Needle)
	return nil
}

func (r *replay) env(sid string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.m.home(),
		"CLAUDE_CONFIG_DIR=" + r.m.config(),
		"CLAUDE_PROJECT_DIR=" + r.root,
		"CLAUDE_CODE_SESSION_ID=" + sid,
		"TMPDIR=" + filepath.Join(r.m.Work, "tmp"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com",
	}
}

func (r *replay) git(args ...string) error {
	cmd := exec.CommandContext(r.ctx, "git", args...)
	cmd.Dir, cmd.Env = r.root, r.env(r.sid)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// run runs one of cairn's binaries in the project and returns its stdout; stderr is a finding.
func (r *replay) run(name string, stdin []byte, args ...string) string {
	cmd := exec.CommandContext(r.ctx, filepath.Join(r.m.Bin, name), args...)
	cmd.Dir, cmd.Env = r.root, r.env(r.sid)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errOut
	err := cmd.Run()
	if err != nil || errOut.Len() > 0 {
		msg := strings.TrimSpace(errOut.String())
		if err != nil {
			msg += fmt.Sprintf(" (%v)", err)
		}
		r.out.Stderr = append(r.out.Stderr, fmt.Sprintf("%s %s: %s", name, strings.Join(args, " "), msg))
	}
	return out.String()
}

func (r *replay) cli(args ...string) string { return r.run("cairn", nil, args...) }

// hook runs a hook with payload and returns the context it gives Claude: the
// hookSpecificOutput.additionalContext of its stdout.
func (r *replay) hook(name string, payload obj) string {
	r.flush()
	data, _ := json.Marshal(payload)
	out := r.run(name, data)
	if strings.TrimSpace(out) == "" {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		r.out.Stderr = append(r.out.Stderr, fmt.Sprintf("%s: stdout is not JSON: %.200q", name, out))
		return ""
	}
	return v.HookSpecificOutput.AdditionalContext
}

func (r *replay) payload(event string, extra ...kv) obj {
	o := obj{{"session_id", r.sid}, {"transcript_path", r.tpath}, {"cwd", r.root}, {"hook_event_name", event}}
	return append(o, extra...)
}

// flush appends what the session wrote since the last hook to its transcript.
func (r *replay) flush() {
	if r.l.out.Len() == 0 {
		return
	}
	f, err := os.OpenFile(r.tpath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		n, _ := f.WriteString(r.l.out.String())
		r.out.Bytes += int64(n)
		f.Close()
	}
	r.l.out.Reset()
}

func (r *replay) msgID() string {
	r.msgs++
	return fmt.Sprintf("msg_%s%06d", strings.ReplaceAll(r.sid[:13], "-", ""), r.msgs)
}

func (r *replay) ups(prompt string) {
	r.hook("userpromptsubmit", r.payload("UserPromptSubmit", kv{"prompt_id", r.l.id("p")}, kv{"permission_mode", "acceptEdits"}, kv{"prompt", prompt}))
}

func (r *replay) abs(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

// touch changes a file of the project for real, so that git sees the edit.
func (r *replay) touch(rel string) {
	p := r.abs(rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		fmt.Fprintf(f, "// edit %d\n", r.msgs)
		f.Close()
	}
}

func (r *replay) step(i int, st Step) error {
	l := r.l
	switch st.Kind {
	case "prompt":
		if i != r.skipUPS {
			r.ups(st.Text)
		}
		l.prompt(st.Text)
		r.lastPrompt = st.Text
	case "text":
		l.text(r.msgID(), st.Text, false)
	case "edit", "write", "multiedit":
		r.edit(st.Kind, st.Path, false)
	case "bash":
		// PreToolUse runs before every tool call (cairn's hook has no matcher); before a shell
		// command it notes where the transcript stands.
		r.hook("pretooluse", r.payload("PreToolUse", kv{"permission_mode", "acceptEdits"}, kv{"tool_name", "Bash"},
			kv{"tool_input", obj{{"command", st.Cmd}, {"description", "Run " + strings.Fields(st.Cmd)[0]}}}, kv{"tool_use_id", l.nextID("toolu_")}))
		l.bash(r.msgID(), st.Cmd, "Run "+strings.Fields(st.Cmd)[0], st.Exit, st.Out)
		switch {
		case len(st.Git) == 2 && st.Git[0] == "commit":
			if err := r.git("add", "-A"); err != nil {
				return err
			}
			if err := r.git("commit", "-q", "--allow-empty", "-m", st.Git[1]); err != nil {
				return err
			}
		case len(st.Git) == 2 && st.Git[0] == "checkout":
			if err := r.git("checkout", "-q", "-b", st.Git[1]); err != nil {
				return err
			}
			l.branch = st.Git[1]
		}
	case "todo":
		id := l.toolUse(r.msgID(), "TodoWrite", obj{{"todos", st.Todos}}, false)
		l.result(id, "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable", false,
			obj{{"oldTodos", []Todo{}}, {"newTodos", st.Todos}}, false)
	case "taskcreate", "taskupdate":
		return r.task(st)
	case "subagent":
		id := l.toolUse(r.msgID(), "Task", obj{{"description", "Generate fixtures"}, {"prompt", "Generate the test fixtures."}, {"subagent_type", "general-purpose"}}, false)
		main := l.parent
		l.message("user", obj{{"role", "user"}, {"content", "Generate the test fixtures."}}, true)
		for _, p := range st.Paths {
			r.edit("write", p, true)
		}
		l.text(r.msgID(), fmt.Sprintf("Generated %d fixture files.", len(st.Paths)), true)
		l.parent = main
		l.result(id, fmt.Sprintf("Generated %d fixture files.", len(st.Paths)), false, obj{{"status", "completed"}}, false)
	case "filler":
		l.bookkeeping(r.lastPrompt)
		if n := int64(st.Size) - r.out.Bytes - int64(l.out.Len()); n > 0 {
			l.filler(int(n), fillerText)
		}
	}
	return nil
}

// edit writes an Edit, Write or MultiEdit tool use on rel and its result, and changes the file.
// PreToolUse runs before it, as before every tool call: it records the session's claim on the
// file (a subagent's call carries its agent_id), which lets a compaction bound its read of the
// transcript as it does in a real session.
func (r *replay) edit(kind, rel string, sidechain bool) {
	l, p := r.l, r.abs(rel)
	r.touch(rel)
	var (
		tool   string
		input  obj
		answer string
		result obj
	)
	switch kind {
	case "write":
		tool, input = "Write", obj{{"file_path", p}, {"content", "package x\n"}}
		answer, result = "File created successfully at: "+p, obj{{"type", "create"}, {"filePath", p}, {"content", "package x\n"}}
	case "multiedit":
		tool, input = "MultiEdit", obj{{"file_path", p}, {"edits", []obj{{{"old_string", "a"}, {"new_string", "b"}}, {{"old_string", "c"}, {"new_string", "d"}}}}}
		answer, result = "Applied 2 edits to "+p, obj{{"filePath", p}, {"edits", 2}}
	default:
		tool, input = "Edit", obj{{"file_path", p}, {"old_string", "x := 1"}, {"new_string", "x := 2"}, {"replace_all", false}}
		answer, result = "The file "+p+" has been updated successfully.", obj{{"filePath", p}, {"oldString", "x := 1"}, {"newString", "x := 2"}, {"replaceAll", false}, {"userModified", false}}
	}
	pre := []kv{{"permission_mode", "acceptEdits"}, {"tool_name", tool}, {"tool_input", input}, {"tool_use_id", l.nextID("toolu_")}}
	if sidechain {
		pre = append(pre, kv{"agent_id", "a" + r.sid[:8]})
	}
	r.hook("pretooluse", r.payload("PreToolUse", pre...))
	id := l.toolUse(r.msgID(), tool, input, sidechain)
	l.result(id, answer, false, result, sidechain)
}

// claimed is how many files the session holds claims on in its project, read as a compaction
// reads them (claims.Store.Paths).
func (r *replay) claimed() int {
	p := &project.Project{Root: r.root, Config: r.m.config(), Files: safefile.Disk{Roots: []string{r.root}}, Now: time.Now}
	return len(claims.Open(p, nil).Paths(r.sid, 1<<16))
}

// task writes a TaskCreate or TaskUpdate tool use and the task file Claude Code keeps for it
// (<config>/tasks/<session>/<id>.json, FINDINGS §e).
func (r *replay) task(st Step) error {
	l, t := r.l, st.Task
	dir := filepath.Join(r.m.config(), "tasks", r.sid)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(dir, ".lock"), nil, 0o600)
	if st.Kind == "taskcreate" {
		id := l.toolUse(r.msgID(), "TaskCreate", obj{{"subject", t.Subject}, {"description", t.Subject + "."}}, false)
		l.result(id, fmt.Sprintf("Task #%s created successfully: %s", t.ID, t.Subject), false,
			obj{{"task", obj{{"id", t.ID}, {"subject", t.Subject}, {"description", t.Subject + "."}}}}, false)
	} else {
		id := l.toolUse(r.msgID(), "TaskUpdate", obj{{"taskId", t.ID}, {"status", t.Status}}, false)
		l.result(id, fmt.Sprintf("Updated task #%s status", t.ID), false,
			obj{{"taskId", t.ID}, {"success", true}, {"updatedFields", []string{"status"}}}, false)
	}
	data, _ := json.Marshal(obj{{"id", t.ID}, {"subject", t.Subject}, {"description", t.Subject + "."}, {"status", t.Status}, {"blocks", []string{}}, {"blockedBy", []string{}}})
	return os.WriteFile(filepath.Join(dir, t.ID+".json"), data, 0o600)
}

// restoreName finds the checkpoint a context tells Claude to load.
var restoreName = regexp.MustCompile("`/context-restore ([^`\\s]+)`")

// look records a moment: the context, what the parked list says and what the named checkpoint
// restores.
func (r *replay) look(moment string, index int, facts []Fact, summary, context string) {
	seen := Seen{Moment: moment, Index: index, Facts: facts, Summary: summary, Context: context}
	seen.Asked = r.cli("session", "resume")
	if m := restoreName.FindStringSubmatch(context); m != nil {
		seen.Restored = r.cli("context", "restore", m[1])
	}
	r.out.Seen = append(r.out.Seen, seen)
}

func (r *replay) compact(st Step, n int) {
	pid := r.l.id("p")
	r.out.Claimed += r.claimed()
	r.hook("precompact", r.payload("PreCompact", kv{"prompt_id", pid}, kv{"trigger", st.Trigger}, kv{"custom_instructions", nil}))
	// SessionStart(compact) sees a few more bookkeeping lines than PreCompact did, and still no
	// boundary (FINDINGS §c).
	r.l.emit(obj{{"type", "mode"}, {"mode", "normal"}, {"sessionId", r.sid}})
	r.l.emit(obj{{"type", "atis-latch"}, {"atis", ""}, {"sessionId", r.sid}})
	ctx := r.hook("sessionstart", r.payload("SessionStart", kv{"prompt_id", pid}, kv{"source", "compact"}, kv{"model", "claude-opus-5-5"}))
	r.hook("postcompact", r.payload("PostCompact", kv{"prompt_id", pid}, kv{"trigger", st.Trigger}, kv{"compact_summary", st.Payload}))
	r.l.boundary(st.Trigger, st.Text)
	r.flush()
	r.look(AfterCompaction, n, st.Facts, ContinuationPreamble+st.Text, ctx)
}

// clear is /clear and what follows: SessionEnd(clear), SessionStart(clear) in a new session that
// does nothing and ends (SessionEnd(other)), then the next session's SessionStart(startup).
func (r *replay) clear(st Step) {
	r.hook("sessionend", r.payload("SessionEnd", kv{"prompt_id", r.l.id("p")}, kv{"reason", "clear"}))
	r.newSession(2)
	ctx := r.hook("sessionstart", r.payload("SessionStart", kv{"source", "clear"}))
	r.look(AfterClear, 0, st.Facts, "", ctx)
	r.hook("sessionend", r.payload("SessionEnd", kv{"reason", "other"}))
	r.newSession(3)
	ctx = r.hook("sessionstart", r.payload("SessionStart", kv{"source", "startup"}))
	r.look(NextStartup, 0, st.Facts, "", ctx)
	r.hook("sessionend", r.payload("SessionEnd", kv{"reason", "other"}))
}

// newSession switches to the session's n-th successor id.
func (r *replay) newSession(n int) {
	r.flush()
	r.sid = fmt.Sprintf("%s%012x", r.s.ID[:24], n)
	r.tpath = filepath.Join(r.tdir, r.sid+".jsonl")
}
