package recall

import (
	"fmt"
	"slices"
	"strings"
)

// Each turn below appends its steps and what it establishes to the builder's state. Every needle
// holds the session's token, so that it can also serve as a negative control for every other
// session: no other project's context may hold it.

func (b *builder) add(st Step) { b.s.Steps = append(b.s.Steps, st) }

func (b *builder) say(text string) { b.add(Step{Kind: "text", Text: text}) }

// endTurn closes a turn with the bookkeeping and filler bytes that carry no fact.
func (b *builder) endTurn() { b.add(Step{Kind: "filler"}) }

// pick returns one of options, each at most once per session while unused ones remain.
func (b *builder) pick(used *int, options []string) string {
	i := (*used + b.r.IntN(2)) % len(options)
	*used = i + 1
	return options[i]
}

var mainRequests = []string{
	"the %s parser drops the sign of negative amounts",
	"make the %s client retry on timeouts",
	"move the %s store to the new schema",
	"speed up the %s export for large tenants",
	"the %s loader panics on an empty file",
	"add pagination to the %s list endpoint",
}

func (b *builder) mainRequest() {
	if b.ph != nil {
		b.heldMain()
		return
	}
	phrase := fmt.Sprintf(mainRequests[b.r.IntN(len(mainRequests))], b.tok)
	b.prompt(fmt.Sprintf("Please look at this: %s. Start with internal/%s/parse.go and keep the public API as it is.", phrase, b.tok))
	b.st.main, b.st.last = phrase, phrase
	b.say(fmt.Sprintf("I'll start by reading internal/%s/parse.go and its tests.", b.tok))
	b.endTurn()
}

// prompt is a typed prompt; a new request leaves Claude's pending question unanswered, which
// cairn parks.
func (b *builder) prompt(text string) {
	b.add(Step{Kind: "prompt", Text: text})
	if b.st.pendingQ != "" {
		b.st.parkedQ = append(b.st.parkedQ, b.st.pendingQ)
		b.st.pendingQ = ""
	}
	b.st.next = ""
}

var requests = []string{
	"add a retry budget to the %s client",
	"log every rejected %s row with its line number",
	"make the %s exporter stream rows instead of buffering them",
	"cap the %s worker pool at eight goroutines",
	"return a typed error from the %s loader",
	"drop the unused %s config keys",
	"cover the %s edge cases with a table test",
	"rename the %s handler to ServeImport",
}

func (b *builder) request() {
	if b.ph != nil {
		b.heldRequest()
		return
	}
	b.st.requestCount++
	phrase := fmt.Sprintf(requests[(b.s.Index+b.st.requestCount*3)%len(requests)], b.tok)
	b.prompt("Now " + phrase + ", please.")
	b.st.last = phrase
	b.say("On it.")
	b.endTurn()
}

var fileNames = []string{"parse", "store", "client", "retry", "export", "loader", "config", "handler", "limits", "cursor",
	"schema", "errors", "format", "pool", "batch", "cache", "events", "index", "merge", "queue", "report", "rows",
	"scan", "sink", "split", "stream", "table", "token", "units", "writer"}

func (b *builder) nextPath() string {
	n := len(b.st.edited)
	name := fileNames[n%len(fileNames)]
	switch {
	case n >= len(fileNames):
		return fmt.Sprintf("internal/%s/v2/%s.go", b.tok, name)
	case n%7 == 3:
		return fmt.Sprintf("cmd/%sd/%s.go", b.tok, name)
	case n%5 == 4:
		return fmt.Sprintf("internal/%s/%s_test.go", b.tok, name)
	}
	return fmt.Sprintf("internal/%s/%s.go", b.tok, name)
}

func (b *builder) edited(path string) {
	b.st.edited = slices.DeleteFunc(b.st.edited, func(p string) bool { return p == path })
	b.st.edited = append([]string{path}, b.st.edited...)
}

func (b *builder) edits(n int) {
	for range n {
		path := b.nextPath()
		kind := "edit"
		switch x := b.r.IntN(20); {
		case x < 5:
			kind = "write"
		case x < 8:
			kind = "multiedit"
		}
		b.add(Step{Kind: kind, Path: path})
		b.edited(path)
	}
	b.say(fmt.Sprintf("Updated %d files.", n))
	b.endTurn()
}

