// Package transcripttest writes synthetic Claude Code transcripts for tests and benchmarks of
// package transcript: realistic line shapes (docs/TRANSCRIPT.md) at any size, with an optional
// giant tool-result line and compaction boundaries, deterministic for a seed. Generate also
// returns what the transcript holds (Truth), so that tests can check answers on files of any
// size.
package transcripttest

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options say what to generate.
type Options struct {
	// Size is the size to reach, in bytes, give or take one turn (a few KB, rarely a few
	// hundred). The last turn is always written, so the result is at least a few KB plus
	// LongLine.
	Size int64
	// LongLine, when positive, makes the last turn read a file whose tool_result line is about
	// this long (single lines of 12.8M and 60M characters exist: docs/TRANSCRIPT.md). It sits
	// between the last prompt and the last assistant message, where "last" questions must step
	// over it.
	LongLine int64
	// Boundaries is the number of compactions (a compact_boundary system line followed by an
	// isCompactSummary user line), spread evenly over the file before its last turn.
	Boundaries int
	// Seed makes the output reproducible: the same Options give the same bytes.
	Seed uint64
	// Root is the project directory that edited files live under; "/home/dev/project" if empty.
	Root string
	// PartialTail appends the first half of a line without its '\n', as when Claude Code is
	// still writing it.
	PartialTail bool
	// Words, when set, is the vocabulary of the prompts, Claude's text and the commands, most
	// frequent first, drawn with a Zipf-like law (the rank's logarithm uniform): a history of
	// real size needs a real vocabulary to measure an index against. Tool output keeps the small
	// default one.
	Words []string
}

// Truth is what a generated transcript holds, as package transcript should report it.
type Truth struct {
	Size  int64
	Lines int
	// LastAssistantText is the text of the last assistant message (two text lines joined by a
	// blank line).
	LastAssistantText string
	// Prompts are the last typed prompts, most recent first (at most 10).
	Prompts []string
	// LastBoundary is the offset of the last boundary line (the isCompactSummary user line);
	// HasBoundary is false when Boundaries was 0.
	LastBoundary int64
	HasBoundary  bool
	// Edited are the absolute paths edited after the last boundary, most recent first.
	Edited []string
	// Todos is the list of the last TodoWrite; HasTodos is false when there was none.
	Todos    []Todo
	HasTodos bool
	// HookRuns counts the hook attachment lines that carry a durationMs.
	HookRuns int
}

// WriteFile generates a transcript into a new file at path.
func WriteFile(path string, o Options) (Truth, error) {
	f, err := os.Create(path)
	if err != nil {
		return Truth{}, err
	}
	t, err := Generate(f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return t, err
}

// Generate writes a transcript to w.
func Generate(w io.Writer, o Options) (Truth, error) {
	if o.Root == "" {
		o.Root = "/home/dev/project"
	}
	g := &gen{
		o:   o,
		rnd: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)),
		bw:  bufio.NewWriterSize(w, 1<<20),
	}
	g.filler = makeFiller(g.rnd)
	body := o.Size - o.LongLine - 4<<10 // what comes before the last turn (about 4 KB)
	// The last 256 KiB or so are drawn from a generator seeded afresh, so that files of every
	// size end with the same turns and benchmarks of "last" questions compare like with like.
	tail := false
	next := 1
	for g.off < body || g.turns == 0 {
		if !tail && g.off >= body-tailSize {
			g.rnd, tail = tailRand(o.Seed), true
		}
		if next <= o.Boundaries && g.off*int64(o.Boundaries+1) >= body*int64(next) {
			g.boundary()
			next++
			continue
		}
		g.turn()
		if g.err != nil {
			return Truth{}, g.err
		}
	}
	for ; next <= o.Boundaries; next++ {
		g.boundary()
	}
	if !tail {
		g.rnd = tailRand(o.Seed)
	}
	g.lastTurn()
	if o.PartialTail {
		g.partial()
	}
	if err := g.bw.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	g.truth.Size = g.off
	g.truth.Edited = g.edited()
	return g.truth, g.err
}

const tailSize = 256 << 10

func tailRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7a11)) }

type gen struct {
	o      Options
	rnd    *rand.Rand
	bw     *bufio.Writer
	b      []byte // the line being built
	off    int64
	err    error
	seq    int
	turns  int
	filler string
	truth  Truth
	edits  []string // edited paths since the last boundary, in order
	uuid   string   // uuid of the previous line
}

