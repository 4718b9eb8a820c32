package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/mcpserver"
	"github.com/cairn-hooks/cairn/testscripts/testbin"
)

// The conformance test speaks JSON-RPC to `cairn mcp` as Claude Code does — one JSON object per
// line on its stdin and stdout — in a real git project under a fake HOME: initialize, the
// initialized notification, tools/list, every tool called, and malformed lines and requests,
// each answered with an error and never the end of the connection.

var binDir string

func TestMain(m *testing.M) {
	dir, cleanup, err := testbin.Build("../..", "cairn-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// client is a running `cairn mcp` and the responses it has sent, by id.
type client struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	mu    sync.Mutex
	resp  map[string]json.RawMessage
	lines []string // every line the server wrote
	cond  *sync.Cond
	done  bool
}

func startServer(t *testing.T, proj, home string) *client {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "cairn"), "mcp")
	cmd.Dir = proj
	cmd.Env = []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "PATH=" + os.Getenv("PATH"), "TZ=UTC",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig")}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, cmd: cmd, in: in, resp: map[string]json.RawMessage{}}
	c.cond = sync.NewCond(&c.mu)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal([]byte(line), &m)
			c.mu.Lock()
			c.lines = append(c.lines, line)
			if len(m.ID) > 0 {
				c.resp[string(m.ID)] = json.RawMessage(line)
			}
			c.cond.Broadcast()
			c.mu.Unlock()
		}
		c.mu.Lock()
		c.done = true
		c.cond.Broadcast()
		c.mu.Unlock()
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("cairn mcp exited with %v after its stdin closed; stderr:\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("cairn mcp did not exit within 10 s of its stdin closing")
		}
	})
	return c
}

// send writes one raw line.
func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing %q: %v", line, err)
	}
}

// request sends a request with id and waits for its response.
func (c *client) request(id int, method string, params any) map[string]any {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	c.send(string(b))
	return c.wait(fmt.Sprint(id))
}

// wait waits for the response with id (its JSON text: 3, or "x").
func (c *client) wait(id string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.resp[id] == nil {
		if c.done || time.Now().After(deadline) {
			c.t.Fatalf("no response with id %s (server done: %v); lines so far:\n%s", id, c.done, strings.Join(c.lines, "\n"))
		}
		go func() { time.Sleep(100 * time.Millisecond); c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() }()
		c.cond.Wait()
	}
	var m map[string]any
	if err := json.Unmarshal(c.resp[id], &m); err != nil {
		c.t.Fatalf("response %s is not JSON: %v", id, err)
	}
	return m
}

// waitLines waits until the server has written n lines in all.
func (c *client) waitLines(n int) []string {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.lines) < n {
		if c.done || time.Now().After(deadline) {
			c.t.Fatalf("the server wrote %d lines, want %d:\n%s", len(c.lines), n, strings.Join(c.lines, "\n"))
		}
		go func() { time.Sleep(100 * time.Millisecond); c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() }()
		c.cond.Wait()
	}
	return append([]string(nil), c.lines...)
}

