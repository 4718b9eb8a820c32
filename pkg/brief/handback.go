package brief

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/plain"
)

// Budgets of the hand-back (docs/DESIGN.md, Budgets): after a compaction it adds to Claude Code's
// summary what summaries tend to lose; at startup and after /clear, the last session's key facts
// and the pointer to its whole hand-off.
const (
	maxAfterCompaction = 1500
	maxPointer         = 1000
)

// Bounds inside the budget, so that a long file list leaves room for the tasks.
const (
	maxHandbackFiles    = 40
	maxHandbackTasks    = 10
	maxHandbackCommands = 6
	maxPointerDecisions = 2
	maxPointerRunes     = 160
	maxFirstRunes       = 110
	maxFilesLine        = 360
	maxDoingRunes       = 160
	maxFactRunes        = 200
)

// Compacted is what SessionStart hands back after a compaction: the compaction's automatic
// checkpoint and what it recorded.
type Compacted struct {
	Checkpoint string   // relative to the root
	Branch     string   // the branch now
	Files      []string // edited in the session, exact paths, most recent first
	Record     checkpoint.Record
	Tasks      []string // the open tasks as the checkpoint lists them, ids included
	Parked     int      // open parked items: a count, never their text (never surfaced unasked)
}

// AfterCompaction is the hand-back after a compaction, at most maxAfterCompaction characters: the
// branch, the last error and the commands with their exit status, the last commit, the exact paths
// edited, decisions, Claude's open question and next step, the user's last requests in their
// words, the open tasks with their ids, the number of parked items and the command that lists
// them, and the checkpoint that holds the rest, with the command that loads it. Every value is
// quoted (quoted), so none can forge a line of cairn's.
//
// The room goes first to what summaries lose most, and the paths take what the other parts leave:
// Claude Code's summary names most of the files a session edited and few of its commands,
// questions or open tasks (docs/BENCHMARKS.md, Recall), so a long list of paths no longer pushes
// the open tasks out. When the parts do not all fit, the commands are listed fewer (down to one)
// until they do with one path; the paths then take at least minHandbackFiles's room from the
// tasks (which come last, cut with a notice), never from the question, the next step or the
// requests: a part the budget cuts ends the hand-back there. The parts are shown in a fixed order
// whatever room each was given.
func AfterCompaction(c Compacted) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn hand-back after this compaction: the details a summary tends to lose. The whole record is the checkpoint %s (`/context-restore %s` loads it).\n", quoted(c.Checkpoint, 200), restoreArg(restoreName(c.Checkpoint)))
	if c.Branch != "" {
		fmt.Fprintf(&b, "Branch: %s.\n", quoted(c.Branch, 100))
	}
	if c.Parked > 0 {
		fmt.Fprintf(&b, "Parked items: %d open, not shown here; `/session resume` lists them.\n", c.Parked)
	}
	out := budget{Max: maxAfterCompaction}
	out.Add(b.String(), "")
	r := c.Record
	open, tasks := openLines(r), taskLines(c.Tasks)
	left := out.Max - out.used - utf16Len(open) - utf16Len(tasks) // for the commands and the paths
	var cmds string
	if r.LastError != "" || len(r.Commands) > 0 || r.LastCommit != "" {
		one := utf16Len(fileLines(c.Files, 0, 1))
		for n := maxHandbackCommands; n >= 1; n-- {
			if cmds = commandLines(r, n); utf16Len(cmds)+one <= left {
				break
			}
		}
	}
	out.Add(cmds, seeCheckpoint)
	room := left - utf16Len(cmds)
	if few := utf16Len(fileLines(c.Files, 0, minHandbackFiles)); room < few {
		// From the tasks' room, keeping what the question and requests need and a cut's notice.
		room = max(room, min(few, out.Max-out.used-utf16Len(open)-out.reserve(1)))
	}
	out.Add(fileLines(c.Files, room, 1), seeCheckpoint)
	out.Add(open, seeCheckpoint)
	out.Add(tasks, seeCheckpoint)
	return out.String()
}

// minHandbackFiles is how many paths the hand-back after a compaction takes room for from the
// open tasks.
const minHandbackFiles = 5