// ---- lines -------------------------------------------------------------------------------

func (g *gen) emit() {
	if g.err != nil {
		return
	}
	g.b = append(g.b, '\n')
	n, err := g.bw.Write(g.b)
	g.off += int64(n)
	g.err = err
	g.truth.Lines++
	g.b = g.b[:0]
}

func (g *gen) id(prefix string) string {
	g.seq++
	return fmt.Sprintf("%s%08x-%04x-4%03x-8%03x-%012x", prefix, g.seq, g.seq&0xffff, g.seq&0xfff, g.rnd.IntN(0xfff), g.rnd.Uint64()&0xffffffffffff)
}

func (g *gen) timestamp() string {
	s := g.seq
	return fmt.Sprintf("2026-09-%02dT%02d:%02d:%02d.%03dZ", 1+s/86400%28, s/3600%24, s/60%60, s%60, s%1000)
}

// head starts a conversational line with the fields Claude Code writes first.
func (g *gen) head(sidechain bool) {
	uuid := g.id("")
	g.b = append(g.b, `{"parentUuid":`...)
	if g.uuid == "" {
		g.b = append(g.b, "null"...)
	} else {
		g.b = appendString(g.b, g.uuid)
	}
	g.uuid = uuid
	g.b = append(g.b, `,"isSidechain":`...)
	g.b = strconv.AppendBool(g.b, sidechain)
	g.b = append(g.b, `,"userType":"external","cwd":`...)
	g.b = appendString(g.b, g.o.Root)
	g.b = append(g.b, `,"sessionId":"3f0c2a9e-5d1b-4c7e-9a2f-6b8d0e1f2a3b","version":"2.1.240","gitBranch":"main"`...)
}

// tail ends a conversational line.
func (g *gen) tail() {
	g.b = append(g.b, `,"uuid":`...)
	g.b = appendString(g.b, g.uuid)
	g.b = append(g.b, `,"timestamp":`...)
	g.b = appendString(g.b, g.timestamp())
	g.b = append(g.b, '}')
	g.emit()
}

func (g *gen) prompt(text string, array bool) {
	g.head(false)
	g.b = append(g.b, `,"type":"user","message":{"role":"user","content":`...)
	if array {
		g.b = append(g.b, `[{"type":"text","text":`...)
		g.b = appendString(g.b, text)
		g.b = append(g.b, `}]`...)
	} else {
		g.b = appendString(g.b, text)
	}
	g.b = append(g.b, '}')
	g.tail()
	g.truth.Prompts = append([]string{text}, g.truth.Prompts...)
	if len(g.truth.Prompts) > 10 {
		g.truth.Prompts = g.truth.Prompts[:10]
	}
}

// harnessUser writes a user line that is not a typed prompt.
func (g *gen) harnessUser() {
	g.head(false)
	switch g.rnd.IntN(3) {
	case 0:
		g.b = append(g.b, `,"type":"user","message":{"role":"user","content":"<command-name>/context</command-name>\n            <command-message>context</command-message>\n            <command-args></command-args>"}`...)
	case 1:
		g.b = append(g.b, `,"type":"user","message":{"role":"user","content":"<local-command-stdout>Context usage: 41%</local-command-stdout>"}`...)
	default:
		g.b = append(g.b, `,"type":"user","message":{"role":"user","content":[{"type":"text","text":"Stop hook feedback: keep going"}]},"isMeta":true`...)
	}
	g.tail()
}

// assistant writes one line of an assistant API message holding one content block.
func (g *gen) assistant(msgID string, block func(), sidechain bool) {
	g.head(sidechain)
	g.b = append(g.b, `,"message":{"model":"claude-opus-4-8","id":`...)
	g.b = appendString(g.b, msgID)
	g.b = append(g.b, `,"type":"message","role":"assistant","content":[`...)
	block()
	g.b = append(g.b, `],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":1520,"cache_read_input_tokens":48211,"output_tokens":312,"service_tier":"standard"}},"requestId":"req_011CV`...)
	g.b = strconv.AppendInt(g.b, int64(g.seq), 36)
	g.b = append(g.b, `","type":"assistant"`...)
	g.tail()
}

func (g *gen) textBlock(text string) func() {
	return func() {
		g.b = append(g.b, `{"type":"text","text":`...)
		g.b = appendString(g.b, text)
		g.b = append(g.b, '}')
	}
}