func (b *builder) bash(cmd string, exit int, out string, git ...string) {
	b.add(Step{Kind: "bash", Cmd: cmd, Exit: exit, Out: out, Git: git})
	b.st.lastCmd, b.st.lastExit = cmd, exit
}

// tests runs the session's test command iter times, failing each time with a new error line and
// an edit in between, then once more passing when pass is set: go test, or with a held-out
// phrasing the session's runner.
func (b *builder) tests(iter int, pass bool) {
	run := goTest
	if b.ph != nil {
		run = b.ph.runners[b.s.Index%len(b.ph.runners)]
	}
	file := fileNames[b.r.IntN(8)]
	cmd := fmt.Sprintf(run.cmd, b.tok, b.title)
	b.st.testCmd = cmd
	for k := range iter {
		want := 1300 + 7*k + b.r.IntN(5)
		out, line := run.fail(b.tok, b.title, file, k, want-1, want)
		b.bash(cmd, run.exit, out)
		b.st.err = line
		b.say("The test still fails: the total is off by one. Adjusting the rounding.")
		path := fmt.Sprintf("internal/%s/%s.go", b.tok, file)
		b.add(Step{Kind: "edit", Path: path})
		b.edited(path)
	}
	if pass {
		b.bash(cmd, 0, fmt.Sprintf(run.pass, b.tok))
		b.st.err = ""
		b.say("The tests pass now.")
	}
	b.endTurn()
}

// goTest is the default corpus's runner.
var goTest = runner{
	cmd: "go test ./internal/%[1]s/ -run Test%[2]s", exit: 1,
	fail: func(tok, title, file string, k, got, want int) (string, string) {
		line := fmt.Sprintf("%s_test.go:%d: %s total = %d, want %d", file, 41+3*k, tok, got, want)
		return fmt.Sprintf("--- FAIL: Test%s (0.01s)\n    %s\nFAIL\nFAIL\tgithub.com/acme/app/internal/%s\t0.012s\nFAIL", title, line, tok), line
	},
	pass: "ok  \tgithub.com/acme/app/internal/%[1]s\t0.011s",
}

var commitSubjects = []string{"keep amounts in integer cents", "parse negative amounts", "retry on timeouts",
	"stream export rows", "cap the worker pool", "type the loader errors"}

func (b *builder) commit() {
	if b.ph != nil {
		b.heldCommit()
		return
	}
	n := 0
	if b.st.commit != "" {
		n = slices.Index(commitSubjects, strings.TrimPrefix(b.st.commit, b.tok+": ")) + 1
	}
	subject := b.tok + ": " + commitSubjects[n%len(commitSubjects)]
	cmd := fmt.Sprintf("git add -A && git commit -q -m '%s'", subject)
	out := fmt.Sprintf("[%s 4f1c2ab] %s\n 3 files changed, 41 insertions(+), 7 deletions(-)", b.st.branch, subject)
	b.bash(cmd, 0, out, "commit", subject)
	b.st.commit = subject
	b.say("Committed.")
	b.endTurn()
}

func (b *builder) branch() {
	name := fmt.Sprintf("fix/%s-%d", b.tok, strings.Count(strings.Join(b.gitLog(), " "), "checkout")+1)
	b.bash("git checkout -b "+name, 0, "Switched to a new branch '"+name+"'", "checkout", name)
	b.st.branch = name
	b.say("Now on " + name + ".")
	b.endTurn()
}

// gitLog lists the git steps so far.
func (b *builder) gitLog() []string {
	var out []string
	for _, st := range b.s.Steps {
		if len(st.Git) > 0 {
			out = append(out, st.Git[0])
		}
	}
	return out
}

var taskSubjects = []string{"Add a fuzz test for the %s parser", "Document the %s retry budget", "Remove the %s v1 endpoint"}

func (b *builder) taskFiles() {
	for i, s := range taskSubjects {
		t := Task{ID: fmt.Sprint(i + 1), Subject: fmt.Sprintf(s, b.tok), Status: "pending"}
		b.add(Step{Kind: "taskcreate", Task: &t})
		b.st.tasks = append(b.st.tasks, t)
	}
	b.setTask("1", "in_progress")
	b.say("I created three tasks and started on the first.")
	b.endTurn()
}