// fileLines lists the paths edited, most recent first, in about room characters: as many as fit,
// at least least (when there are as many) and at most maxHandbackFiles, on one line as the
// pointer's files line writes them (pathList: every path quoted), then how many more the
// checkpoint holds.
func fileLines(files []string, room, least int) string {
	if len(files) == 0 {
		return ""
	}
	const lead = "Files edited in this session, most recent first (exact paths): "
	more := func(n int) string { return fmt.Sprintf("\n… %d more: see the checkpoint's files_modified", n) }
	line := ""
	for i := range files {
		next, rest := pathList(files[:i+1]), ""
		if i+1 < len(files) {
			rest = more(len(files) - i - 1)
		}
		if i == maxHandbackFiles || i >= least && utf16Len(lead+next+rest)+1 > room {
			return lead + line + more(len(files)-i) + "\n"
		}
		line = next
	}
	return lead + line + "\n"
}

// taskLines lists the open tasks, at most maxHandbackTasks, each quoted: the line is the
// checkpoint's, a file a repository can commit, so a field, not a line of cairn's.
func taskLines(tasks []string) string {
	if len(tasks) == 0 {
		return ""
	}
	var t strings.Builder
	t.WriteString("Open tasks:\n")
	for i, l := range tasks {
		if i == maxHandbackTasks {
			fmt.Fprintf(&t, "… %d more: see the checkpoint's Remaining Work\n", len(tasks)-i)
			break
		}
		t.WriteString("- " + quoted(l, 200) + "\n")
	}
	return t.String()
}

// seeCheckpoint is where a part of the hand-back cut short can be read whole, as its notice says
// it: the checkpoint the first line names, quoted (a path holds names a repository chose, such as
// its memory/projects directory, and a notice is one of cairn's sentences).
const seeCheckpoint = "the checkpoint"

// commandLines lists the last error, at most max commands with their exit status and the last
// commit, each value quoted.
func commandLines(r checkpoint.Record, max int) string {
	var b strings.Builder
	if r.LastError != "" {
		fmt.Fprintf(&b, "Last error a command printed: %s\n", quoted(r.LastError, maxFactRunes))
	}
	if len(r.Commands) > 0 {
		b.WriteString("Commands run, most recent first (exit status):\n")
		for i, cmd := range r.Commands {
			if i == max {
				fmt.Fprintf(&b, "… %d more: see the checkpoint's Notes\n", len(r.Commands)-i+r.More)
				break
			}
			fmt.Fprintf(&b, "- %s: %s", plain.Line(cmd.Status, 20), quoted(cmd.Line, maxFactRunes))
			if cmd.Output != "" && cmd.Output != r.LastError {
				fmt.Fprintf(&b, " → %s", quoted(cmd.Output, maxFactRunes))
			}
			b.WriteString("\n")
		}
	}
	if r.LastCommit != "" {
		fmt.Fprintf(&b, "Last commit: %s\n", quoted(r.LastCommit, maxFactRunes))
	}
	return b.String()
}

// openLines says what was decided and what was left open: the decisions stated, Claude's
// question and next step, the user's last requests.
func openLines(r checkpoint.Record) string {
	var b strings.Builder
	for _, d := range r.Decisions {
		fmt.Fprintf(&b, "Decision stated in the session: %s\n", quoted(d, maxFactRunes))
	}
	if r.Question != "" {
		fmt.Fprintf(&b, "Claude's last message asked: %s\n", quoted(r.Question, maxFactRunes))
	}
	if r.NextStep != "" {
		fmt.Fprintf(&b, "Claude's stated next step: %s\n", quoted(r.NextStep, maxFactRunes))
	}
	if r.Ended != "" {
		fmt.Fprintf(&b, "Claude's last message ended: %s\n", quoted(r.Ended, maxFactRunes))
	}
	if len(r.Requests) > 0 {
		b.WriteString("The user's last requests, most recent first, in their words:\n")
		for _, q := range r.Requests {
			b.WriteString("- " + quoted(q, maxFactRunes) + "\n")
		}
	}
	return b.String()
}

