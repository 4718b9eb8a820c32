// Package mockapi is a loopback mock of the Anthropic Messages API, good
// enough to drive a real Claude Code binary (ANTHROPIC_BASE_URL) in
// end-to-end tests.
//
// Claude Code talks to it with POST /v1/messages?beta=true and stream:true,
// so replies are streamed as server-sent events exactly like the real API:
// message_start, content_block_start / content_block_delta (text_delta or
// input_json_delta) / content_block_stop per block, message_delta (with
// stop_reason and usage) and message_stop. Non-streaming calls get a plain
// JSON message. Every request, whatever its path, is recorded with its raw
// body so tests can look for injected hook text.
//
// A Script decides the reply to each messages request. Use Func for full
// control, or Queue for a fixed list of replies followed by a default.
package mockapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Block is one content block of a reply: text or tool_use.
type Block struct {
	Type  string          // "text" or "tool_use"
	Text  string          // for text blocks
	ID    string          // tool_use id; generated when empty
	Name  string          // tool name for tool_use blocks
	Input json.RawMessage // tool input (a JSON object) for tool_use blocks
}

// Reply is what the mock answers to one messages request.
type Reply struct {
	Blocks []Block
	// StopReason defaults to "tool_use" when any block is a tool_use and
	// to "end_turn" otherwise.
	StopReason string
	// InputTokens overrides the reported input token usage (by default
	// roughly len(body)/4). Large values can be used to provoke
	// auto-compaction.
	InputTokens int
	// Status, when non-zero and not 200, makes the mock answer with an
	// API error of that HTTP status instead of a message.
	Status int
	// ErrorType / ErrorMessage describe that error
	// (default "api_error" / "mock error").
	ErrorType    string
	ErrorMessage string
}

// Text is a reply with a single text block and stop_reason end_turn.
func Text(s string) Reply {
	return Reply{Blocks: []Block{{Type: "text", Text: s}}}
}

// ToolUse is a reply with a single tool_use block (stop_reason tool_use).
// inputJSON must be a JSON object, e.g. `{"file_path":"/x","content":"y"}`.
func ToolUse(name, inputJSON string) Reply {
	return Reply{Blocks: []Block{ToolBlock(name, inputJSON)}}
}

// ToolBlock is a tool_use block for use with Blocks.
func ToolBlock(name, inputJSON string) Block {
	return Block{Type: "tool_use", Name: name, Input: json.RawMessage(inputJSON)}
}

// TextBlock is a text block for use with Blocks.
func TextBlock(s string) Block { return Block{Type: "text", Text: s} }

// Blocks is a reply made of the given blocks, in order.
func Blocks(bs ...Block) Reply { return Reply{Blocks: bs} }

// Combine concatenates the blocks of several replies into one reply, e.g.
// Combine(Text("doing it"), ToolUse("Write", ...), ToolUse("Edit", ...)).
func Combine(rs ...Reply) Reply {
	var out Reply
	for _, r := range rs {
		out.Blocks = append(out.Blocks, r.Blocks...)
	}
	return out
}

// Summary is a reply to a compaction (summarisation) request: Claude Code
// asks for "an <analysis> block followed by a <summary> block" and retries
// once, with a stricter prompt, when the reply has no <summary> tags.
func Summary(s string) Reply {
	return Text("<analysis>\nmock analysis\n</analysis>\n\n<summary>\n" + s + "\n</summary>")
}

// Compacting is a Script that answers compaction requests (see
// Request.IsCompaction) with Summary(summary) and hands every other request
// to next, so a Queue is not consumed by /compact.
func Compacting(summary string, next Script) Script {
	return Func(func(req *Request) Reply {
		if req.IsCompaction() {
			return Summary(summary)
		}
		return next.Reply(req)
	})
}

// APIError is a reply that fails with the given HTTP status.
func APIError(status int, errType, msg string) Reply {
	return Reply{Status: status, ErrorType: errType, ErrorMessage: msg}
}

