package recall

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// The moments at which a fact is scored.
const (
	AfterCompaction = "after_compaction" // Claude Code's summary plus SessionStart(compact)'s context
	AfterClear      = "after_clear"      // SessionStart(clear)'s context, in the session /clear starts
	NextStartup     = "next_startup"     // SessionStart(startup)'s context, in the next session
)

// Moments lists the moments in the order a session reaches them.
var Moments = []string{AfterCompaction, AfterClear, NextStartup}

// Fact classes. The parked ones are cairn's parked items: by design their text reaches the model
// only when asked (cairn session resume), so they are scored apart from the headline recall.
const (
	MainRequest     = "main_request"
	LastRequest     = "last_request"
	EditedPath      = "edited_path"
	TestCommand     = "test_command"
	CommandStatus   = "command_status"
	ErrorText       = "error_text"
	Decision        = "decision"
	PendingQuestion = "pending_question"
	NextStep        = "next_step" // Claude's stated next step: held-out phrasings only (the default corpus has none)
	Branch          = "branch"
	LastCommit      = "last_commit"
	OpenTask        = "open_task"
	ParkedDeferral  = "parked_deferral"
	ParkedQuestion  = "parked_question"
	ExpiredItem     = "expired_item"  // negative: parked more than 30 days ago, must not come back
	ArchivedItem    = "archived_item" // negative: archived before the session, must not come back
)

// Parked reports whether class is scored apart: an open loop cairn parks and lists on request.
func Parked(class string) bool { return class == ParkedDeferral || class == ParkedQuestion }

// Fact is one thing a session established that a later moment should still know.
type Fact struct {
	Class string `json:"class"`
	// Needle is the exact text that shows the fact, case-sensitive: a path, a command, an error
	// line, a key phrase. It is one line of single spaces and holds no '<' (visible).
	Needle string `json:"needle"`
	// Status, when set, are the spellings of an exit status of which one must be on a line that
	// holds Needle (a command and how it ended).
	Status []string `json:"status,omitempty"`
}

// Step is one thing that happens in a session, in order.
type Step struct {
	Kind    string   `json:"kind"`
	Text    string   `json:"text,omitempty"`    // prompt, text: the words; compact: the summary Claude sees
	Path    string   `json:"path,omitempty"`    // edit, write, multiedit: relative to the root
	Paths   []string `json:"paths,omitempty"`   // subagent: the files it edits (sidechain lines)
	Cmd     string   `json:"cmd,omitempty"`     // bash
	Exit    int      `json:"exit,omitempty"`    // bash
	Out     string   `json:"out,omitempty"`     // bash
	Git     []string `json:"git,omitempty"`     // bash: the git command run for real in the project
	Todos   []Todo   `json:"todos,omitempty"`   // todo
	Task    *Task    `json:"task,omitempty"`    // taskcreate, taskupdate
	Trigger string   `json:"trigger,omitempty"` // compact: manual or auto
	Payload string   `json:"-"`                 // compact: compact_summary as PostCompact gets it
	Size    int      `json:"size,omitempty"`    // filler: the transcript's size once it is written
	Facts   []Fact   `json:"facts,omitempty"`   // compact, clear: what holds at that moment
}

// Todo is one item of a TodoWrite list.
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// Task is one of Claude Code's task files (<config>/tasks/<session>/<id>.json).
type Task struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
}

// Session is one generated session: its steps and, at its compactions and its /clear, the facts
// that hold.
type Session struct {
	Index    int    `json:"index"`
	Phrasing string `json:"phrasing,omitempty"` // "" for the default templates
	ID       string `json:"id"`
	Token    string `json:"token"` // the component name unique to this session, in every needle
	Shape    string `json:"shape"`
	Size     int    `json:"size"`   // target size of the transcript in bytes
	Branch   string `json:"branch"` // checked out when the session starts
	Steps    []Step `json:"steps"`
	// Expired and Archived are parked items the project holds before the session: one raised
	// more than 30 days ago, one archived. Neither may come back.
	Expired  Fact `json:"expired"`
	Archived Fact `json:"archived"`
}