// Pointer is the hand-off SessionStart points to at startup and after /clear, with the key facts
// of the session that left it.
type Pointer struct {
	Checkpoint string    // relative to the root
	Branch     string    // the branch it was left on
	Ended      time.Time // when its session ended
	Doing      string    // one line of what that session was doing; "" when unknown
	Files      []string  // the files it edited, most recent first
	Record     checkpoint.Record
	Tasks      []string // its open tasks as the hand-off lists them
	Pending    []string // what Claude Code's summary at its last compaction listed as pending
	Decided    []string // what that summary states was decided
	Next       string   // the next step that summary names
	Short      string   // a shorter name /context-restore finds it by; "" for the file's name
}

// HandoffPointer is the last session's hand-off for the next one, at most maxPointer characters:
// when that session ended, the command that loads the whole hand-off, then its key facts. The
// facts are shown in a fixed order — what it was working on and started for, the files it edited,
// Claude's question and next step, the last error, commands with their exit status, decisions,
// the last commit, open tasks (the task list's, then what Claude Code's summary at the last
// compaction left pending), the last request — and given the room in order of need (pointerFacts):
// a fact that does not fit whole is cut to a shorter form when it has one, or left out, and never
// keeps a fact after it from its room; the files take what room the others leave, then more of
// them what room is left at the end. What was left out is counted in a last line. A fact that
// repeats another is not said. The command comes first, so that no cut loses it.
func HandoffPointer(p Pointer, now time.Time) string {
	name := p.Short
	if name == "" {
		name = restoreName(p.Checkpoint)
	}
	// When it ended is said relative to now; the name restore takes starts with the date and time.
	head := fmt.Sprintf("cairn: the last session on branch %s ended %s and left a hand-off checkpoint (`/context-restore %s` loads it whole)",
		quoted(p.Branch, 80), Ago(now, p.Ended), restoreArg(name))
	facts := pointerFacts(p)
	if len(facts) == 0 {
		out := budget{Max: maxPointer}
		out.Add(head+".\n", "")
		return out.String()
	}
	head += ":\n"
	reserve := utf16Len(droppedLine(len(facts))) // room for the count, however many are left out
	room := maxPointer - utf16Len(head) - reserve
	shown := make([]string, len(facts))
	dropped := 0
	for _, i := range byNeed(facts) {
		f := facts[i]
		var text string
		switch {
		case f.files != nil && f.more:
			// More of the files, on their line, in the room the other facts left.
			j := slices.IndexFunc(facts, func(g pointerFact) bool { return g.files != nil && !g.more })
			if j < 0 || shown[j] == "" {
				continue
			}
			line := filesLine(facts[j].label, f.files, utf16Len(shown[j])+room, len(f.files))
			room -= utf16Len(line) - utf16Len(shown[j])
			shown[j] = line
			continue
		case f.files != nil:
			text = filesLine(f.label, f.files, room, pointerFiles)
		case utf16Len(f.text) <= room:
			text = f.text
		case f.short != "" && utf16Len(f.short) <= room:
			text = f.short
		}
		if text == "" {
			dropped++
			continue
		}
		shown[i], room = text, room-utf16Len(text)
	}
	if j := slices.IndexFunc(facts, func(g pointerFact) bool { return g.files != nil && !g.more }); dropped == 0 && j >= 0 && shown[j] != "" {
		// Nothing was left out: the room kept for the count goes to the files.
		shown[j] = filesLine(facts[j].label, facts[j].files, utf16Len(shown[j])+room+reserve, len(facts[j].files))
	}
	var b strings.Builder
	b.WriteString(head)
	for _, t := range shown {
		b.WriteString(t)
	}
	if dropped > 0 {
		b.WriteString(droppedLine(dropped))
	}
	return b.String()
}

// droppedLine is the pointer's last line when facts did not fit.
func droppedLine(n int) string {
	return fmt.Sprintf("- … %d more in the hand-off\n", n)
}

// pointerFact is one line the pointer may show: its text, a shorter form to fall back on ("" for
// none), and its need (lower is given room first). A files fact holds its paths instead, laid
// out in whatever room is left (filesLine).
type pointerFact struct {
	text, short string
	need        int
	label       string
	files       []string
	more        bool // the files fact given more room once every other fact had its own
}

// byNeed returns the indexes of facts in the order they are given room: by need, then as shown.
func byNeed(facts []pointerFact) []int {
	idx := make([]int, len(facts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return facts[a].need - facts[b].need })
	return idx
}