func (r Reply) stopReason() string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Blocks {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// Script decides the reply to each messages request.
type Script interface {
	Reply(req *Request) Reply
}

// Func adapts a function to a Script.
type Func func(req *Request) Reply

// Reply implements Script.
func (f Func) Reply(req *Request) Reply { return f(req) }

// Queue is a Script that hands out Replies in order, one per request that
// Match accepts (all requests when Match is nil), and Default once they run
// out or for requests that Match rejects. A zero Default is Text("OK").
type Queue struct {
	mu      sync.Mutex
	Replies []Reply
	Default Reply
	Match   func(req *Request) bool
}

// NewQueue returns a Queue with the given replies and default.
func NewQueue(def Reply, replies ...Reply) *Queue {
	return &Queue{Replies: replies, Default: def}
}

// Push appends replies to the queue.
func (q *Queue) Push(rs ...Reply) {
	q.mu.Lock()
	q.Replies = append(q.Replies, rs...)
	q.mu.Unlock()
}

// Len is the number of replies not yet handed out.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.Replies)
}

// Reply implements Script.
func (q *Queue) Reply(req *Request) Reply {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.Replies) > 0 && (q.Match == nil || q.Match(req)) {
		r := q.Replies[0]
		q.Replies = q.Replies[1:]
		return r
	}
	if q.Default.Blocks == nil && q.Default.Status == 0 {
		return Text("OK")
	}
	return q.Default
}

// Request is one recorded HTTP request.
type Request struct {
	Seq      int // 1-based order of arrival over all paths
	Time     time.Time
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte // raw body, as received

	// Parsed, for POST /v1/messages (and count_tokens) bodies; nil otherwise.
	Messages *MessagesBody
	// Reply is the reply the script chose (messages requests only).
	Reply *Reply
}