func (g *gen) thinkingBlock() func() {
	return func() {
		g.b = append(g.b, `{"type":"thinking","thinking":`...)
		g.b = appendString(g.b, g.sentences(2+g.rnd.IntN(6)))
		g.b = append(g.b, `,"signature":"EqQBCkYIBxgCKkDx`...)
		g.b = append(g.b, g.filler[:80]...)
		g.b = append(g.b, `"}`...)
	}
}

// toolUse writes a tool_use block: name with its input written by input.
func (g *gen) toolUse(id, name string, input func()) func() {
	return func() {
		g.b = append(g.b, `{"type":"tool_use","id":`...)
		g.b = appendString(g.b, id)
		g.b = append(g.b, `,"name":`...)
		g.b = appendString(g.b, name)
		g.b = append(g.b, `,"input":{`...)
		input()
		g.b = append(g.b, `}}`...)
	}
}

// toolResult writes the user line carrying a tool's result, with about size bytes of content.
func (g *gen) toolResult(toolID string, size int64) {
	g.head(false)
	g.b = append(g.b, `,"type":"user","message":{"role":"user","content":[{"tool_use_id":`...)
	g.b = appendString(g.b, toolID)
	g.b = append(g.b, `,"type":"tool_result","content":"`...)
	if size > 1<<20 {
		// Stream a giant content instead of building it in memory.
		g.emitPartial()
		for size > 0 && g.err == nil {
			n := int64(runeStart(g.filler, int(min(size, int64(len(g.filler))))))
			var w int
			w, g.err = g.bw.WriteString(g.filler[:n])
			g.off += int64(w)
			size -= max(n, 1)
		}
	} else {
		g.appendFiller(size)
	}
	g.b = append(g.b, `"}]},"toolUseResult":{"stdout":"","stderr":"","interrupted":false,"isImage":false}`...)
	g.tail()
}

// emitPartial writes the line built so far without ending it.
func (g *gen) emitPartial() {
	if g.err != nil {
		return
	}
	n, err := g.bw.Write(g.b)
	g.off += int64(n)
	g.err = err
	g.b = g.b[:0]
}

func (g *gen) attachmentHook(typ, name, command string, ms int, timedOut bool) {
	g.head(false)
	g.b = append(g.b, `,"type":"attachment","attachment":{"type":`...)
	g.b = appendString(g.b, typ)
	g.b = append(g.b, `,"hookName":`...)
	g.b = appendString(g.b, name)
	event, _, _ := strings.Cut(name, ":")
	g.b = append(g.b, `,"toolUseID":"`...)
	g.b = append(g.b, g.id("")...)
	g.b = append(g.b, `","hookEvent":`...)
	g.b = appendString(g.b, event)
	g.b = append(g.b, `,"content":"","stdout":"","stderr":"","exitCode":0,"command":`...)
	g.b = appendString(g.b, command)
	g.b = append(g.b, `,"durationMs":`...)
	g.b = strconv.AppendInt(g.b, int64(ms), 10)
	if timedOut {
		g.b = append(g.b, `,"timedOut":true,"timeoutMs":30000`...)
	}
	g.b = append(g.b, '}')
	g.tail()
	g.truth.HookRuns++
}

func (g *gen) progress() {
	g.head(false)
	g.b = append(g.b, `,"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Edit","command":"prettier --write"},"parentToolUseID":"toolu_x","toolUseID":"toolu_x"`...)
	g.tail()
}

func (g *gen) snapshot(msgID string) {
	g.b = append(g.b, `{"type":"file-history-snapshot","messageId":`...)
	g.b = appendString(g.b, msgID)
	g.b = append(g.b, `,"snapshot":{"messageId":`...)
	g.b = appendString(g.b, msgID)
	g.b = append(g.b, `,"trackedFileBackups":{},"timestamp":`...)
	g.b = appendString(g.b, g.timestamp())
	g.b = append(g.b, `},"isSnapshotUpdate":false}`...)
	g.emit()
}

func (g *gen) queue(op string) {
	g.b = append(g.b, `{"type":"queue-operation","operation":`...)
	g.b = appendString(g.b, op)
	g.b = append(g.b, `,"timestamp":`...)
	g.b = appendString(g.b, g.timestamp())
	g.b = append(g.b, `,"sessionId":"3f0c2a9e-5d1b-4c7e-9a2f-6b8d0e1f2a3b"}`...)
	g.emit()
}