// Needs of the pointer's facts, most needed first: what the session was about and doing, where
// it left off (the last request, the first files, Claude's question, what failed), then what it
// established (the next step, commands, decisions, the commit, open tasks), then the rest of the
// lists.
const (
	needDoing = iota
	needFirst
	needLastRequest
	needFiles
	needQuestion
	needError
	needFailed
	needNext
	needDecision
	needCommit
	needTask
	needCommand
	needEnded
	needMoreDecisions
	needMoreFiles
	needMoreTasks
	needSummaryNext
)

// pointerFiles is how many files the pointer's files line holds before the other facts have had
// their room; more follow on the same line in what room is left at the end.
const pointerFiles = 6

// pointerFacts lists the facts of p's hand-off, in the order the pointer shows them.
func pointerFacts(p Pointer) []pointerFact {
	doing := plain.Line(p.Doing, 0)
	r := p.Record
	said := func(v string) bool { // already in the pointer: the working-on line is the last request
		v = plain.Line(v, 0)
		return v == "" || v == doing || strings.HasPrefix(doing, v) || strings.HasPrefix(v, doing) && doing != ""
	}
	var out []pointerFact
	add := func(need int, label, v string, max int) {
		f := pointerFact{need: need, text: fmt.Sprintf("- %s: %s\n", label, quoted(v, max))}
		if max > shortRunes {
			f.short = fmt.Sprintf("- %s: %s\n", label, quoted(v, shortRunes))
			if f.short == f.text {
				f.short = ""
			}
		}
		out = append(out, f)
	}
	if doing != "" {
		add(needDoing, "working on", p.Doing, maxDoingRunes)
	}
	if !said(r.First) {
		add(needFirst, "started for", opening(r.First), maxFirstRunes)
	}
	if len(p.Files) > 0 {
		out = append(out, pointerFact{need: needFiles, label: "edited, latest first", files: p.Files})
		if len(p.Files) > pointerFiles {
			out = append(out, pointerFact{need: needMoreFiles, files: p.Files, more: true})
		}
	}
	if r.Question != "" {
		add(needQuestion, "Claude asked", r.Question, maxPointerRunes)
	}
	if r.Ended != "" {
		// Neither a question nor a step cairn could read: how Claude's last message ended, where a
		// message says what comes next in whatever words.
		add(needEnded, "Claude's last message ended", r.Ended, maxPointerRunes)
	}
	if r.NextStep != "" {
		add(needNext, "next step", r.NextStep, maxPointerRunes)
	} else if p.Next != "" {
		// Claude Code's summary's reading of what came next, when Claude's last message stated
		// none cairn read: it may be older than the work after that compaction, so it comes last.
		add(needSummaryNext, "next step, in Claude Code's summary", p.Next, maxPointerRunes)
	}
	if r.LastError != "" {
		add(needError, "last error", r.LastError, maxPointerRunes)
	}
	cmds := pointerCommands(r)
	for i, c := range cmds {
		need := needCommand
		if i == 0 || c.Failed() {
			need = needFailed
		}
		f := pointerFact{need: need, text: fmt.Sprintf("- ran (%s): %s\n", plain.Line(c.Status, 20), quoted(c.Line, maxPointerRunes))}
		if short := fmt.Sprintf("- ran (%s): %s\n", plain.Line(c.Status, 20), quoted(c.Line, shortRunes)); short != f.text {
			f.short = short
		}
		out = append(out, f)
	}
	// The first decision, the record's or else the summary's, is given room with the other
	// facts; the rest after them.
	decisionNeed := needDecision
	decide := func(label, d string) {
		add(decisionNeed, label, d, maxPointerRunes)
		decisionNeed = needMoreDecisions
	}
	for _, d := range r.Decisions {
		decide("decided", d)
	}
	for _, d := range p.Decided {
		// Claude Code's summary restates decisions in its words: one the record holds already is
		// not said twice.
		if !slices.ContainsFunc(r.Decisions, func(o string) bool { return sameWords(d, o) }) {
			decide("decided, in Claude Code's summary", d)
		}
	}
	if r.LastCommit != "" && !commitShown(cmds, r.LastCommit) {
		add(needCommit, "last commit", r.LastCommit, maxPointerRunes)
	}
	for i, t := range openTasks(p.Tasks, p.Pending, doing) {
		need := needTask
		if i >= maxPointerTasks {
			need = needMoreTasks
		}
		out = append(out, pointerFact{need: need, text: t})
	}
	if len(r.Requests) > 0 && !said(r.Requests[0]) {
		add(needLastRequest, "last request", r.Requests[0], maxPointerRunes)
	}
	return out
}