// Facts returns the session's facts that hold at each moment: one list per compaction (in
// order), then the list for after_clear and next_startup.
func (s *Session) Facts() (compactions [][]Fact, clear []Fact) {
	for _, st := range s.Steps {
		switch st.Kind {
		case "compact":
			compactions = append(compactions, st.Facts)
		case "clear":
			clear = st.Facts
		}
	}
	return compactions, clear
}

// Shapes are the kinds of session the corpus cycles through.
var Shapes = []string{"short_fix", "long_refactor", "many_edits", "failing_tests", "commits_branch", "task_files",
	"todowrite", "deferral", "question", "decision", "post_compact_work", "subagent"}

var components = []string{"ledger", "invoice", "tenant", "router", "lexer", "quota", "webhook", "scheduler",
	"export", "importer", "metrics", "payments", "search", "upload", "notifier", "audit", "billing", "catalog"}

// Corpus generates n sessions, deterministic for seed, whose transcripts range from about 8 KiB
// to maxSize bytes (spread evenly on a log scale, in an order the seed shuffles), their facts
// stated in the wordings phrasing names (phrasing.go; "" is the default). The default corpus is
// the same whatever the held-out templates say: a held-out phrasing draws from the seed only
// where the default draws nothing.
func Corpus(seed uint64, n, maxSize int, phrasing string) ([]Session, error) {
	ph, err := newPhrasebook(phrasing)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x7eca11))
	sizes := make([]int, n)
	const minSize = 8 << 10
	for i := range sizes {
		sizes[i] = minSize
		if n > 1 && maxSize > minSize {
			f := float64(i) / float64(n-1)
			sizes[i] = int(float64(minSize) * math.Pow(float64(maxSize)/minSize, f))
		}
	}
	r.Shuffle(n, func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })
	out := make([]Session, n)
	for i := range out {
		out[i] = build(i, Shapes[i%len(Shapes)], sizes[i], rand.New(rand.NewPCG(seed, uint64(i)+1)), ph, phrasing)
	}
	return out, nil
}

// state is what the session has established so far, from which the facts of a moment follow.
type state struct {
	main, last   string // needles of the first and the last request
	edited       []string
	testCmd      string
	lastCmd      string
	lastExit     int
	err          string // the last error line, while the command that printed it still fails
	decisions    []string
	pendingQ     string
	next         string // Claude's stated next step (held-out phrasings)
	asked, nexts int    // questions and next steps Claude stated (held-out phrasings)
	commits      int    // commits made (held-out phrasings)
	branch       string
	commit       string
	tasks        []Task
	todos        []Todo
	deferred     []string
	parkedQ      []string
	requestCount int
}

type builder struct {
	s     *Session
	r     *rand.Rand
	comp  string      // the component's name, e.g. ledger
	tok   string      // unique to the session, e.g. ledger7
	title string      // for test names, e.g. Ledger7
	ph    *phrasebook // nil: the default templates
	st    state
}

func build(i int, shape string, size int, r *rand.Rand, ph *phrasebook, phrasing string) Session {
	comp := components[i%len(components)]
	tok := fmt.Sprintf("%s%d", comp, i+1)
	s := Session{Index: i, ID: sessionID(r), Token: tok, Shape: shape, Size: size, Branch: "topic/" + tok + "-work"}
	if ph != nil {
		s.Phrasing = phrasing
	}
	b := &builder{s: &s, r: r, comp: comp, tok: tok, title: strings.ToUpper(tok[:1]) + tok[1:], ph: ph}
	b.st.branch = s.Branch
	s.Expired = Fact{Class: ExpiredItem, Needle: "migrate the " + tok + " archive to cold storage"}
	s.Archived = Fact{Class: ArchivedItem, Needle: "rename the " + tok + " flags to kebab case"}

	turns := b.plan(shape)
	for _, t := range turns {
		t()
	}
	b.clear()
	// Each filler tops the transcript up to its share of the target size, so that sessions of
	// every shape end near their size.
	var fillers []int
	for k, st := range s.Steps {
		if st.Kind == "filler" {
			fillers = append(fillers, k)
		}
	}
	for j, k := range fillers {
		s.Steps[k].Size = int(int64(size) * int64(j+1) / int64(len(fillers)))
	}
	return s
}