func (g *gen) system(subtype, extra string) {
	g.head(false)
	g.b = append(g.b, `,"type":"system","subtype":`...)
	g.b = appendString(g.b, subtype)
	g.b = append(g.b, extra...)
	g.tail()
}

// boundary writes a compaction: the boundary line, then the summary as a user line.
func (g *gen) boundary() {
	g.system("compact_boundary", `,"content":"Conversation compacted","isMeta":false,"level":"info","compactMetadata":{"trigger":"auto","preTokens":167012}`)
	g.truth.LastBoundary, g.truth.HasBoundary = g.off, true
	g.head(false)
	g.b = append(g.b, `,"type":"user","message":{"role":"user","content":`...)
	g.b = appendString(g.b, "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n"+g.sentences(40))
	g.b = append(g.b, `},"isCompactSummary":true,"isVisibleInTranscriptOnly":true`...)
	g.tail()
	g.edits = g.edits[:0]
}

// ---- turns -------------------------------------------------------------------------------

func (g *gen) turn() {
	g.turns++
	r := g.rnd
	if r.IntN(4) == 0 {
		g.queue("enqueue")
		g.queue("dequeue")
	}
	if r.IntN(8) == 0 {
		g.harnessUser()
	}
	g.prompt(g.sentences(1+r.IntN(3))+g.maybeQuestion(), r.IntN(5) == 0)
	g.attachmentHook("hook_success", "UserPromptSubmit", "/usr/local/bin/userpromptsubmit", 3+r.IntN(40), false)
	msg := g.id("msg_01")
	g.snapshot(msg)
	for round := r.IntN(4); round >= 0; round-- {
		msg = g.id("msg_01")
		if r.IntN(2) == 0 {
			g.assistant(msg, g.thinkingBlock(), false)
		}
		if r.IntN(2) == 0 {
			g.assistant(msg, g.textBlock(g.sentences(1+r.IntN(3))), false)
		}
		// One to three tool uses; results may land between the lines of one message.
		for n := 1 + r.IntN(3); n > 0; n-- {
			toolID := "toolu_01" + g.id("")[:24]
			g.assistant(msg, g.randomTool(toolID), false)
			if r.IntN(3) == 0 {
				g.progress()
			}
			g.toolResult(toolID, g.resultSize())
			if r.IntN(6) == 0 {
				g.attachmentHook("hook_success", "PostToolUse:Edit", "prettier --write", 50+r.IntN(400), false)
			}
			if r.IntN(200) == 0 {
				g.attachmentHook("hook_cancelled", "PreToolUse:Bash", "/opt/guard.sh", 30010, true)
			}
		}
	}
	msg = g.id("msg_01")
	g.assistant(msg, g.textBlock(g.sentences(2+r.IntN(8))+g.maybeQuestion()), false)
	g.system("turn_duration", `,"durationMs":`+strconv.Itoa(1000+r.IntN(90000))+`,"isMeta":false`)
	if r.IntN(50) == 0 {
		g.b = append(g.b, `{"type":"ai-title","aiTitle":`...)
		g.b = appendString(g.b, g.sentences(1))
		g.b = append(g.b, `,"sessionId":"3f0c2a9e-5d1b-4c7e-9a2f-6b8d0e1f2a3b"}`...)
		g.emit()
	}
	if r.IntN(10) == 0 {
		g.system("stop_hook_summary", `,"hookCount":1,"hookInfos":[{"command":"notify.sh","durationMs":17}],"hookErrors":[],"preventedContinuation":false,"stopReason":"","hasOutput":false,"level":"suggestion"`)
	}
}

