package recall

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// obj is a JSON object that keeps its keys in the order given: Claude Code writes "type" and
// the ids early in a line, and cairn's transcript reader looks for some tokens in the first
// KiBs of a line, so a transcript written with sorted keys would not read like a real one.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// liner writes the lines of one session's transcript in Claude Code 2.1.332's shapes
// (testscripts/e2e/FINDINGS.md §f, and a probe of its Bash results): one line per content block,
// tool results on user lines with a top-level toolUseResult, bookkeeping lines between them.
type liner struct {
	sid, cwd, branch string
	clock            time.Time
	n                int    // ids issued
	parent           string // uuid of the last line
	out              strings.Builder
}

func (l *liner) id(prefix string) string {
	l.n++
	return fmt.Sprintf("%s%08d-%s", prefix, l.n, l.sid[:8])
}

// nextID is the id the next call of id(prefix) returns: a hook that runs before a tool call
// (PreToolUse) is told the call's id before its line is written.
func (l *liner) nextID(prefix string) string {
	return fmt.Sprintf("%s%08d-%s", prefix, l.n+1, l.sid[:8])
}

func (l *liner) stamp() string {
	l.clock = l.clock.Add(1500 * time.Millisecond)
	return l.clock.UTC().Format("2006-01-02T15:04:05.000Z")
}

func (l *liner) emit(o obj) {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err) // only values built here are marshalled
	}
	l.out.Write(b)
	l.out.WriteByte('\n')
}

// message writes a user or assistant line around msg, with the fields every such line carries.
func (l *liner) message(typ string, msg any, sidechain bool, extra ...kv) {
	uuid := l.id("u")
	o := obj{{"parentUuid", l.parent}, {"isSidechain", sidechain}, {"type", typ}, {"message", msg}, {"uuid", uuid}, {"timestamp", l.stamp()}}
	o = append(o, extra...)
	o = append(o, kv{"userType", "external"}, kv{"entrypoint", "sdk-cli"}, kv{"cwd", l.cwd}, kv{"sessionId", l.sid}, kv{"version", "2.1.332"}, kv{"gitBranch", l.branch})
	l.emit(o)
	l.parent = uuid
}

// prompt writes a typed prompt, with the queue operations that come before it.
func (l *liner) prompt(text string) {
	l.emit(obj{{"type", "queue-operation"}, {"operation", "enqueue"}, {"timestamp", l.stamp()}, {"sessionId", l.sid}, {"content", text}})
	l.emit(obj{{"type", "queue-operation"}, {"operation", "dequeue"}, {"timestamp", l.stamp()}, {"sessionId", l.sid}})
	l.message("user", obj{{"role", "user"}, {"content", text}}, false, kv{"promptId", l.id("p")}, kv{"permissionMode", "acceptEdits"}, kv{"promptSource", "sdk"})
}

// assistant writes one content block of the message msgID.
func (l *liner) assistant(msgID string, block obj, sidechain bool) {
	stop := "end_turn"
	if block[0].v == "tool_use" {
		stop = "tool_use"
	}
	l.message("assistant", obj{{"content", []obj{block}}, {"id", msgID}, {"model", "claude-opus-5-5"}, {"role", "assistant"},
		{"stop_reason", stop}, {"type", "message"}, {"usage", obj{{"input_tokens", 12487}, {"output_tokens", 29}}}}, sidechain)
}

func (l *liner) text(msgID, text string, sidechain bool) {
	l.assistant(msgID, obj{{"type", "text"}, {"text", text}}, sidechain)
}

// toolUse writes a tool_use block and returns its id.
func (l *liner) toolUse(msgID, name string, input obj, sidechain bool) string {
	id := l.id("toolu_")
	l.assistant(msgID, obj{{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}}, sidechain)
	return id
}

// result writes the user line of a tool's result: content is what the model sees, top what
// Claude Code keeps as toolUseResult.
func (l *liner) result(toolID, content string, isError bool, top any, sidechain bool) {
	block := obj{{"type", "tool_result"}, {"content", content}, {"is_error", isError}, {"tool_use_id", toolID}}
	if !isError {
		block = obj{{"tool_use_id", toolID}, {"type", "tool_result"}, {"content", content}, {"is_error", false}}
	}
	l.message("user", obj{{"role", "user"}, {"content", []obj{block}}}, sidechain, kv{"toolUseResult", top})
}