func sessionID(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff)
}

// plan returns the turns of a session of the given shape, extras drawn from the seed included,
// with one compaction (two for a long refactor) among them.
func (b *builder) plan(shape string) []func() {
	t := []func(){b.mainRequest}
	chance := func(p float64) bool { return b.r.Float64() < p }
	trigger := "manual"
	if chance(0.4) {
		trigger = "auto"
	}
	var after []func()
	switch shape {
	case "short_fix":
		t = append(t, func() { b.edits(2) }, func() { b.tests(1, true) }, b.commit)
	case "long_refactor":
		t = append(t, func() { b.edits(5) }, b.decision, func() { b.tests(2, true) }, b.request, func() { b.edits(4) },
			func() { b.compact(trigger) }, b.request, func() { b.edits(3) }, b.decision, func() { b.tests(1, false) })
		after = append(after, b.request, func() { b.edits(3) }, b.commit)
	case "many_edits":
		t = append(t, func() { b.edits(14) }, b.todo, func() { b.edits(12) })
	case "failing_tests":
		t = append(t, func() { b.edits(2) }, func() { b.tests(4, false) })
	case "commits_branch":
		t = append(t, b.branch, func() { b.edits(3) }, b.commit, func() { b.edits(2) }, b.commit)
		after = append(after, b.branch, func() { b.edits(1) }, b.commit)
	case "task_files":
		t = append(t, b.taskFiles, func() { b.edits(3) }, b.finishTask)
	case "todowrite":
		t = append(t, b.todo, func() { b.edits(3) }, b.todoProgress)
	case "deferral":
		t = append(t, func() { b.edits(2) }, b.deferral, b.request, b.deferral)
	case "question":
		t = append(t, func() { b.edits(2) }, b.askedThenMovedOn, func() { b.edits(1) })
	case "decision":
		t = append(t, b.decision, func() { b.edits(3) }, b.decision)
	case "post_compact_work":
		t = append(t, func() { b.edits(3) }, func() { b.tests(1, true) })
		after = append(after, b.request, func() { b.edits(4) }, func() { b.tests(2, false) }, b.commit, b.deferral)
	case "subagent":
		t = append(t, func() { b.edits(1) }, b.subagent, func() { b.tests(1, true) })
	}
	if chance(0.4) && shape != "decision" {
		t = append(t, b.decision)
	}
	if chance(0.3) && shape != "deferral" {
		t = append(t, b.deferral)
	}
	if chance(0.2) && shape != "todowrite" && shape != "many_edits" {
		t = append(t, b.todo)
	}
	if chance(0.3) && shape != "short_fix" && shape != "commits_branch" {
		t = append(t, b.commit)
	}
	// The last request before the compaction, which may end on a question Claude asks.
	t = append(t, b.request)
	if ask := chance(0.6) || shape == "question"; ask {
		t = append(t, b.pendingQuestion)
	} else if b.ph != nil && chance(0.6) {
		t = append(t, b.nextStep)
	}
	if shape != "long_refactor" {
		t = append(t, func() { b.compact(trigger) })
	} else {
		t = append(t, func() { b.compact("manual") })
	}
	if len(after) == 0 && chance(0.5) {
		after = append(after, b.request, func() { b.edits(1) })
	}
	if len(after) > 0 && chance(0.5) {
		after = append(after, b.pendingQuestion)
	} else if len(after) > 0 && b.ph != nil && chance(0.6) {
		after = append(after, b.nextStep)
	}
	return append(t, after...)
}