func (b *builder) setTask(id, status string) {
	for i := range b.st.tasks {
		if b.st.tasks[i].ID == id {
			b.st.tasks[i].Status = status
			t := b.st.tasks[i]
			b.add(Step{Kind: "taskupdate", Task: &t})
		}
	}
}

func (b *builder) finishTask() {
	b.setTask("1", "completed")
	b.setTask("2", "in_progress")
	b.say("The first task is done; moving on to the second.")
	b.endTurn()
}

var todoSubjects = []string{"Wire the %s metrics into the dashboard", "Write the %s changelog entry", "Check the %s error paths"}

func (b *builder) todo() {
	b.st.todos = nil
	for i, s := range todoSubjects {
		status := "pending"
		if i == 0 {
			status = "in_progress"
		}
		sub := fmt.Sprintf(s, b.tok)
		b.st.todos = append(b.st.todos, Todo{Content: sub, Status: status, ActiveForm: "Working on: " + sub})
	}
	b.add(Step{Kind: "todo", Todos: slices.Clone(b.st.todos)})
	b.say("I wrote a todo list.")
	b.endTurn()
}

func (b *builder) todoProgress() {
	if len(b.st.todos) == 0 {
		b.todo()
	}
	b.st.todos[0].Status = "completed"
	b.st.todos[1].Status = "in_progress"
	b.add(Step{Kind: "todo", Todos: slices.Clone(b.st.todos)})
	b.say("One done, two to go.")
	b.endTurn()
}

// deferrals are the forms a user defers something with: the prompt and the deferred idea.
var deferrals = [][2]string{
	{"later: benchmark the %s importer on the big fixtures", "benchmark the %s importer"},
	{"Let's not touch the %s dashboards now, that can wait until next sprint.", "%s dashboards"},
	{"Something for later: add a %s health endpoint.", "add a %s health endpoint"},
	{"Let's come back to the %s rate limits later.", "%s rate limits"},
	{"Maybe later we could also cache %s lookups.", "cache %s lookups"},
	{"Put a pin in the %s migration plan, we will do it after the release.", "%s migration plan"},
}

func (b *builder) deferral() {
	if b.ph != nil {
		b.heldDeferral()
		return
	}
	d := deferrals[(b.s.Index+len(b.st.deferred)*5)%len(deferrals)]
	b.prompt(fmt.Sprintf(d[0], b.tok))
	b.st.deferred = append(b.st.deferred, fmt.Sprintf(d[1], b.tok))
	b.say("Noted, I will leave that for later.")
	b.endTurn()
}

// questions are what Claude asks at the end of a turn: the question and its needle.
var questions = [][2]string{
	{"Should the %s importer also accept CSV files with a byte order mark?", "%s importer also accept CSV files with a byte order mark"},
	{"Shall I also run the %s benchmarks before we merge?", "run the %s benchmarks before we merge"},
	{"Do you want the %s retries to cover 503 responses too?", "%s retries to cover 503 responses"},
	{"Should the %s export include archived rows?", "%s export include archived rows"},
}

func (b *builder) pendingQuestion() {
	if b.ph != nil {
		b.heldPending(true, b.r.Float64() < 0.4)
		return
	}
	n := len(b.st.parkedQ)
	if b.st.pendingQ != "" {
		n++
	}
	q := questions[(b.s.Index+n)%len(questions)]
	b.say(fmt.Sprintf("That part is in place. "+q[0], b.tok))
	b.st.pendingQ = fmt.Sprintf(q[1], b.tok)
}

// nextStep is Claude's last message stating what it does next, without a question (held-out
// phrasings only).
func (b *builder) nextStep() { b.heldPending(false, true) }

// askedThenMovedOn is Claude's question the user does not answer: the next prompt is a new
// request, and cairn parks the question.
func (b *builder) askedThenMovedOn() {
	b.pendingQuestion()
	b.request()
}