// sameWords reports whether a and b say the same thing in nearly the same words: at least two
// thirds of the words of four letters or more of the one with fewer are in the other. A summary's
// "Decided to retry invoice calls at most three times." is the record's "Settled: we retry
// invoice calls at most three times."
func sameWords(a, b string) bool {
	words := func(s string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
		}) {
			if len(w) >= 4 && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
		return out
	}
	wa, wb := words(a), words(b)
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	if len(wa) == 0 {
		return false
	}
	n := 0
	for _, w := range wa {
		if slices.Contains(wb, w) {
			n++
		}
	}
	return 3*n >= 2*len(wa)
}

// shortRunes is how long a fact's value may stay in its shorter form, when its whole form does
// not fit: the head of a command or a sentence, which still names it.
const shortRunes = 80

// maxPointerTasks is how many open tasks are given room with the other facts; the rest follow
// only when room is left at the end.
const maxPointerTasks = 3

// filesLine is a pointer line of files, latest first, in at most room characters: as many as fit,
// at most limit, then how many more there are; "" when not even one fits.
func filesLine(label string, files []string, room, limit int) string {
	lead := "- " + label + ": "
	var shown []string
	line := ""
	for i, f := range files {
		more := ""
		if i+1 < len(files) {
			more = fmt.Sprintf(", … %d more", len(files)-i-1)
		}
		next := pathList(append(shown, f))
		if i == limit || utf16Len(lead+next+more)+1 > room {
			if i == 0 {
				return ""
			}
			line += fmt.Sprintf(", … %d more", len(files)-i)
			break
		}
		shown, line = append(shown, f), next
	}
	return lead + line + "\n"
}

// pathList writes paths as the fields of a files line. Every path stays inside quotes, as any
// field a repository or a transcript supplies: consecutive paths made of path characters alone
// (ASCII letters, digits, '.', '_', '-', '+', '@' and '/') share one pair — none of them can hold
// the ", " that separates them or a quote, so the list reads back unambiguously — and any other
// path is quoted on its own. A files line holds more paths in the same room than with a pair each.
func pathList(paths []string) string {
	var fields, run []string
	flush := func() {
		if len(run) > 0 {
			fields = append(fields, `"`+strings.Join(run, ", ")+`"`)
			run = run[:0]
		}
	}
	for _, p := range paths {
		if plainPath(p) {
			run = append(run, p)
			continue
		}
		flush()
		fields = append(fields, quoted(p, 200))
	}
	flush()
	return strings.Join(fields, ", ")
}

// plainPath reports whether p is a path of path characters alone, at most 200 bytes.
func plainPath(p string) bool {
	if p == "" || len(p) > 200 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-+@/", c) >= 0) {
			return false
		}
	}
	return true
}

// openTasks are the pointer's open-task lines: the session's task list (task files or TodoWrite),
// then what Claude Code's summary left pending that the list does not already hold — and neither
// repeats what the session was working on.
func openTasks(listed, pending []string, doing string) []string {
	var out []string
	var seen []string
	if doing != "" {
		// The task in progress is what the working-on line already says.
		seen = append(seen, strings.ToLower(doing))
	}
	dup := func(t string) bool {
		k := strings.ToLower(plain.Line(t, 0))
		if k == "" {
			// Nothing to say; and every key contains "": kept, it would hide all that follows.
			return true
		}
		for _, s := range seen {
			if strings.Contains(s, k) || strings.Contains(k, s) {
				return true
			}
		}
		seen = append(seen, k)
		return false
	}
	for _, t := range listed {
		if strings.HasPrefix(t, "- … ") {
			continue // the list's count of the tasks it left out ("- … 5 more"), no task
		}
		if i := strings.Index(t, ". "); i > 0 && strings.Trim(t[:i], "0123456789") == "" {
			t = t[i+2:] // the list's number, not the subject's ("3 flaky tests")
		}
		if i := strings.LastIndex(t, " (task "); i >= 0 && strings.HasSuffix(t, ")") {
			// A task's id is its session's: the session the pointer speaks to has a list of its own.
			t = t[:i]
		}
		if dup(t) {
			continue
		}
		out = append(out, fmt.Sprintf("- open task: %s\n", quoted(t, maxPointerRunes)))
	}
	for _, t := range pending {
		if dup(t) {
			continue
		}
		out = append(out, fmt.Sprintf("- pending in Claude Code's summary: %s\n", quoted(t, maxPointerRunes)))
	}
	return out
}

