// Package mcpserver is cairn's MCP server over stdio, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk); hooks/cairn-mcp runs it, and `cairn mcp` runs that.
//
// Each tool runs one cairn command — the cairn binary the caller names, with the arguments the
// tool's typed input names — and returns what it prints: the same code, the same locks, the same
// redaction, the same refusals as a person's `cairn …` in a terminal, and a park through MCP and
// one through a hook at the same moment both land, as two processes' do. The model pays tokens
// only for what it opens: search gives ids and snippets, show gives the whole item.
//
// Before the SDK sees a line, Serve screens it: a line that is not a JSON-RPC message gets a
// JSON-RPC error and the connection stays up (the SDK would end it), a request with a null id
// gets one too (the SDK would answer nothing), a line over 4 MiB is answered as too long, and at
// the end of stdin every request read is answered first.
package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-hooks/cairn/pkg/brief"
	"github.com/cairn-hooks/cairn/pkg/version"
)

// Serve serves MCP on stdin and stdout, each tool running the cairn CLI at cli, until the client
// closes stdin (which is not an error).
func Serve(ctx context.Context, cli string, stdin io.Reader, stdout io.Writer) error {
	s := newServer(cli)
	out := &lockedWriter{w: stdout}
	f := newInflight()
	if err := s.srv.Run(ctx, &mcp.IOTransport{Reader: screen(stdin, out, f), Writer: answers{out, f}}); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// lockedWriter is stdout, shared by the SDK's responses and screen's error replies: one message
// per Write, never interleaved.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// inflight counts the requests passed on to the SDK and the responses it has written: at the end
// of stdin the SDK would close the connection at once and drop what it has not answered yet, so
// screen waits, at most drainTimeout, until every request read before the end is answered. A
// client that writes its requests and closes its end (a script, a pipe) gets every answer.
type inflight struct {
	mu             sync.Mutex
	cond           *sync.Cond
	sent, answered int
}

func newInflight() *inflight {
	f := &inflight{}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *inflight) add() {
	f.mu.Lock()
	f.sent++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	f.answered++
	f.cond.Broadcast()
	f.mu.Unlock()
}

// drainTimeout bounds the wait for answers at the end of stdin: a tool call's own bound and a
// second.
const drainTimeout = callTimeout + time.Second

// wait returns when every request passed on is answered, or after d.
func (f *inflight) wait(d time.Duration) {
	t := time.AfterFunc(d, func() {
		f.mu.Lock()
		f.answered = max(f.answered, f.sent)
		f.cond.Broadcast()
		f.mu.Unlock()
	})
	defer t.Stop()
	f.mu.Lock()
	for f.answered < f.sent {
		f.cond.Wait()
	}
	f.mu.Unlock()
}

// answers is the SDK's writer: each Write is one message (the SDK writes them whole), and a
// response counts as an answer.
type answers struct {
	w io.Writer
	f *inflight
}

func (a answers) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(p, &m) == nil && len(m.ID) > 0 && string(m.ID) != "null" && m.Method == "" {
		a.f.done()
	}
	return n, err
}

func (a answers) Close() error { return nil }

// maxMessage bounds one request line; a longer one is answered with an error and skipped.
const maxMessage = 4 << 20

