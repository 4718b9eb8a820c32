//go:build unix

package e2e

// End-to-end tests that prove the harness with plain shell-script hooks
// (recorderScript) and pin down what the pinned Claude Code version does:
// see FINDINGS.md. Run with:
//
//	CAIRN_E2E=1 go test ./testscripts/e2e/ -run . -v -count=1
//
// CAIRN_E2E_UPDATE=1 additionally rewrites the samples under testdata/.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/testscripts/e2e/mockapi"
)

// allEventHooks registers the recorder for the four cairn events, each in
// shell form (label *-shell) and exec form (label *-exec).
func allEventHooks(rec *recorder) hooksConfig {
	h := hooksConfig{}
	for ev, pre := range map[string]string{
		"SessionStart": "ss", "UserPromptSubmit": "ups", "PreCompact": "pc", "SessionEnd": "se",
	} {
		h[ev] = []hookGroup{{Hooks: []hookCmd{
			// Shell form: sh -c expands $CLAUDE_PROJECT_DIR itself.
			rec.shell(pre+"-shell", `"$CLAUDE_PROJECT_DIR"`),
			// Exec form: an argument with a space, and the ${...}
			// placeholder that Claude Code substitutes.
			rec.exec(pre+"-exec", "two words", "${CLAUDE_PROJECT_DIR}"),
		}}}
	}
	return h
}

func wantPayloads(t *testing.T, rec *recorder, label string, n int) []payload {
	t.Helper()
	ps := rec.payloads(label)
	if len(ps) != n {
		t.Fatalf("hook %s fired %d times, want %d", label, len(ps), n)
	}
	return ps
}

func wantField(t *testing.T, p payload, key, want string) {
	t.Helper()
	if got := p.str(key); got != want {
		t.Errorf("payload %s: %s = %q, want %q\n%s", p.str("hook_event_name"), key, got, want, p.Raw)
	}
}