var decisions = [][2]string{
	{"keep %s amounts as integer cents", "float rounding broke the monthly totals"},
	{"retry %s calls at most three times", "the upstream rate limits bursts"},
	{"store the %s cursor in the database", "a file cursor is lost when the pod restarts"},
	{"drop the %s v1 endpoint", "no client has called it since March"},
	{"split %s into a reader and a writer", "the writer needs its own lock"},
}

func (b *builder) decision() {
	if b.ph != nil {
		b.heldDecision()
		return
	}
	d := decisions[(b.s.Index+len(b.st.decisions)*2)%len(decisions)]
	what := fmt.Sprintf(d[0], b.tok)
	if b.r.IntN(2) == 0 {
		b.prompt(fmt.Sprintf("We decided to %s because %s. Go ahead with that.", what, d[1]))
		b.say("Understood.")
	} else {
		b.say(fmt.Sprintf("We decided to %s because %s; I will build on that.", what, d[1]))
	}
	b.st.decisions = append(b.st.decisions, what)
	b.endTurn()
}

func (b *builder) subagent() {
	var paths []string
	for _, name := range []string{"gen_rows", "gen_cases", "gen_fixtures"} {
		p := fmt.Sprintf("internal/%s/gen/%s.go", b.tok, name)
		paths = append(paths, p)
		b.edited(p)
	}
	b.add(Step{Kind: "subagent", Paths: paths})
	b.say("The subagent generated the fixtures.")
	b.endTurn()
}

// snapshot is what holds now: the facts of the moment that comes next.
func (b *builder) snapshot() []Fact {
	st := &b.st
	var f []Fact
	add := func(class, needle string) { f = append(f, Fact{Class: class, Needle: needle}) }
	add(MainRequest, st.main)
	if st.last != st.main {
		add(LastRequest, st.last)
	}
	for _, p := range st.edited {
		add(EditedPath, p)
	}
	if st.testCmd != "" {
		add(TestCommand, commandNeedle(st.testCmd, b.tok))
	}
	if st.lastCmd != "" {
		f = append(f, Fact{Class: CommandStatus, Needle: commandNeedle(st.lastCmd, b.tok), Status: statusSpellings(st.lastExit)})
	}
	if st.err != "" {
		add(ErrorText, st.err)
	}
	for _, d := range st.decisions {
		add(Decision, d)
	}
	if st.pendingQ != "" {
		add(PendingQuestion, st.pendingQ)
	}
	if st.next != "" {
		add(NextStep, st.next)
	}
	add(Branch, st.branch)
	if st.commit != "" {
		add(LastCommit, st.commit)
	}
	for _, t := range st.tasks {
		if t.Status != "completed" {
			add(OpenTask, t.Subject)
		}
	}
	for _, t := range st.todos {
		if t.Status != "completed" {
			add(OpenTask, t.Content)
		}
	}
	for _, d := range st.deferred {
		add(ParkedDeferral, d)
	}
	for _, q := range st.parkedQ {
		add(ParkedQuestion, q)
	}
	return f
}

// commandNeedle is what shows a command: the command, or for one of several lines (a commit
// message in a here-document) its first line that names the session.
func commandNeedle(cmd, tok string) string {
	if !strings.Contains(cmd, "\n") {
		return cmd
	}
	for l := range strings.Lines(cmd) {
		if strings.Contains(l, tok) {
			return strings.TrimSpace(l)
		}
	}
	return cmd
}

// statusSpellings are the ways a text may say that a command exited with code.
func statusSpellings(code int) []string {
	s := []string{fmt.Sprintf("exit %d", code), fmt.Sprintf("exit code %d", code), fmt.Sprintf("Exit code %d", code),
		fmt.Sprintf("status %d", code), fmt.Sprintf("exited %d", code), fmt.Sprintf("(%d)", code)}
	if code == 0 {
		return append(s, "succeeded", "passed")
	}
	return append(s, "failed")
}

func (b *builder) compact(trigger string) {
	facts := b.snapshot()
	text, payload := b.summary(facts)
	b.add(Step{Kind: "compact", Trigger: trigger, Facts: facts, Text: text, Payload: payload})
}

func (b *builder) clear() { b.add(Step{Kind: "clear", Facts: b.snapshot()}) }