// screen passes on the lines of in that are JSON-RPC messages and answers every other line itself
// with a JSON-RPC error — a parse error for a line that is not JSON, an invalid request for JSON
// that is not a message — so that a malformed line costs the client one error reply, never the
// connection: the SDK ends a connection on a line it cannot decode.
func screen(in io.Reader, out io.Writer, f *inflight) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, long, err := readLine(br, maxMessage)
			if long {
				replyError(out, nil, -32600, fmt.Sprintf("Invalid Request: the line is too long (more than %d MiB)", maxMessage>>20))
			} else if t := bytes.TrimSpace(line); len(t) > 0 {
				if code, msg, id, request := check(t); code == dropLine {
					// nothing to pass on, nothing to answer
				} else if code != 0 {
					replyError(out, id, code, msg)
				} else {
					if request {
						f.add()
					}
					if _, werr := pw.Write(append(t, '\n')); werr != nil {
						return
					}
				}
			}
			if err != nil {
				f.wait(drainTimeout)
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// replyError writes one JSON-RPC error response.
func replyError(out io.Writer, id any, code int, msg string) {
	reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	out.Write(append(reply, '\n'))
}

// readLine reads one line of br, without its newline. A line longer than max is read to its end
// and dropped, and long reports it: it may well be JSON, only too long to take, and is answered
// so, not as a parse error. Its id is not known (the line is not kept), so the answer's is null.
func readLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(line)+len(bytes.TrimSuffix(chunk, []byte("\n"))) > max {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), long, err
	}
}

// check returns the JSON-RPC error for a line that is not a message (code 0 for one that is), the
// id to answer with (the line's own, when it has a usable one), and whether the line is a request
// that expects an answer.
func check(line []byte) (code int, msg string, id any, request bool) {
	if !json.Valid(line) {
		return -32700, "Parse error: the line is not JSON", nil, false
	}
	if depth(line) > maxDepth {
		return -32600, fmt.Sprintf("Invalid Request: nested deeper than %d levels", maxDepth), nil, false
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return -32600, "Invalid Request: not a JSON-RPC object", nil, false
	}
	var idv any
	if len(m.ID) > 0 && json.Unmarshal(m.ID, &idv) == nil {
		switch v := idv.(type) {
		case string:
		case float64:
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				idv = nil // a fractional id would be answered rounded (JSON-RPC: SHOULD NOT)
			}
		default:
			idv = nil
		}
	}
	var method string
	response := len(m.Method) == 0 && (len(m.Result) > 0 || len(m.Error) > 0)
	switch {
	case m.JSONRPC != "2.0":
		return -32600, `Invalid Request: "jsonrpc" must be "2.0"`, idv, false
	case len(m.Method) > 0 && json.Unmarshal(m.Method, &method) != nil:
		return -32600, `Invalid Request: "method" must be a string`, idv, false
	case len(m.Method) == 0 && !response:
		return -32600, "Invalid Request: neither a request nor a response", idv, false
	case response && idv == nil:
		// A response to no request of the server's: nothing is answered to a response, and the
		// SDK would end the connection on it.
		return dropLine, "", nil, false
	case string(m.ID) == "null":
		// JSON-RPC discourages a null id and MCP forbids it; the SDK would take the request for
		// a notification and answer nothing. It is an invalid request, answered with id null.
		return -32600, `Invalid Request: "id" must not be null (a request's id is a string or an integer)`, nil, false
	case len(m.ID) > 0 && string(m.ID) != "null" && idv == nil:
		return -32600, `Invalid Request: "id" must be a string or an integer`, nil, false
	}
	return 0, "", nil, method != "" && idv != nil
}

// dropLine is check's code for a line that is neither passed on nor answered.
const dropLine = -1

// maxDepth bounds how deeply a message nests (the SDK's decoder refuses more than 1,000 levels,
// and ends the connection when it does).
const maxDepth = 200