func keys(p payload) []string {
	var ks []string
	for k := range p.Fields {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func messagesSince(api *mockapi.Server, n int) []mockapi.Request {
	var out []mockapi.Request
	for _, r := range api.Requests()[n:] {
		if r.IsMessages() {
			out = append(out, r)
		}
	}
	return out
}

// TestE2EPrintModeHooks: SessionStart, UserPromptSubmit and SessionEnd in
// -p mode, shell vs exec form, payloads, env, and where hook output lands
// in the next API request.
func TestE2EPrintModeHooks(t *testing.T) {
	requireCap(t, capExecForm) // the recorder runs in both forms
	p := newProject(t)
	rec := newRecorder(t, p)
	p.writeSettings(settingsWithHooks(allEventHooks(rec)))
	api := newMock(t, replies("", mockapi.Text("mock answer")))
	s := p.newSession(api)

	res := s.send("hello from e2e")
	if res.Result != "mock answer" {
		t.Errorf("result = %q, want the mock's text", res.Result)
	}

	// Both forms fire once for each event; PreCompact does not fire.
	for _, form := range []string{"shell", "exec"} {
		ss := wantPayloads(t, rec, "ss-"+form, 1)[0]
		wantField(t, ss, "hook_event_name", "SessionStart")
		wantField(t, ss, "source", "startup")
		wantField(t, ss, "session_id", s.ID)
		wantField(t, ss, "cwd", p.Dir)
		wantField(t, ss, "transcript_path", filepath.Join(p.Home, ".claude", "projects", projectSlug(p.Dir), s.ID+".jsonl"))

		ups := wantPayloads(t, rec, "ups-"+form, 1)[0]
		wantField(t, ups, "hook_event_name", "UserPromptSubmit")
		wantField(t, ups, "prompt", "hello from e2e")
		wantField(t, ups, "permission_mode", "acceptEdits")
		wantField(t, ups, "session_id", s.ID)

		se := wantPayloads(t, rec, "se-"+form, 1)[0]
		wantField(t, se, "hook_event_name", "SessionEnd")
		wantField(t, se, "reason", "other")
		wantPayloads(t, rec, "pc-"+form, 0)

		t.Logf("%s form: SessionStart keys %v", form, keys(ss))
		t.Logf("%s form: UserPromptSubmit keys %v", form, keys(ups))
		t.Logf("%s form: SessionEnd keys %v", form, keys(se))
	}
	// Arguments: exec form passes them verbatim (no word splitting) and
	// substitutes ${CLAUDE_PROJECT_DIR}.
	if got, want := rec.args("ss-exec"), []string{fmt.Sprintf("argc=3 [ss-exec] [two words] [%s]", p.Dir)}; !slices.Equal(got, want) {
		t.Errorf("exec-form args = %q, want %q", got, want)
	}
	if got, want := rec.args("ss-shell"), []string{fmt.Sprintf("argc=2 [ss-shell] [%s]", p.Dir)}; !slices.Equal(got, want) {
		t.Errorf("shell-form args = %q, want %q", got, want)
	}

	// Environment of the hooks.
	for _, label := range []string{"ss-exec", "ups-exec", "se-exec"} {
		env := rec.env(label, 1)
		if env["CLAUDE_CODE_SESSION_ID"] != s.ID {
			t.Errorf("%s: CLAUDE_CODE_SESSION_ID = %q, want %q", label, env["CLAUDE_CODE_SESSION_ID"], s.ID)
		}
		if env["CLAUDE_PROJECT_DIR"] != p.Dir {
			t.Errorf("%s: CLAUDE_PROJECT_DIR = %q, want %q", label, env["CLAUDE_PROJECT_DIR"], p.Dir)
		}
		_, hasEnvFile := env["CLAUDE_ENV_FILE"]
		if hasEnvFile != strings.HasPrefix(label, "ss-") {
			t.Errorf("%s: CLAUDE_ENV_FILE present = %v", label, hasEnvFile)
		}
		var claudeVars []string
		for k := range env {
			if strings.HasPrefix(k, "CLAUDE") {
				claudeVars = append(claudeVars, k)
			}
		}
		slices.Sort(claudeVars)
		t.Logf("%s env: %v", label, claudeVars)
	}

	// One API request; hook output is in it, in a role "system" entry of
	// messages (not in the top-level system prompt).
	reqs := api.MessagesRequests()
	if len(reqs) != 1 {
		t.Fatalf("got %d messages requests, want 1", len(reqs))
	}
	if n := len(api.Requests()); n != 1 && supports(t, capMessagesOnly) {
		t.Errorf("got %d HTTP requests in total, want only the messages call", n)
	}
	req := reqs[0]
	if req.RawQuery != "beta=true" || !req.Messages.Stream {
		t.Errorf("request: query %q stream %v", req.RawQuery, req.Messages.Stream)
	}
	for _, marker := range []string{
		"SessionStart:startup hook success: CAIRN-E2E-SS label=ss-shell source=startup n=1",
		"SessionStart:startup hook success: CAIRN-E2E-SS label=ss-exec source=startup n=1",
		"UserPromptSubmit hook additional context: CAIRN-E2E-UPS label=ups-shell n=1",
		"UserPromptSubmit hook additional context: CAIRN-E2E-UPS label=ups-exec n=1",
	} {
		where := locate(req, marker)
		t.Logf("%q found in %v", marker, where)
		if len(where) != 1 || !strings.Contains(where[0], "role system") {
			t.Errorf("%q: found in %v, want one role-system messages entry", marker, where)
		}
	}
	if got := req.LastText(); !strings.Contains(got, "hello from e2e") {
		t.Errorf("last user text = %q", got)
	}

	// Second turn with --resume: SessionStart(resume) and a new
	// UserPromptSubmit; whose output reaches the model?
	n0 := len(api.Requests())
	s.send("second prompt")
	ss := wantPayloads(t, rec, "ss-exec", 2)[1]
	wantField(t, ss, "source", "resume")
	t.Logf("SessionStart(resume) keys %v", keys(ss))
	wantPayloads(t, rec, "ups-exec", 2)
	wantPayloads(t, rec, "se-exec", 2)
	reqs = messagesSince(api, n0)
	if len(reqs) != 1 {
		t.Fatalf("second turn: %d messages requests, want 1", len(reqs))
	}
	for _, marker := range []string{
		"CAIRN-E2E-SS label=ss-exec source=startup n=1", // replayed from the transcript
		"CAIRN-E2E-SS label=ss-exec source=resume n=2",
		"CAIRN-E2E-UPS label=ups-exec n=1",
		"CAIRN-E2E-UPS label=ups-exec n=2",
	} {
		t.Logf("turn 2: %q found in %v", marker, locate(reqs[0], marker))
		if !reqs[0].Contains(marker) {
			t.Errorf("turn 2 request lacks %q", marker)
		}
	}

	for _, label := range []string{"ss-exec", "ups-exec", "se-exec"} {
		t.Logf("%s: transcript file existed when the hook ran: %v", label, rec.transcriptSeen(label))
	}
	if got := rec.transcriptSeen("se-exec"); len(got) != 2 || !strings.HasPrefix(got[0], "yes") {
		t.Errorf("SessionEnd: transcript existence %v, want it written", got)
	}

	writeTestdata(t, "payloads/SessionStart-startup.json", append(rec.payloads("ss-exec")[0].Raw, '\n'))
	writeTestdata(t, "payloads/SessionStart-resume.json", append(rec.payloads("ss-exec")[1].Raw, '\n'))
	writeTestdata(t, "payloads/UserPromptSubmit.json", append(rec.payloads("ups-exec")[0].Raw, '\n'))
	writeTestdata(t, "payloads/SessionEnd.json", append(rec.payloads("se-exec")[0].Raw, '\n'))
	logTimings(t, s)
}

// TestE2ECompact: `claude -p --resume <id> "/compact ..."` fires
// PreCompact(manual) and SessionStart(compact); what reaches the
// summarisation request and the next turn; the compact_boundary.
func TestE2ECompact(t *testing.T) {
	requireCap(t, capExecForm, capTaskTools)
	t.Run("no-turns", func(t *testing.T) {
		p := newProject(t)
		rec := newRecorder(t, p)
		p.writeSettings(settingsWithHooks(allEventHooks(rec)))
		api := newMock(t, replies("CAIRN-E2E-SUMMARY", mockapi.Text("ok")))
		s := p.newSession(api)
		res := s.send("/compact")
		t.Logf("/compact on an empty session: result %q", res.Result)
		if !strings.Contains(res.Result, "Not enough messages to compact") {
			t.Errorf("result = %q, want the 'Not enough messages' refusal", res.Result)
		}
		// PreCompact still fires, SessionStart(compact) does not.
		wantField(t, wantPayloads(t, rec, "pc-exec", 1)[0], "trigger", "manual")
		for _, ss := range rec.payloads("ss-exec") {
			if ss.str("source") == "compact" {
				t.Errorf("SessionStart(compact) fired although nothing was compacted")
			}
		}
		if n := len(api.MessagesRequests()); n != 0 {
			t.Errorf("%d messages requests, want 0", n)
		}
	})

	p := newProject(t)
	rec := newRecorder(t, p)
	p.writeSettings(settingsWithHooks(allEventHooks(rec)))
	// The first turn uses tools so that the transcript sample has
	// tool_use / tool_result lines before the compact_boundary.
	api := newMock(t, replies("CAIRN-E2E-SUMMARY", mockapi.Text("ok"),
		mockapi.ToolUse("Write", fmt.Sprintf(`{"file_path":%q,"content":"hello\n"}`, filepath.Join(p.Dir, "hello.txt"))),
		mockapi.ToolUse("TaskCreate", `{"subject":"Keep going","description":"A task that survives compaction"}`),
		mockapi.Text("wrote hello.txt"),
	))
	s := p.newSession(api)

	s.send("first turn")
	if _, err := os.Stat(filepath.Join(p.Home, ".claude", "tasks", s.ID, "1.json")); err != nil {
		t.Errorf("task file: %v", err)
	}
	n0 := len(api.Requests())
	res := s.send("/compact keep the CAIRN markers")
	if res.LocalCommand != "compact" && supports(t, capLocalCommand) {
		t.Errorf("result local_command = %q, want compact (%+v)", res.LocalCommand, res)
	}

	// PreCompact: once per hook, manual, with the /compact arguments.
	for _, form := range []string{"shell", "exec"} {
		pc := wantPayloads(t, rec, "pc-"+form, 1)[0]
		wantField(t, pc, "hook_event_name", "PreCompact")
		wantField(t, pc, "trigger", "manual")
		wantField(t, pc, "custom_instructions", "keep the CAIRN markers")
		wantField(t, pc, "session_id", s.ID)
		t.Logf("PreCompact keys %v", keys(pc))
		var sources []string
		for _, ss := range rec.payloads("ss-" + form) {
			sources = append(sources, ss.str("source"))
		}
		if want := []string{"startup", "resume", "compact"}; !slices.Equal(sources, want) {
			t.Errorf("%s: SessionStart sources %v, want %v", form, sources, want)
		}
		// /compact is a local command: no UserPromptSubmit.
		wantPayloads(t, rec, "ups-"+form, 1)
		wantPayloads(t, rec, "se-"+form, 2)
	}
	t.Logf("PreCompact/SessionStart: transcript file existed when the hook ran: %v / %v", rec.transcriptSeen("pc-exec"), rec.transcriptSeen("ss-exec"))
	ssCompact := rec.payloads("ss-exec")[2]
	t.Logf("SessionStart(compact) keys %v", keys(ssCompact))
	if ssCompact.str("model") == "" {
		t.Errorf("SessionStart(compact) has no model: %s", ssCompact.Raw)
	}

	// One summarisation request, carrying the PreCompact stdout and the
	// custom instructions.
	reqs := messagesSince(api, n0)
	if len(reqs) != 1 || !reqs[0].IsCompaction() {
		t.Fatalf("/compact made %d messages requests (compaction: %v), want 1 summarisation request", len(reqs), len(reqs) > 0 && reqs[0].IsCompaction())
	}
	for _, marker := range []string{"CAIRN-E2E-PC label=pc-shell n=1", "CAIRN-E2E-PC label=pc-exec n=1", "keep the CAIRN markers"} {
		if !reqs[0].Contains(marker) {
			t.Errorf("summarisation request lacks %q", marker)
		}
		t.Logf("summarisation request: %q in %v", marker, locate(reqs[0], marker))
	}

	// The next turn carries the summary and SessionStart(compact) output.
	n1 := len(api.Requests())
	s.send("after compaction")
	reqs = messagesSince(api, n1)
	if len(reqs) != 1 {
		t.Fatalf("turn after /compact: %d messages requests, want 1", len(reqs))
	}
	next := reqs[0]
	for _, marker := range []string{
		"CAIRN-E2E-SUMMARY",
		"SessionStart:compact hook success: CAIRN-E2E-SS label=ss-exec source=compact n=3",
		"SessionStart:compact hook success: CAIRN-E2E-SS label=ss-shell source=compact n=3",
		// /compact's local-command output lists each PreCompact hook
		// and its stdout (the command shown unsubstituted).
		"PreCompact [" + rec.Script + " pc-exec two words ${CLAUDE_PROJECT_DIR}] completed successfully: CAIRN-E2E-PC label=pc-exec n=1",
		"CAIRN-E2E-UPS label=ups-exec n=2",
	} {
		where := locate(next, marker)
		t.Logf("turn after /compact: %q in %v", marker, where)
		if len(where) == 0 {
			t.Errorf("turn after /compact lacks %q", marker)
		}
	}
	// Context injected before the compaction is gone (it was summarised).
	for _, gone := range []string{"source=startup", "CAIRN-E2E-UPS label=ups-exec n=1"} {
		if where := locate(next, gone); len(where) > 0 {
			t.Errorf("turn after /compact still carries %q in %v", gone, where)
		}
	}
	// The SessionStart(resume) that fired when the /compact invocation
	// started (n=2) was seen both kept and dropped, so it is only logged.
	// This turn is itself a --resume: SessionStart(resume) n=4 is there.
	t.Logf("turn after /compact: SessionStart(resume) n=2 output in %v", locate(next, "source=resume n=2"))
	if where := locate(next, "SessionStart:resume hook success: CAIRN-E2E-SS label=ss-exec source=resume n=4"); len(where) == 0 {
		t.Errorf("turn after /compact lacks this run's SessionStart(resume) output")
	}

	// Tasks survive compaction (same session id).
	if _, err := os.Stat(filepath.Join(p.Home, ".claude", "tasks", s.ID, "1.json")); err != nil {
		t.Errorf("task file after /compact: %v", err)
	}

	// Transcript: same file, a compact_boundary then the summary.
	path := p.transcriptPath(s.ID)
	lines := readTranscript(t, path)
	bi := slices.IndexFunc(lines, func(l transcriptLine) bool { return l.str("subtype") == "compact_boundary" })
	if bi < 0 {
		t.Fatalf("no compact_boundary in %s", path)
	}
	boundary := lines[bi]
	t.Logf("compact_boundary: %s", boundary.Raw)
	meta, _ := boundary.Fields["compactMetadata"].(map[string]any)
	if meta["trigger"] != "manual" || boundary.str("type") != "system" || boundary.Fields["parentUuid"] != nil || boundary.str("logicalParentUuid") == "" {
		t.Errorf("unexpected compact_boundary: %s", boundary.Raw)
	}
	if bi+1 >= len(lines) || lines[bi+1].Fields["isCompactSummary"] != true || !bytes.Contains(lines[bi+1].Raw, []byte("CAIRN-E2E-SUMMARY")) {
		t.Errorf("line after compact_boundary is not the summary")
	}
	if m, _ := filepath.Glob(filepath.Join(p.Home, ".claude", "projects", "*", "*.jsonl")); len(m) != 1 {
		t.Errorf("transcripts: %v, want one file", m)
	}
	var types []string
	for _, l := range lines {
		ty := l.str("type")
		if st := l.str("subtype"); st != "" {
			ty += "/" + st
		}
		if a, ok := l.Fields["attachment"].(map[string]any); ok {
			ty += "/" + fmt.Sprint(a["type"])
		}
		if !slices.Contains(types, ty) {
			types = append(types, ty)
		}
	}
	st, _ := os.Stat(path)
	t.Logf("transcript %s: %d lines, %d bytes; line types %v", path, len(lines), st.Size(), types)

	writeTestdata(t, "payloads/PreCompact.json", append(rec.payloads("pc-exec")[0].Raw, '\n'))
	writeTestdata(t, "payloads/SessionStart-compact.json", append(ssCompact.Raw, '\n'))
	writeTestdata(t, "transcript-sample.jsonl", trimTranscript(lines))
	logTimings(t, s)
}

// TestE2EAutoCompact: a reply whose usage reports an almost full context
// window (input_tokens 990000 of claude-opus-5-5's 1M) makes the next
// turn auto-compact first: PreCompact(auto) then SessionStart(compact).
func TestE2EAutoCompact(t *testing.T) {
	requireCap(t, capExecForm, capUsageAutoCompact)
	p := newProject(t)
	rec := newRecorder(t, p)
	p.writeSettings(settingsWithHooks(allEventHooks(rec)))
	full := mockapi.Text("the context is nearly full")
	full.InputTokens = 990000
	api := newMock(t, replies("CAIRN-E2E-AUTO-SUMMARY", mockapi.Text("ok"), full))
	s := p.newSession(api)

	s.send("fill the context")
	wantPayloads(t, rec, "pc-exec", 0)
	n0 := len(api.Requests())
	s.send("next turn")

	pc := wantPayloads(t, rec, "pc-exec", 1)[0]
	wantField(t, pc, "trigger", "auto")
	if v, ok := pc.Fields["custom_instructions"]; !ok || v != nil {
		t.Errorf("PreCompact(auto) custom_instructions = %v (present %v), want null", v, ok)
	}
	var sources []string
	for _, ss := range rec.payloads("ss-exec") {
		sources = append(sources, ss.str("source"))
	}
	if want := []string{"startup", "resume", "compact"}; !slices.Equal(sources, want) {
		t.Errorf("SessionStart sources %v, want %v", sources, want)
	}
	reqs := messagesSince(api, n0)
	if len(reqs) != 2 || !reqs[0].IsCompaction() || reqs[1].IsCompaction() {
		t.Fatalf("auto-compacting turn: %d messages requests, want summarisation then the prompt", len(reqs))
	}
	if !reqs[0].Contains("CAIRN-E2E-PC label=pc-exec n=1") {
		t.Errorf("auto summarisation request lacks the PreCompact stdout")
	}
	for _, marker := range []string{"CAIRN-E2E-AUTO-SUMMARY", "source=compact", "CAIRN-E2E-UPS label=ups-exec n=2"} {
		if !reqs[1].Contains(marker) {
			t.Errorf("request after auto-compaction lacks %q", marker)
		}
	}
	writeTestdata(t, "payloads/PreCompact-auto.json", append(pc.Raw, '\n'))
	logTimings(t, s)
}

// TestE2ETools: Write/Edit really change the project; TaskCreate and
// TaskUpdate write $HOME/.claude/tasks/<session>/<id>.json; the Bash tool
// sees CLAUDE_CODE_SESSION_ID.
func TestE2ETools(t *testing.T) {
	requireCap(t, capTaskTools, capBashSessionID)
	p := newProject(t)
	notes := filepath.Join(p.Dir, "notes.txt")
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	api := newMock(t, replies("", mockapi.Text("all done"),
		mockapi.ToolUse("Write", js(map[string]any{"file_path": notes, "content": "alpha\nbeta\n"})),
		mockapi.ToolUse("Edit", js(map[string]any{"file_path": notes, "old_string": "beta", "new_string": "gamma"})),
		mockapi.ToolUse("TaskCreate", js(map[string]any{"subject": "First task", "description": "Made by the mock", "activeForm": "Doing the first task"})),
		mockapi.ToolUse("TaskUpdate", js(map[string]any{"taskId": "1", "status": "in_progress"})),
		// Two tool uses in one reply.
		mockapi.Combine(
			mockapi.Text("Adding two more."),
			mockapi.ToolUse("TaskCreate", js(map[string]any{"subject": "Second task", "description": "Will be completed", "activeForm": "Doing the second task"})),
			mockapi.ToolUse("TaskCreate", js(map[string]any{"subject": "Third task", "description": "Stays pending"})),
		),
		mockapi.ToolUse("TaskUpdate", js(map[string]any{"taskId": "2", "status": "completed"})),
		mockapi.ToolUse("Bash", js(map[string]any{"command": "echo SID=$CLAUDE_CODE_SESSION_ID PD=$CLAUDE_PROJECT_DIR", "description": "Show env"})),
	))
	// Bash needs an explicit allow in acceptEdits mode (commands with
	// variables are refused otherwise).
	s := p.newSession(api, "--allowedTools", "Bash")
	res := s.send("please take notes")
	if res.Result != "all done" {
		t.Errorf("result = %q", res.Result)
	}
	t.Logf("num_turns = %d", res.NumTurns)

	// Every tool result was a success.
	reqs := api.MessagesRequests()
	if len(reqs) != 8 {
		t.Errorf("%d messages requests, want 8 (one per reply)", len(reqs))
	}
	var bashOut string
	for _, r := range reqs {
		for _, tr := range r.ToolResults() {
			var m mockapi.Message
			m.Content, _ = json.Marshal([]mockapi.ContentBlock{tr})
			txt := m.Text()
			t.Logf("request #%d tool_result %s: %q (is_error=%v)", r.Seq, tr.ToolUseID, txt, tr.IsError)
			if tr.IsError {
				t.Errorf("tool %s failed: %s", tr.ToolUseID, txt)
			}
			if strings.HasPrefix(txt, "SID=") {
				bashOut = txt
			}
		}
	}

	// Write + Edit changed the file.
	if b, err := os.ReadFile(notes); err != nil || string(b) != "alpha\ngamma\n" {
		t.Errorf("notes.txt = %q, %v; want the written-then-edited text", b, err)
	}

	// Bash tool env.
	if want := "SID=" + s.ID + " PD="; bashOut != want {
		t.Errorf("Bash saw %q, want %q (session id set, CLAUDE_PROJECT_DIR unset)", bashOut, want)
	}

	// Task files.
	taskDir := filepath.Join(p.Home, ".claude", "tasks", s.ID)
	ents, err := os.ReadDir(taskDir)
	if err != nil {
		t.Fatalf("task dir: %v", err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	t.Logf("%s: %v", taskDir, names)
	wantStatus := map[string]string{"1": "in_progress", "2": "completed", "3": "pending"}
	for id, want := range wantStatus {
		b, err := os.ReadFile(filepath.Join(taskDir, id+".json"))
		if err != nil {
			t.Errorf("task %s: %v", id, err)
			continue
		}
		var task struct {
			ID        string   `json:"id"`
			Subject   string   `json:"subject"`
			Status    string   `json:"status"`
			Blocks    []string `json:"blocks"`
			BlockedBy []string `json:"blockedBy"`
		}
		t.Logf("task %s.json: %s", id, bytes.Join(bytes.Fields(b), []byte(" ")))
		if err := json.Unmarshal(b, &task); err != nil {
			t.Errorf("task %s: %v\n%s", id, err, b)
			continue
		}
		if task.ID != id || task.Status != want {
			t.Errorf("task %s: %s", id, b)
		}
		if id == "1" {
			writeTestdata(t, "task-sample.json", b)
		}
	}

	// The transcript has the tool_use blocks and structured results.
	lines := readTranscript(t, p.transcriptPath(s.ID))
	found := map[string]bool{}
	for _, l := range lines {
		msg, _ := l.Fields["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			if b, _ := c.(map[string]any); b["type"] == "tool_use" {
				found[fmt.Sprint(b["name"])] = true
			}
		}
		if r, ok := l.Fields["toolUseResult"].(map[string]any); ok {
			var ks []string
			for k := range r {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			t.Logf("toolUseResult keys: %v", ks)
			if r["filePath"] == notes {
				found["toolUseResult:"+fmt.Sprint(r["type"])] = true
			}
		}
	}
	for _, name := range []string{"Write", "Edit", "TaskCreate", "TaskUpdate", "Bash"} {
		if !found[name] {
			t.Errorf("transcript has no %s tool_use", name)
		}
	}
	t.Logf("transcript tool records: %v", found)
	logTimings(t, s)
}

func logTimings(t *testing.T, s *session) {
	var ds []string
	for _, r := range s.Runs {
		ds = append(ds, r.Duration.Round(10*time.Millisecond).String())
	}
	t.Logf("claude -p wall times: %v", ds)
}

// trimTranscript re-encodes transcript lines for the testdata sample:
// strings longer than 300 bytes are cut, and the bulky bookkeeping lines
// (api-request-shape, attachment/prompt_snapshot) keep only the first
// elements of their arrays and 60 bytes of each string. Every line and
// every key is kept.
func trimTranscript(lines []transcriptLine) []byte {
	var trim func(v any, maxStr, maxArr int) any
	trim = func(v any, maxStr, maxArr int) any {
		switch x := v.(type) {
		case string:
			if len(x) > maxStr {
				return x[:maxStr] + fmt.Sprintf("…[%d bytes cut]", len(x)-maxStr)
			}
		case map[string]any:
			for k, e := range x {
				x[k] = trim(e, maxStr, maxArr)
			}
		case []any:
			if len(x) > maxArr {
				x = append(x[:maxArr:maxArr], fmt.Sprintf("…[%d elements cut]", len(x)-maxArr))
			}
			for i, e := range x {
				x[i] = trim(e, maxStr, maxArr)
			}
			return x
		}
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		var v any
		if err := json.Unmarshal(l.Raw, &v); err != nil {
			continue
		}
		maxStr, maxArr := 300, 1<<30
		att, _ := l.Fields["attachment"].(map[string]any)
		if l.str("type") == "api-request-shape" || att["type"] == "prompt_snapshot" {
			maxStr, maxArr = 60, 3
		}
		enc.Encode(trim(v, maxStr, maxArr))
	}
	return buf.Bytes()
}