// minOpening is the shortest opening that says what a session was started for: a first
// sentence shorter is a greeting or a preamble ("Hey!", "Context: we release on Friday."), and
// the sentences after it come with it.
const minOpening = 40

// opening is s up to the end of its first sentence, or of the first sentences that together make
// minOpening bytes; or s.
func opening(s string) string {
	s = plain.Line(s, 0)
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' && i+1 >= minOpening {
			return s[:i+1]
		}
	}
	return s
}

// pointerCommands picks the commands the pointer names: the latest, and the latest that failed
// when that is another.
func pointerCommands(r checkpoint.Record) []checkpoint.Command {
	if len(r.Commands) == 0 {
		return nil
	}
	out := []checkpoint.Command{r.Commands[0]}
	pick := func(want func(checkpoint.Command) bool) {
		for _, c := range r.Commands[1:] {
			if want(c) {
				if !slices.ContainsFunc(out, func(o checkpoint.Command) bool { return o.Line == c.Line }) {
					out = append(out, c)
				}
				return
			}
		}
	}
	if !out[0].Failed() {
		pick(checkpoint.Command.Failed)
	}
	if !slices.ContainsFunc(out, isTest) {
		pick(isTest)
	}
	return out
}

// testWords mark a command that runs tests; so does a build tool's test subcommand (testTools:
// "mix test", "dotnet test", "cd app && bun test").
var (
	testWords = []string{"go test", "pytest", "npm test", "npm run test", "yarn test", "pnpm test", "cargo test", "make test", "mvn test", "gradle test", "jest", "vitest", "rspec", "phpunit", "ctest", "tox", "unittest"}
	testTools = []string{"go", "cargo", "npm", "yarn", "pnpm", "bun", "deno", "mix", "dotnet", "swift", "make", "mvn", "gradle", "gradlew", "sbt", "lein", "stack", "cabal", "dart", "flutter", "rake", "bazel", "zig"}
)

func isTest(c checkpoint.Command) bool {
	if slices.ContainsFunc(testWords, func(w string) bool { return strings.Contains(c.Line, w) }) {
		return true
	}
	for _, part := range strings.FieldsFunc(c.Line, func(r rune) bool { return r == '&' || r == ';' || r == '|' }) {
		f := strings.Fields(part)
		for len(f) > 0 && strings.Contains(f[0], "=") {
			f = f[1:] // an environment variable: "CI=1 mix test"
		}
		if len(f) >= 2 && f[1] == "test" && slices.Contains(testTools, path.Base(f[0])) {
			return true
		}
	}
	return false
}

// commitShown reports whether one of cmds is the commit the last-commit line would name (its
// subject is in the command).
func commitShown(cmds []checkpoint.Command, commit string) bool {
	_, subject, _ := strings.Cut(commit, " ")
	for _, c := range cmds {
		if subject != "" && strings.Contains(c.Line, subject) {
			return true
		}
	}
	return false
}

// restoreArg is name as the argument of /context-restore in one of cairn's sentences: its longest
// start of ASCII letters, digits, '.', '_' and '-' (at most 100 bytes). Every name cairn gives a
// checkpoint is all of those, and restore finds a checkpoint by any part of its name; a name a
// repository chose (a hand-off's file, committed with the catalog) thus adds no words to the
// sentence. A name that starts with none of them is quoted.
func restoreArg(name string) string {
	i := 0
	for i < len(name) && i < 100 {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			break
		}
		i++
	}
	if i == 0 {
		return quoted(name, 100)
	}
	return name[:i]
}

// restoreName is the argument of /context-restore that names the checkpoint at rel: its file
// name without .md, which restore matches exactly.
func restoreName(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		rel = rel[i+1:]
	}
	return strings.TrimSuffix(rel, ".md")
}