// bash writes a Bash tool use and its result as Claude Code 2.1.332 records them: a failing
// command's result content starts "Exit code N" and its toolUseResult is the string "Error: …";
// a succeeding one has the output as content and an object as toolUseResult.
func (l *liner) bash(msgID, command, desc string, exit int, output string) {
	id := l.toolUse(msgID, "Bash", obj{{"command", command}, {"description", desc}}, false)
	if exit != 0 {
		content := fmt.Sprintf("Exit code %d\n%s", exit, output)
		l.result(id, content, true, "Error: "+content, false)
		return
	}
	l.result(id, output, false, obj{{"stdout", output}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}, {"noOutputExpected", false}}, false)
}

// bookkeeping writes the lines Claude Code adds around every turn.
func (l *liner) bookkeeping(lastPrompt string) {
	l.emit(obj{{"type", "last-prompt"}, {"lastPrompt", lastPrompt}, {"leafUuid", l.parent}, {"sessionId", l.sid}})
	l.emit(obj{{"type", "atis-latch"}, {"atis", ""}, {"sessionId", l.sid}})
}

// filler writes about n bytes of lines that carry no fact: api-request-shape lines (the bulk of
// a real transcript) and attachments.
func (l *liner) filler(n int, words func(int) string) {
	for n > 0 {
		size := min(n, 48<<10)
		text := words(size)
		l.emit(obj{{"type", "api-request-shape"}, {"sessionId", l.sid}, {"shapeHash", l.id("h")}, {"timestamp", l.stamp()}, {"version", "2.1.332"},
			{"shape", obj{{"system", []obj{{{"type", "text"}, {"text", text}}}}}}})
		n -= size + 200
	}
	l.emit(obj{{"parentUuid", l.parent}, {"isSidechain", false}, {"attachment", obj{{"type", "date"}, {"date", l.clock.UTC().Format("2006-01-02")}}},
		{"type", "attachment"}, {"uuid", l.id("a")}, {"timestamp", l.stamp()}, {"sessionId", l.sid}})
}

// boundary writes the compaction's compact_boundary line and the summary line that follows it,
// as Claude Code appends them once the compaction's hooks have run.
func (l *liner) boundary(trigger, summary string) {
	uuid := l.id("u")
	l.emit(obj{{"parentUuid", nil}, {"logicalParentUuid", l.parent}, {"isSidechain", false}, {"type", "system"}, {"subtype", "compact_boundary"},
		{"content", "Conversation compacted"}, {"level", "info"},
		{"compactMetadata", obj{{"trigger", trigger}, {"preTokens", 160000}, {"postTokens", 9000}, {"durationMs", 230}}},
		{"uuid", uuid}, {"timestamp", l.stamp()}, {"cwd", l.cwd}, {"sessionId", l.sid}, {"version", "2.1.332"}, {"gitBranch", l.branch}})
	l.parent = uuid
	l.message("user", obj{{"role", "user"}, {"content", ContinuationPreamble + summary}}, false,
		kv{"isCompactSummary", true}, kv{"isVisibleInTranscriptOnly", true})
	if trigger == "manual" {
		l.message("user", obj{{"role", "user"}, {"content", "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>"}}, false)
		l.message("user", obj{{"role", "user"}, {"content", "<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>"}}, false)
	}
}

// ContinuationPreamble opens the summary Claude sees after a compaction.
const ContinuationPreamble = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n"

// fillerWords make the filler: no token of a session (a component name and a number) is among them.
var fillerWords = strings.Fields("the model reads tools and prompts before it answers each turn with text blocks thinking blocks " +
	"tool results attachments and environment snapshots that the client records for every request it makes to the api")

var fillerBlock = func() string {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(fillerWords[(i*7+i/len(fillerWords))%len(fillerWords)])
		b.WriteByte(' ')
	}
	return b.String()
}()

// fillerText returns n bytes of filler (at most 64 KiB).
func fillerText(n int) string { return fillerBlock[:min(n, len(fillerBlock))] }
