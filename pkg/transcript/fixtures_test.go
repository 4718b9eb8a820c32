package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines in the shapes Claude Code writes (trimmed copies of public transcripts;
// docs/TRANSCRIPT.md).
const (
	assistantToolUse = `{"parentUuid":"3b1c","isSidechain":false,"userType":"external","cwd":"/home/me/proj","sessionId":"s1","version":"2.1.240","gitBranch":"main","message":{"model":"claude-opus-4-8","id":"msg_01A","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01X","name":"Edit","input":{"file_path":"/home/me/proj/src/main.go","old_string":"a := 1","new_string":"a := \"two\"\n"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":120}},"requestId":"req_1","type":"assistant","uuid":"9a2e","timestamp":"2026-09-01T10:00:00.000Z"}`
	assistantText    = `{"parentUuid":"9a2e","isSidechain":false,"userType":"external","cwd":"/home/me/proj","sessionId":"s1","version":"2.1.240","gitBranch":"main","message":{"model":"claude-opus-4-8","id":"msg_01B","type":"message","role":"assistant","content":[{"type":"text","text":"Done — «naïve» \"quoted\" \\ and\na newline. Shall I run the tests?"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":4,"output_tokens":20}},"requestId":"req_2","type":"assistant","uuid":"7f00","timestamp":"2026-09-01T10:00:01.000Z"}`
	userToolResult   = `{"parentUuid":"9a2e","isSidechain":false,"userType":"external","cwd":"/home/me/proj","sessionId":"s1","version":"2.1.240","gitBranch":"main","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01X","type":"tool_result","content":"The file /home/me/proj/src/main.go has been updated."}]},"uuid":"c3d4","timestamp":"2026-09-01T10:00:00.500Z","toolUseResult":{"filePath":"/home/me/proj/src/main.go","oldString":"a := 1","newString":"a := 2"}}`
	compactBoundary  = `{"parentUuid":null,"logicalParentUuid":"7f00","isSidechain":false,"userType":"external","cwd":"/home/me/proj","sessionId":"s1","version":"2.1.240","gitBranch":"main","type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2026-09-01T11:00:00.000Z","uuid":"b0b0","level":"info","compactMetadata":{"trigger":"auto","preTokens":167012}}`
	compactSummary   = `{"parentUuid":"b0b0","isSidechain":false,"userType":"external","cwd":"/home/me/proj","sessionId":"s1","version":"2.1.240","gitBranch":"main","type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. Summary: the user asked to fix main.go."},"isCompactSummary":true,"isVisibleInTranscriptOnly":true,"uuid":"c0c0","timestamp":"2026-09-01T11:00:00.100Z"}`
	hookSuccess      = `{"parentUuid":"p","isSidechain":false,"attachment":{"type":"hook_success","hookName":"PreToolUse:Bash","toolUseID":"toolu_1","hookEvent":"PreToolUse","content":"","stdout":"","stderr":"","exitCode":0,"command":"/Users/me/.claude/hooks/rtk-rewrite.sh","durationMs":31},"type":"attachment","uuid":"u1","timestamp":"2026-07-11T19:42:19.128Z","cwd":"/p","sessionId":"s1"}`
	hookCancelled    = `{"attachment":{"type":"hook_cancelled","hookName":"PreToolUse:AskUserQuestion","toolUseID":"toolu_2","hookEvent":"PreToolUse","command":"node /Users/user/hook.mjs","durationMs":60056,"timedOut":true,"timeoutMs":60000},"type":"attachment","timestamp":"2026-10-02T03:12:29.860Z"}`
	fileSnapshot     = `{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"2026-09-01T10:00:00.000Z"},"isSnapshotUpdate":false}`
	queueOp          = `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-09-01T10:00:00.000Z","sessionId":"s1","content":"later"}`
)

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func prompt(text string) string {
	return `{"parentUuid":"x","isSidechain":false,"type":"user","message":{"role":"user","content":` + jsonString(text) + `},"uuid":"u","timestamp":"t"}`
}

func promptBlocks(blocks ...string) string {
	return `{"parentUuid":"x","isSidechain":false,"type":"user","message":{"role":"user","content":[` + strings.Join(blocks, ",") + `]},"uuid":"u","timestamp":"t"}`
}

func toolResult(content string) string {
	return promptBlocks(`{"tool_use_id":"toolu_1","type":"tool_result","content":` + jsonString(content) + `}`)
}

func textBlock(s string) string { return `{"type":"text","text":` + jsonString(s) + `}` }

func toolUseBlock(name, input string) string {
	return `{"type":"tool_use","id":"toolu_1","name":` + jsonString(name) + `,"input":` + input + `}`
}

const thinkingBlock = `{"type":"thinking","thinking":"Let me think.","signature":"EqQB"}`

// asst is an assistant line of API message id holding blocks; extra is spliced in as
// top-level fields (e.g. `"isSidechain":true,`).
func asst(id, extra string, blocks ...string) string {
	idField := ""
	if id != "" {
		idField = `"id":` + jsonString(id) + `,`
	}
	return `{"parentUuid":"x",` + extra + `"message":{"model":"claude-opus-4-8",` + idField +
		`"type":"message","role":"assistant","content":[` + strings.Join(blocks, ",") +
		`],"stop_reason":null},"type":"assistant","uuid":"a","timestamp":"t"}`
}

// writeLines writes lines, each ended by "\n", to a new file and returns its path.
func writeLines(t testing.TB, lines ...string) string {
	t.Helper()
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	return writeRaw(t, sb.String())
}

func writeRaw(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// small limits are small enough to make fixture lines grow the window, large enough to hold
// every fixture line whole, so answers must not change.
var small = limits{minWindow: 16, lineCap: 2048, maxBackScan: 0}