// depth is how deeply the JSON text line nests its arrays and objects.
func depth(line []byte) int {
	d, most, str, esc := 0, 0, false, false
	for _, c := range line {
		switch {
		case esc:
			esc = false
		case str:
			switch c {
			case '\\':
				esc = true
			case '"':
				str = false
			}
		case c == '"':
			str = true
		case c == '[' || c == '{':
			if d++; d > most {
				most = d
			}
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// maxText bounds a tool's text: Claude Code warns at 10,000 tokens of MCP output and cuts at
// 25,000; a listing longer than this is cut, and says so.
const maxText = 24 << 10

// callTimeout bounds one command: a command waits for a lock at most a few seconds, and git, the
// slowest thing the CLI runs, at most 10 s.
const callTimeout = 30 * time.Second

// instructions is what the server tells the client about itself.
const instructions = "cairn keeps this project's session history: checkpoints (saved by the user, automatic ones with Claude Code's compaction summaries, hand-offs left at session end, and those retention pruned), parked open loops, archived items, a timeline, and Claude Code's own transcripts of the project's sessions. Use search to find what earlier sessions did or decided, then show with an id to read one item whole (show session:<id> gives a session's digest and how to resume it)."

// The tools' inputs. A field without omitempty is required; the jsonschema tag is its description.
type (
	searchIn struct {
		Query  string `json:"query" jsonschema:"the words to find; every word must match, a trailing * matches a prefix"`
		Kind   string `json:"kind,omitempty" jsonschema:"keep only these kinds, comma-separated: saved, auto, handoff, checkpoint (the three), parked, archived, expired, timeline, session, pruned"`
		Branch string `json:"branch,omitempty" jsonschema:"keep only items recorded on this git branch"`
		Since  string `json:"since,omitempty" jsonschema:"keep only items from this recent: 7d, 2w, 12h or a date YYYY-MM-DD"`
		Limit  int    `json:"limit,omitempty" jsonschema:"at most this many results (default 10)"`
	}
	showIn struct {
		ID string `json:"id" jsonschema:"an id that search returned"`
	}
	listCheckpointsIn struct {
		All bool `json:"all,omitempty" jsonschema:"list the checkpoints of every branch, not only the current one"`
	}
	saveCheckpointIn struct {
		Title     string `json:"title" jsonschema:"a short title; it names the checkpoint's file"`
		Summary   string `json:"summary" jsonschema:"what was being done and where it stands"`
		Decisions string `json:"decisions,omitempty" jsonschema:"the decisions made, and why"`
		Remaining string `json:"remaining,omitempty" jsonschema:"the work that remains"`
		Notes     string `json:"notes,omitempty" jsonschema:"anything else worth keeping"`
	}
	parkIn struct {
		Kind   string `json:"kind" jsonschema:"question (a question left unanswered), deferred (an idea for later) or side (a side idea)"`
		Idea   string `json:"idea" jsonschema:"the open loop in a few words"`
		Detail string `json:"detail" jsonschema:"one or two sentences of context"`
		Why    string `json:"why,omitempty" jsonschema:"why it matters"`
		How    string `json:"how,omitempty" jsonschema:"how to approach it"`
		Slug   string `json:"slug,omitempty" jsonschema:"a short id for the item (made from the idea when empty)"`
	}
	archiveIn struct {
		Match string `json:"match" jsonschema:"the parked item's slug, name or words of its text"`
	}
	forgetIn struct {
		ID     string `json:"id" jsonschema:"an id that search returned: a checkpoint, parked:…, archived:…, expired:…, timeline:…, pruned:…, session:…"`
		DryRun bool   `json:"dry_run,omitempty" jsonschema:"say what would be removed and remove nothing"`
	}
	broadcastIn struct {
		Message string `json:"message" jsonschema:"the message each other session of this project receives once, with its next prompt"`
	}
	noIn struct{}
)

// addTools registers the server's tools: each names the cairn command its input becomes. User text
// always goes after "--", so text that starts with "-" is never read as a flag.
func addTools(s *server) {
	tool := func(name, desc string, readOnly bool) *mcp.Tool {
		return &mcp.Tool{Name: name, Description: desc, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly}}
	}
	mcp.AddTool(s.srv, tool("search", "Search this project's history — checkpoints of every kind with their compaction summaries and hand-offs (pruned ones too), parked, archived and expired items, the timeline, and the sessions Claude Code recorded (what was asked, said, run and edited) — best match first. Each result has its kind, age, branch, title, a snippet with the matches in «guillemets», and an id for show; a session's id is session:<id>.", true),
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
			args := []string{"search"}
			if in.Kind != "" {
				args = append(args, "--kind", in.Kind)
			}
			if in.Branch != "" {
				args = append(args, "--branch", in.Branch)
			}
			if in.Since != "" {
				args = append(args, "--since", in.Since)
			}
			if in.Limit != 0 {
				args = append(args, "--limit", strconv.Itoa(in.Limit))
			}
			return s.runData(ctx, append(args, "--", in.Query)...)
		})
	mcp.AddTool(s.srv, tool("show", "Show the whole item an id from search names: a checkpoint (a pruned one too), a parked, archived or expired item, a timeline line, or for session:<id> a digest of the session (its requests, files edited, commands and how they ended, Claude Code's summaries, decisions) and the command that resumes it.", true),
		func(ctx context.Context, _ *mcp.CallToolRequest, in showIn) (*mcp.CallToolResult, any, error) {
			return s.runData(ctx, "show", "--", in.ID)
		})
	mcp.AddTool(s.srv, tool("list_checkpoints", "List the checkpoints (saved, automatic, hand-off) of the current branch, newest first, or of every branch with all.", true),
		func(ctx context.Context, _ *mcp.CallToolRequest, in listCheckpointsIn) (*mcp.CallToolResult, any, error) {
			if in.All {
				return s.runData(ctx, "context", "list", "--all")
			}
			return s.runData(ctx, "context", "list")
		})
	mcp.AddTool(s.srv, tool("save_checkpoint", "Save the working context as a new checkpoint the user can restore later (secrets are redacted before it is written).", false),
		func(ctx context.Context, _ *mcp.CallToolRequest, in saveCheckpointIn) (*mcp.CallToolResult, any, error) {
			args := []string{"context", "save", "--summary", in.Summary}
			for _, f := range []struct{ flag, v string }{{"--decisions", in.Decisions}, {"--remaining", in.Remaining}, {"--notes", in.Notes}} {
				if f.v != "" {
					args = append(args, f.flag, f.v)
				}
			}
			return s.run(ctx, append(args, "--", in.Title)...)
		})
	mcp.AddTool(s.srv, tool("park", "Park an open loop — a question left unanswered, an idea deferred, a side idea — so that a later session finds it (refused when 10 are open: archive one first).", false),
		func(ctx context.Context, _ *mcp.CallToolRequest, in parkIn) (*mcp.CallToolResult, any, error) {
			args := []string{"session", "park"}
			for _, f := range []struct{ flag, v string }{{"--why", in.Why}, {"--how", in.How}, {"--slug", in.Slug}} {
				if f.v != "" {
					args = append(args, f.flag, f.v)
				}
			}
			return s.run(ctx, append(args, "--", in.Kind, in.Idea, in.Detail)...)
		})
	mcp.AddTool(s.srv, tool("list_parked", "List the parked items, grouped by kind, with their age (items 30 days old or more are deleted first, as at every session start).", false),
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return s.runData(ctx, "session", "resume")
		})
	mcp.AddTool(s.srv, tool("archive", "Close the parked item that best matches: its text goes to the audit log, where search still finds it.", false),
		func(ctx context.Context, _ *mcp.CallToolRequest, in archiveIn) (*mcp.CallToolResult, any, error) {
			return s.run(ctx, "session", "archive", "--", in.Match)
		})
	mcp.AddTool(s.srv, tool("list_sessions", "List this project's sessions that have not ended: active, or idle after 10 minutes without a prompt.", true),
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return s.runData(ctx, "session", "list")
		})
	mcp.AddTool(s.srv, tool("claims", "List the files the live sessions of this project's worktree are editing (their file claims): which session, which file, since when, its last edit, its branch. A claim lasts 30 minutes after the session's last edit of the file and ends with the session.", true),
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return s.runData(ctx, "claims")
		})
	mcp.AddTool(s.srv, tool("forget", "Forget an item for good, at the user's request: remove it from every record cairn keeps and leave a tombstone (an id and a hash, never the text) so that no rebuild brings it back. It cannot reach Claude Code's transcripts, git history or other copies; dry_run says what it would do.", false),
		func(ctx context.Context, _ *mcp.CallToolRequest, in forgetIn) (*mcp.CallToolResult, any, error) {
			if in.DryRun {
				return s.runData(ctx, "forget", "--dry-run", "--", in.ID)
			}
			return s.runData(ctx, "forget", "--", in.ID)
		})
	mcp.AddTool(s.srv, tool("broadcast", "Send a message to the other sessions of this project; each receives it once, with its next prompt.", false),
		func(ctx context.Context, _ *mcp.CallToolRequest, in broadcastIn) (*mcp.CallToolResult, any, error) {
			return s.run(ctx, "session", "broadcast", "--", in.Message)
		})
}