// call calls a tool and returns its text and whether it is an error result.
func (c *client) call(id int, tool string, args map[string]any) (string, bool) {
	c.t.Helper()
	m := c.request(id, "tools/call", map[string]any{"name": tool, "arguments": args})
	if e, ok := m["error"]; ok {
		c.t.Fatalf("%s: protocol error %v", tool, e)
	}
	res := m["result"].(map[string]any)
	var text []string
	for _, ct := range res["content"].([]any) {
		text = append(text, ct.(map[string]any)["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return strings.Join(text, "\n"), isErr
}

func newProject(t *testing.T) (proj, home string) {
	t.Helper()
	dir := t.TempDir()
	proj, home = filepath.Join(dir, "proj"), filepath.Join(dir, "home")
	for _, d := range []string{proj, filepath.Join(home, ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = proj
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return proj, home
}

func initialize(t *testing.T, c *client) map[string]any {
	t.Helper()
	m := c.request(1, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "conformance", "version": "1"}})
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

func TestConformance(testingT *testing.T) {
	testbin.TouchSources("../..")
	t := testingT
	proj, home := newProject(t)
	c := startServer(t, proj, home)

	init := initialize(t, c)
	res, _ := init["result"].(map[string]any)
	info, _ := res["serverInfo"].(map[string]any)
	if info["name"] != "cairn" || res["instructions"] == "" {
		t.Fatalf("initialize: %v", init)
	}
	if caps, _ := res["capabilities"].(map[string]any); caps["tools"] == nil {
		t.Errorf("initialize: no tools capability: %v", res)
	}

	list := c.request(2, "tools/list", map[string]any{})
	tools := list["result"].(map[string]any)["tools"].([]any)
	got := map[string]map[string]any{}
	for _, tl := range tools {
		m := tl.(map[string]any)
		got[m["name"].(string)] = m
		schema, _ := m["inputSchema"].(map[string]any)
		if schema["type"] != "object" || m["description"] == "" {
			t.Errorf("tool %v: input schema %v", m["name"], schema)
		}
	}
	for _, name := range mcpserver.ToolNames {
		if got[name] == nil {
			t.Errorf("tools/list has no %s", name)
		}
	}
	if len(got) != len(mcpserver.ToolNames) {
		t.Errorf("tools/list: %d tools, want %d", len(got), len(mcpserver.ToolNames))
	}
	if req := got["search"]["inputSchema"].(map[string]any)["required"]; fmt.Sprint(req) != "[query]" {
		t.Errorf("search: required %v, want [query]", req)
	}

	// Every tool, through the CLI's own commands: text that starts with "-" stays text, and a
	// secret is redacted before it is written.
	id := 10
	call := func(tool string, args map[string]any) (string, bool) {
		id++
		return c.call(id, tool, args)
	}
	text, isErr := call("park", map[string]any{"kind": "deferred", "idea": "-x LRU cache for the parser", "detail": "token sk-abcdefghijklmnopqrstuvwxyz0123456789 in the example", "slug": "lru-cache"})
	if isErr || !strings.Contains(text, "Parked: lru-cache") || strings.Contains(text, "sk-abcdefghij") {
		t.Errorf("park: %v %q", isErr, text)
	}
	data, _ := os.ReadFile(filepath.Join(proj, ".claude", "state", "session-context.md"))
	if !strings.Contains(string(data), "-x LRU cache for the parser") || strings.Contains(string(data), "sk-abcdefghij") {
		t.Errorf("session-context.md after park:\n%s", data)
	}
	if text, isErr := call("list_parked", nil); isErr || !strings.Contains(text, "lru-cache") {
		t.Errorf("list_parked: %v %q", isErr, text)
	}
	if text, isErr := call("save_checkpoint", map[string]any{"title": "--parser rewrite", "summary": "Rewrote the parser to stream tokens.", "decisions": "Keep the LRU cache per user."}); isErr || !strings.Contains(text, "parser-rewrite") {
		t.Errorf("save_checkpoint: %v %q", isErr, text)
	}
	if text, isErr := call("list_checkpoints", map[string]any{"all": true}); isErr || !strings.Contains(text, "parser-rewrite") {
		t.Errorf("list_checkpoints: %v %q", isErr, text)
	}
	text, isErr = call("search", map[string]any{"query": "stream tokens", "kind": "saved"})
	if isErr || !strings.Contains(text, "«stream»") || !strings.Contains(text, "id: ") {
		t.Fatalf("search: %v %q", isErr, text)
	}
	sid := strings.TrimSpace(text[strings.Index(text, "id: ")+4:])
	sid, _, _ = strings.Cut(sid, "\n")
	if text, isErr := call("show", map[string]any{"id": sid}); isErr || !strings.Contains(text, "Rewrote the parser to stream tokens.") {
		t.Errorf("show %s: %v %q", sid, isErr, text)
	}
	if text, isErr := call("search", map[string]any{"query": "-x LRU", "kind": "parked"}); isErr || !strings.Contains(text, "«LRU»") {
		t.Errorf("search for text that starts with -: %v %q", isErr, text)
	}
	if text, isErr := call("archive", map[string]any{"match": "-x LRU cache"}); isErr || !strings.HasPrefix(text, "Archived: ") {
		t.Errorf("archive: %v %q", isErr, text)
	}
	if text, isErr := call("search", map[string]any{"query": "LRU", "kind": "archived"}); isErr || !strings.Contains(text, "archived:") {
		t.Errorf("search archived: %v %q", isErr, text)
	}
	if text, isErr := call("forget", map[string]any{"id": sid, "dry_run": true}); isErr || !strings.Contains(text, "would remove:") {
		t.Errorf("forget dry run: %v %q", isErr, text)
	}
	if text, isErr := call("forget", map[string]any{"id": sid}); isErr || !strings.Contains(text, "Forgot "+sid) {
		t.Errorf("forget: %v %q", isErr, text)
	}
	if text, isErr := call("search", map[string]any{"query": "stream tokens", "kind": "saved"}); isErr || strings.Contains(text, sid) {
		t.Errorf("search after forget: %v %q", isErr, text)
	}
	if text, isErr := call("broadcast", map[string]any{"message": "-- the parser is rewritten"}); isErr || !strings.Contains(text, "Broadcast") {
		t.Errorf("broadcast: %v %q", isErr, text)
	}
	if _, isErr := call("list_sessions", map[string]any{}); isErr {
		t.Errorf("list_sessions failed")
	}
	if text, isErr := call("claims", map[string]any{}); isErr || !strings.Contains(text, "No live file claims") {
		t.Errorf("claims: %v %q", isErr, text)
	}
	// A refusal is a tool error the model can read, not a protocol error.
	if text, isErr := call("show", map[string]any{"id": "no-such-id"}); !isErr || !strings.Contains(text, "cairn:") {
		t.Errorf("show of an unknown id: %v %q", isErr, text)
	}
	if text, isErr := call("park", map[string]any{"kind": "someday", "idea": "x", "detail": "y"}); !isErr || text == "" {
		t.Errorf("park with a bad kind: %v %q", isErr, text)
	}

	// Malformed input: each line gets an error reply, and the connection stays up.
	n := len(c.waitLines(0))
	bad := []string{
		`this is not json`,
		`{"jsonrpc":"2.0","id":`,
		`[1,2,3]`,
		`"just a string"`,
		`{"jsonrpc":"1.0","id":90,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":91}`,
		`{"jsonrpc":"2.0","id":92,"method":7}`,
		"{\"jsonrpc\":\"2.0\",\"id\":93,\"method\":\"tools/list\",\"params\":{\"x\":\"" + strings.Repeat("a", 5<<20) + "\"}}",
		// Deeper than the SDK decodes (it would end the connection): refused first.
		`{"jsonrpc":"2.0","id":94,"method":"ping","params":{"x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`,
		// A fractional id would be answered rounded.
		`{"jsonrpc":"2.0","id":2.5,"method":"ping"}`,
		// A null id: MCP forbids it, and the SDK answered nothing.
		`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
	}
	// What the replies must say, by line, where it is more than "an error".
	says := map[int]string{8: "too long (more than 4 MiB)", 11: `"id" must not be null`}
	for _, l := range bad {
		c.send(l)
	}
	lines := c.waitLines(n + len(bad))[n:]
	for i, l := range lines {
		var m struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Error == nil || m.Error.Code > -32000 || m.Error.Code < -32700 {
			t.Errorf("reply %d to a malformed line: %s", i, l)
		} else if want := says[i]; want != "" && !strings.Contains(m.Error.Message, want) {
			t.Errorf("reply %d to a malformed line: %s, want it to say %s", i, l, want)
		}
	}
	// A response to nothing the server asked, with no id, is dropped: no answer, and the
	// connection stays up (the SDK ended it on one).
	c.send(`{"jsonrpc":"2.0","result":{}}`)
	c.send(`{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`)
	for _, tc := range []struct {
		method string
		params any
		code   float64
	}{
		{"no/such/method", map[string]any{}, -32601},
		{"tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}, -32602},
		{"tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": 5}}, 0},
		{"tools/call", map[string]any{"name": "show", "arguments": map[string]any{}}, 0},
		{"tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "x", "extra": true}}, 0},
	} {
		id++
		m := c.request(id, tc.method, tc.params)
		if tc.code != 0 {
			e, _ := m["error"].(map[string]any)
			if e == nil || e["code"] != tc.code {
				t.Errorf("%s %v: %v, want error %v", tc.method, tc.params, m, tc.code)
			}
			continue
		}
		// Arguments that do not match the schema: a tool error, or a protocol error.
		if res, ok := m["result"].(map[string]any); ok && res["isError"] != true {
			t.Errorf("%s %v: accepted: %v", tc.method, tc.params, m)
		}
	}
	// Still serving.
	id++
	if text, isErr := c.call(id, "list_parked", nil); isErr {
		t.Errorf("after the malformed input: %q", text)
	}
}

// TestConcurrentParks: parks through MCP, several in flight at once, and parks through the CLI
// at the same moment all land, as two processes' parks do.
func TestConcurrentParks(t *testing.T) {
	proj, home := newProject(t)
	c := startServer(t, proj, home)
	initialize(t, c)
	const n = 6
	for i := 0; i < n; i++ {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": map[string]any{
			"name": "park", "arguments": map[string]any{"kind": "side", "idea": fmt.Sprintf("mcp idea %d", i), "detail": "d", "slug": fmt.Sprintf("mcp-%d", i)}}})
		c.send(string(b))
	}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(filepath.Join(binDir, "cairn"), "session", "park", "side", fmt.Sprintf("cli idea %d", i), "d", "--slug", fmt.Sprintf("cli-%d", i))
			cmd.Dir, cmd.Env = proj, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("cli park %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		m := c.wait(fmt.Sprint(100 + i))
		if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
			t.Errorf("park %d: %v", i, m)
		}
	}
	data, _ := os.ReadFile(filepath.Join(proj, ".claude", "state", "session-context.md"))
	for _, slug := range []string{"mcp-0", "mcp-1", "mcp-2", "mcp-3", "mcp-4", "mcp-5", "cli-0", "cli-1", "cli-2"} {
		if !strings.Contains(string(data), "**"+slug+"**") {
			t.Errorf("%s is not parked:\n%s", slug, data)
		}
	}
}