// lastTurn writes the turn whose answers Truth records: a prompt, a Read whose result may be
// the giant line, an assistant message split over two lines with a hook line between them,
// then lines that are not the answer (a sidechain message, a turn_duration).
func (g *gen) lastTurn() {
	g.turns++
	prompt := "Last prompt: can you summarise what changed in " + g.o.Root + "/src/main.go?"
	g.prompt(prompt, false)
	g.attachmentHook("hook_success", "UserPromptSubmit", "/usr/local/bin/userpromptsubmit", 7, false)
	msg := g.id("msg_01")
	toolID := "toolu_01" + g.id("")[:24]
	g.assistant(msg, g.thinkingBlock(), false)
	g.assistant(msg, g.toolUse(toolID, "Read", func() {
		g.b = append(g.b, `"file_path":`...)
		g.b = appendString(g.b, g.o.Root+"/src/main.go")
	}), false)
	size := g.resultSize()
	if g.o.LongLine > 0 {
		size = g.o.LongLine
	}
	g.toolResult(toolID, size)
	msg = g.id("msg_01")
	part1 := "Here is the summary — «naïve» quotes \"kept\", a tab\there and a backslash \\ too."
	part2 := "Which file should I look at next?"
	g.assistant(msg, g.thinkingBlock(), false)
	g.assistant(msg, g.textBlock(part1), false)
	g.attachmentHook("hook_success", "PostToolUse:Read", "/usr/local/bin/posttool", 12, false)
	g.assistant(msg, g.textBlock(part2), false)
	g.truth.LastAssistantText = part1 + "\n\n" + part2
	g.assistant(g.id("msg_01"), g.textBlock("a subagent's words, not Claude's answer"), true)
	g.system("turn_duration", `,"durationMs":4242,"isMeta":false`)
}

// partial writes a line cut short, without its newline, as Claude Code leaves it mid-write.
func (g *gen) partial() {
	g.head(false)
	g.b = append(g.b, `,"message":{"model":"claude-opus-4-8","id":"msg_partial","type":"message","role":"assistant","content":[{"type":"text","text":"still being writ`...)
	g.emitPartial()
}

func (g *gen) randomTool(toolID string) func() {
	r := g.rnd
	file := g.path()
	switch r.IntN(12) {
	case 0, 1, 2:
		g.edit(file)
		return g.toolUse(toolID, "Edit", func() {
			g.field("file_path", file)
			g.b = append(g.b, ',')
			g.field("old_string", g.sentences(1))
			g.b = append(g.b, ',')
			g.field("new_string", g.sentences(2))
		})
	case 3:
		g.edit(file)
		return g.toolUse(toolID, "Write", func() {
			g.field("file_path", file)
			g.b = append(g.b, `,"content":"`...)
			g.appendFiller(int64(200 + r.IntN(4000)))
			g.b = append(g.b, '"')
		})
	case 4:
		g.edit(file)
		return g.toolUse(toolID, "MultiEdit", func() {
			g.field("file_path", file)
			g.b = append(g.b, `,"edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d","replace_all":true}]`...)
		})
	case 5:
		nb := strings.TrimSuffix(file, ".go") + ".ipynb"
		g.edit(nb)
		return g.toolUse(toolID, "NotebookEdit", func() {
			g.field("notebook_path", nb)
			g.b = append(g.b, `,"cell_id":"cell-3","new_source":"print(1)","edit_mode":"replace"`...)
		})
	case 6:
		todos := g.todos()
		return g.toolUse(toolID, "TodoWrite", func() {
			g.b = append(g.b, `"todos":[`...)
			for i, t := range todos {
				if i > 0 {
					g.b = append(g.b, ',')
				}
				g.b = append(g.b, '{')
				g.field("content", t.Subject)
				g.b = append(g.b, ',')
				g.field("status", t.Status)
				g.b = append(g.b, ',')
				g.field("activeForm", t.ActiveForm)
				g.b = append(g.b, '}')
			}
			g.b = append(g.b, ']')
		})
	case 7:
		return g.toolUse(toolID, "TaskCreate", func() {
			g.field("subject", "Check "+g.word())
			g.b = append(g.b, ',')
			g.field("description", g.sentences(1))
			g.b = append(g.b, ',')
			g.field("activeForm", "Checking "+g.word())
		})
	case 8, 9:
		return g.toolUse(toolID, "Bash", func() {
			g.field("command", "go test ./... -run "+g.word())
			g.b = append(g.b, ',')
			g.field("description", "Run the tests")
		})
	default:
		return g.toolUse(toolID, "Read", func() { g.field("file_path", file) })
	}
}

// Todo is one item of a generated TodoWrite list.
type Todo struct{ ID, Subject, ActiveForm, Status string }

func (g *gen) todos() []Todo {
	statuses := []string{"completed", "in_progress", "pending"}
	var ts []Todo
	for i := range 1 + g.rnd.IntN(5) {
		w := g.word()
		ts = append(ts, Todo{
			ID:         strconv.Itoa(i + 1),
			Subject:    "Fix the " + w + " handler",
			ActiveForm: "Fixing the " + w + " handler",
			Status:     statuses[g.rnd.IntN(3)],
		})
	}
	g.truth.Todos, g.truth.HasTodos = ts, true
	return ts
}