// ToolNames are the tools' names, in the order they are registered.
var ToolNames = []string{"search", "show", "list_checkpoints", "save_checkpoint", "park", "list_parked", "archive", "list_sessions", "claims", "forget", "broadcast"}

// server is the MCP server and the cairn binary its tools run.
type server struct {
	srv     *mcp.Server
	cli     string
	slots   chan struct{} // one per cairn command running
	timeout time.Duration // callTimeout, but for tests
}

// maxRunning bounds the cairn commands the server runs at once: the SDK serves calls
// concurrently, and a client that sends many (or a repository whose git stalls each for its
// 10 s bound) would otherwise start a process per call. The others wait their turn.
const maxRunning = 4

func newServer(cli string) *server {
	s := &server{cli: cli, slots: make(chan struct{}, maxRunning), timeout: callTimeout}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "cairn", Version: version.String()},
		&mcp.ServerOptions{Instructions: instructions})
	addTools(s)
	return s
}

// run runs one cairn command, in this process's directory and environment, with no stdin, and
// makes its outcome the tool's result: what it printed and, for a failure (exit 1 or 2), its
// error lines too, marked as an error the model can read and act on.
func (s *server) run(ctx context.Context, args ...string) (*mcp.CallToolResult, any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("cairn-mcp: error: %d cairn commands were running for %v: try again", maxRunning, s.timeout)}}}, nil, nil
	}
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, s.cli, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	failed := err != nil
	text := strings.TrimRight(out.String(), "\n")
	if e := strings.TrimRight(errb.String(), "\n"); e != "" {
		if text != "" {
			text += "\n"
		}
		text += e
	}
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ctx.Err() != nil) {
		text = strings.TrimSpace(text + "\ncairn-mcp: error: " + err.Error())
	}
	if text == "" {
		text = "(nothing printed)"
	}
	return &mcp.CallToolResult{IsError: failed, Content: []mcp.Content{&mcp.TextContent{Text: clipText(text, maxText)}}}, nil, nil
}

// runData is run for a tool whose output quotes the project's records — checkpoints, parked and
// archived items, the timeline, the registry, the history: files a cloned repository can commit
// (and transcripts that quote them). Its output reaches Claude as the tool's result, so a
// successful one goes whole inside the fence cairn uses for repository text (brief.Fence),
// attributed to the command; an error stays cairn's own words.
func (s *server) runData(ctx context.Context, args ...string) (*mcp.CallToolResult, any, error) {
	res, meta, err := s.run(ctx, args...)
	if err == nil && res != nil && !res.IsError && len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			tc.Text = brief.Fence("cairn "+strings.Join(commandOf(args), " "), tc.Text)
		}
	}
	return res, meta, err
}

// commandOf is the command words of a cairn command line: up to its first flag or "--".
func commandOf(args []string) []string {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			return args[:i]
		}
	}
	return args
}

// clipText cuts s to at most max bytes at a line end (or a rune boundary) and says so.
func clipText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := s[:max]
	if i := strings.LastIndexByte(cut, '\n'); i > max/2 {
		cut = cut[:i]
	}
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + fmt.Sprintf("\n… cut at %d of %d bytes: narrow the request (search with kind, branch or limit; show one id)", len(cut), len(s))
}