// MessagesBody is the subset of a messages request the tests care about.
type MessagesBody struct {
	Model     string            `json:"model"`
	Stream    bool              `json:"stream"`
	MaxTokens int               `json:"max_tokens"`
	System    json.RawMessage   `json:"system"`
	Messages  []Message         `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
	Metadata  json.RawMessage   `json:"metadata"`
}

// Message is one entry of the request's messages array.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // string or array of blocks
}

// ContentBlock is a request-side content block.
type ContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // tool_result content
	IsError   bool            `json:"is_error,omitempty"`
}

// Blocks returns the message content as blocks; a plain string content is
// returned as one text block.
func (m Message) Blocks() []ContentBlock {
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return []ContentBlock{{Type: "text", Text: s}}
	}
	var bs []ContentBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// Text is the concatenation of the message's text blocks and the string
// content of its tool_result blocks, separated by newlines.
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Blocks() {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			parts = append(parts, resultText(b.Content))
		}
	}
	return strings.Join(parts, "\n")
}

func resultText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var bs []ContentBlock
	_ = json.Unmarshal(raw, &bs)
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// IsMessages reports whether this is a POST to /v1/messages.
func (r *Request) IsMessages() bool {
	return r.Method == http.MethodPost && r.Path == "/v1/messages"
}

// Contains reports whether the raw body contains s, either literally or
// in its JSON-escaped form (so multi-line or quoted text can be searched).
func (r *Request) Contains(s string) bool {
	if bytes.Contains(r.Body, []byte(s)) {
		return true
	}
	// Claude Code (JSON.stringify) leaves <, > and & as they are, which
	// json.Marshal would turn into \u003c etc.: try both spellings.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	esc := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if bytes.Contains(r.Body, esc[1:len(esc)-1]) {
		return true
	}
	html, _ := json.Marshal(s)
	return bytes.Contains(r.Body, html[1:len(html)-1])
}

// IsCompaction reports whether this is the summarisation request that
// /compact (or auto-compaction) sends: a normal messages call whose last
// user message asks for a <summary> of the conversation.
func (r *Request) IsCompaction() bool {
	if !r.IsMessages() {
		return false
	}
	t := r.LastUserMessage().Text()
	return strings.Contains(t, "create a detailed summary of the conversation") ||
		(strings.Contains(t, "<summary>") && strings.Contains(t, "Do NOT call any tools"))
}

// LastMessage is the last entry of messages (zero Message if none).
func (r *Request) LastMessage() Message {
	if r.Messages == nil || len(r.Messages.Messages) == 0 {
		return Message{}
	}
	return r.Messages.Messages[len(r.Messages.Messages)-1]
}

// LastUserMessage is the last entry of messages with role "user". Note
// that Claude Code 2.1.3xx appends hook context (SessionStart stdout,
// UserPromptSubmit additionalContext) as a role "system" entry after the
// user message, so LastMessage is not always the user's.
func (r *Request) LastUserMessage() Message {
	if r.Messages == nil {
		return Message{}
	}
	for i := len(r.Messages.Messages) - 1; i >= 0; i-- {
		if r.Messages.Messages[i].Role == "user" {
			return r.Messages.Messages[i]
		}
	}
	return Message{}
}

// LastText is the text of the last user message (see Message.Text).
func (r *Request) LastText() string { return r.LastUserMessage().Text() }

// ToolResults returns the tool_result blocks of the last user message: non-empty
// when Claude Code is reporting the results of the tool_use blocks of the
// previous reply.
func (r *Request) ToolResults() []ContentBlock {
	var out []ContentBlock
	for _, b := range r.LastUserMessage().Blocks() {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// IsToolResult reports whether the last user message carries tool results.
func (r *Request) IsToolResult() bool { return len(r.ToolResults()) > 0 }

// HasTool reports whether the request offers the named tool.
func (r *Request) HasTool(name string) bool {
	if r.Messages == nil {
		return false
	}
	for _, t := range r.Messages.Tools {
		var v struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(t, &v) == nil && v.Name == name {
			return true
		}
	}
	return false
}

// SystemText is the system prompt flattened to text.
func (r *Request) SystemText() string {
	if r.Messages == nil {
		return ""
	}
	return resultText(r.Messages.System)
}

// Server is a running mock API.
type Server struct {
	script Script
	srv    *httptest.Server

	mu   sync.Mutex
	reqs []*Request
	seq  int
	ids  int
	logf func(format string, args ...any)
}

// SetLogf makes the server report one line per request to f (e.g. t.Logf);
// nil turns that off.
func (s *Server) SetLogf(f func(format string, args ...any)) {
	s.mu.Lock()
	s.logf = f
	s.mu.Unlock()
}

// New starts a mock API on 127.0.0.1 with the given script. A nil script
// answers Text("OK") to everything.
func New(script Script) *Server {
	if script == nil {
		script = NewQueue(Text("OK"))
	}
	s := &Server{script: script}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("mockapi: listen: %v", err))
	}
	s.srv.Listener = l
	s.srv.Start()
	return s
}

// URL is the base URL, e.g. http://127.0.0.1:40123 (use as ANTHROPIC_BASE_URL).
func (s *Server) URL() string { return s.srv.URL }

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// SetScript replaces the script (e.g. between two claude invocations).
func (s *Server) SetScript(script Script) {
	s.mu.Lock()
	s.script = script
	s.mu.Unlock()
}

// Requests returns a snapshot of all requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = *r
	}
	return out
}

// MessagesRequests returns only the POST /v1/messages requests.
func (s *Server) MessagesRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsMessages() {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the recorded requests.
func (s *Server) Reset() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}

func (s *Server) log(format string, args ...any) {
	s.mu.Lock()
	f := s.logf
	s.mu.Unlock()
	if f != nil {
		f(format, args...)
	}
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s_mock%018d", prefix, s.ids)
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	req := &Request{
		Time:     time.Now(),
		Method:   hr.Method,
		Path:     hr.URL.Path,
		RawQuery: hr.URL.RawQuery,
		Header:   hr.Header.Clone(),
		Body:     body,
	}
	if hr.Method == http.MethodPost && strings.HasPrefix(hr.URL.Path, "/v1/messages") {
		var mb MessagesBody
		if err := json.Unmarshal(body, &mb); err == nil {
			req.Messages = &mb
		}
	}
	s.mu.Lock()
	s.seq++
	req.Seq = s.seq
	s.reqs = append(s.reqs, req)
	script := s.script
	s.mu.Unlock()

	switch {
	case req.IsMessages():
		if req.Messages == nil {
			s.log("mockapi: #%d %s %s: unparsable body", req.Seq, hr.Method, hr.URL)
			writeError(w, http.StatusBadRequest, "invalid_request_error", "mock: unparsable body")
			return
		}
		reply := script.Reply(req)
		s.mu.Lock()
		req.Reply = &reply
		s.mu.Unlock()
		s.log("mockapi: #%d POST %s model=%s msgs=%d stream=%v -> %s", req.Seq, hr.URL, req.Messages.Model,
			len(req.Messages.Messages), req.Messages.Stream, describe(reply))
		s.writeMessage(w, req, reply)
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages/count_tokens":
		s.log("mockapi: #%d POST %s", req.Seq, hr.URL)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, estimateTokens(body))
	case hr.Method == http.MethodHead:
		s.log("mockapi: #%d HEAD %s (probe)", req.Seq, hr.URL)
		w.WriteHeader(http.StatusOK)
	default:
		s.log("mockapi: #%d unknown %s %s (answering {})", req.Seq, hr.Method, hr.URL)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
	}
}

func describe(r Reply) string {
	if r.Status != 0 && r.Status != http.StatusOK {
		return fmt.Sprintf("error %d", r.Status)
	}
	var parts []string
	for _, b := range r.Blocks {
		if b.Type == "tool_use" {
			parts = append(parts, "tool_use:"+b.Name)
		} else {
			t := b.Text
			if len(t) > 40 {
				t = t[:40] + "…"
			}
			parts = append(parts, fmt.Sprintf("text:%q", t))
		}
	}
	return strings.Join(parts, ",") + " (" + r.stopReason() + ")"
}

func estimateTokens(body []byte) int {
	n := len(body) / 4
	if n < 1 {
		n = 1
	}
	return n
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{
		"type":  "error",
		"error": map[string]string{"type": typ, "message": msg},
	})
	w.Write(b)
}

func (s *Server) writeMessage(w http.ResponseWriter, req *Request, reply Reply) {
	if reply.Status != 0 && reply.Status != http.StatusOK {
		typ, msg := reply.ErrorType, reply.ErrorMessage
		if typ == "" {
			typ = "api_error"
		}
		if msg == "" {
			msg = "mock error"
		}
		writeError(w, reply.Status, typ, msg)
		return
	}
	model := req.Messages.Model
	if model == "" {
		model = "claude-mock"
	}
	inTok := reply.InputTokens
	if inTok == 0 {
		inTok = estimateTokens(req.Body)
	}
	msgID := s.nextID("msg")
	blocks := make([]Block, len(reply.Blocks))
	copy(blocks, reply.Blocks)
	outTok := 1
	for i := range blocks {
		b := &blocks[i]
		if b.Type == "" {
			b.Type = "text"
		}
		if b.Type == "tool_use" {
			if b.ID == "" {
				b.ID = s.nextID("toolu")
			}
			if len(b.Input) == 0 {
				b.Input = json.RawMessage("{}")
			}
			outTok += len(b.Input)/4 + 1
		} else {
			outTok += len(b.Text)/4 + 1
		}
	}
	usage := map[string]any{
		"input_tokens":                inTok,
		"output_tokens":               outTok,
		"cache_creation_input_tokens": 0,
		"cache_read_input_tokens":     0,
	}
	w.Header().Set("request-id", s.nextID("req"))
	w.Header().Set("anthropic-organization-id", "00000000-0000-0000-0000-000000000000")

	if !req.Messages.Stream {
		content := make([]map[string]any, 0, len(blocks))
		for _, b := range blocks {
			if b.Type == "tool_use" {
				content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": b.Input})
			} else {
				content = append(content, map[string]any{"type": "text", "text": b.Text})
			}
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": reply.stopReason(), "stop_sequence": nil,
			"usage": usage,
		})
		w.Write(b)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}
	event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens":                inTok,
				"output_tokens":               1,
				"cache_creation_input_tokens": 0,
				"cache_read_input_tokens":     0,
			},
		},
	})
	event("ping", map[string]any{"type": "ping"})
	for i, b := range blocks {
		if b.Type == "tool_use" {
			event("content_block_start", map[string]any{
				"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}},
			})
			for _, chunk := range split(string(compactJSON(b.Input)), 64) {
				event("content_block_delta", map[string]any{
					"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": chunk},
				})
			}
		} else {
			event("content_block_start", map[string]any{
				"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""},
			})
			for _, chunk := range split(b.Text, 256) {
				event("content_block_delta", map[string]any{
					"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": chunk},
				})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": reply.stopReason(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outTok},
	})
	event("message_stop", map[string]any{"type": "message_stop"})
}

func compactJSON(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		log.Printf("mockapi: tool input is not valid JSON: %v: %s", err, raw)
		return raw
	}
	return buf.Bytes()
}

// split cuts s into chunks of at most n bytes without splitting UTF-8
// sequences. An empty s yields one empty chunk.
func split(s string, n int) []string {
	if len(s) <= n {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