func (g *gen) edit(path string) { g.edits = append(g.edits, path) }

// edited returns the paths edited since the last boundary, most recent first, de-duplicated.
func (g *gen) edited() []string {
	var out []string
	seen := map[string]bool{}
	for i := len(g.edits) - 1; i >= 0; i-- {
		if p := g.edits[i]; !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func (g *gen) path() string {
	r := g.rnd
	dirs := []string{"src", "pkg/store", "pkg/api", "cmd/server", "docs", "internal/ü"}
	p := fmt.Sprintf("%s/%s/%s_%d.go", g.o.Root, dirs[r.IntN(len(dirs))], g.word(), r.IntN(40))
	if r.IntN(20) == 0 {
		p = fmt.Sprintf("/tmp/scratch/%s.txt", g.word())
	}
	return p
}

func (g *gen) field(key, value string) {
	g.b = appendString(g.b, key)
	g.b = append(g.b, ':')
	g.b = appendString(g.b, value)
}

// resultSize draws the size of a tool result: mostly a few KB, sometimes a whole large file.
func (g *gen) resultSize() int64 {
	r := g.rnd
	switch {
	case r.IntN(50) == 0:
		return int64(50<<10 + r.IntN(150<<10))
	case r.IntN(4) == 0:
		return int64(8<<10 + r.IntN(24<<10))
	}
	return int64(100 + r.IntN(6<<10))
}

// ---- text --------------------------------------------------------------------------------

var words = strings.Fields(`the a of to and in is it that for on with as this be are by file
function error test handler value return config session hook compact transcript line buffer
window reader offset parse token claude prompt edit write notebook café naïve 日本語 résumé 🙂
quote backslash tab newline struct interface goroutine channel mutex context deadline`)

func (g *gen) word() string {
	if v := g.o.Words; len(v) > 0 {
		return v[int(math.Exp(g.rnd.Float64()*math.Log(float64(len(v)))))-1]
	}
	return words[g.rnd.IntN(len(words))]
}

func (g *gen) sentences(n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteString(" ")
		}
		w := g.word()
		r, size := utf8.DecodeRuneInString(w)
		sb.WriteRune(unicode.ToUpper(r))
		sb.WriteString(w[size:])
		for range 4 + g.rnd.IntN(12) {
			sb.WriteString(" " + g.word())
		}
		switch g.rnd.IntN(10) {
		case 0:
			sb.WriteString(` "quoted" \ path`)
		case 1:
			sb.WriteString("\n\t- item")
		}
		sb.WriteString(".")
	}
	return sb.String()
}

func (g *gen) maybeQuestion() string {
	if g.rnd.IntN(3) == 0 {
		return " Should I also update the " + g.word() + " tests?"
	}
	return ""
}

// makeFiller builds 64 KiB of JSON-safe text (no quote, backslash or control byte, so any slice
// of it can be pasted inside a JSON string), with the odd token that tempts a lazy filter.
func makeFiller(r *rand.Rand) string {
	var sb strings.Builder
	for sb.Len() < 64<<10 {
		w := words[r.IntN(len(words))]
		switch r.IntN(400) {
		case 0:
			w = "compact_boundary isCompactSummary"
		case 1:
			w = "tool_use Edit Write TodoWrite hook_success"
		}
		sb.WriteString(w)
		sb.WriteByte(' ')
	}
	f := sb.String()
	return f[:runeStart(f, 64<<10)]
}

// appendFiller appends about n bytes of filler.
func (g *gen) appendFiller(n int64) {
	for n > 0 {
		start := runeStart(g.filler, g.rnd.IntN(len(g.filler)/2))
		end := runeStart(g.filler, start+int(min(n, int64(len(g.filler)-start))))
		if end <= start {
			return
		}
		g.b = append(g.b, g.filler[start:end]...)
		n -= int64(end - start)
	}
}

// runeStart moves i back to the start of the rune it falls in, so that s[:i] and s[i:] are
// both valid UTF-8.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// appendString appends s as a JSON string, escaped the way JSON.stringify does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// ParseSize reads a size such as "200MB", "60MiB", "512k" or "1048576". Every unit is binary:
// K, KB and KiB mean 1024 bytes, M, MB and MiB 1024², G, GB and GiB 1024³.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return int64(n * float64(mult)), nil
}
