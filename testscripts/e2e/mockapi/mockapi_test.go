package mockapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

type sseEvent struct {
	Name string
	Data map[string]any
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var evs []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
		case line == "":
			if cur.Name != "" {
				if cur.Data["type"] != cur.Name {
					t.Errorf("event %s has data type %v", cur.Name, cur.Data["type"])
				}
				evs = append(evs, cur)
			}
			cur = sseEvent{}
		}
	}
	return evs
}

func TestStreamTextAndToolUse(t *testing.T) {
	long := strings.Repeat("héllo wörld ", 60) // > one 256-byte chunk, multi-byte runes
	q := NewQueue(Text("default"),
		Combine(Text(long), ToolUse("Write", `{"file_path": "/tmp/x", "content": "`+strings.Repeat("y", 200)+`"}`)),
	)
	s := New(q)
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q not on loopback", s.URL())
	}

	body := `{"model":"claude-test","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"},{"role":"system","content":[{"type":"text","text":"hook said HELLO \"quoted\"\nline"}]}]}`
	resp := post(t, s.URL()+"/v1/messages?beta=true", body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	evs := readSSE(t, resp.Body)

	var names []string
	texts := map[int]string{}
	inputs := map[int]string{}
	for _, e := range evs {
		names = append(names, e.Name)
		if e.Name == "content_block_delta" {
			i := int(e.Data["index"].(float64))
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				texts[i] += d["text"].(string)
			case "input_json_delta":
				inputs[i] += d["partial_json"].(string)
			}
		}
	}
	if names[0] != "message_start" || names[len(names)-2] != "message_delta" || names[len(names)-1] != "message_stop" {
		t.Errorf("event order %v", names)
	}
	start := evs[0].Data["message"].(map[string]any)
	if start["model"] != "claude-test" || start["role"] != "assistant" {
		t.Errorf("message_start %v", start)
	}
	if _, ok := start["usage"].(map[string]any)["input_tokens"]; !ok {
		t.Errorf("message_start without usage.input_tokens")
	}
	md := evs[len(evs)-2].Data
	if md["delta"].(map[string]any)["stop_reason"] != "tool_use" {
		t.Errorf("message_delta %v", md)
	}
	if texts[0] != long {
		t.Errorf("text reassembled wrong: %q", texts[0])
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(inputs[1]), &in); err != nil || in["file_path"] != "/tmp/x" {
		t.Errorf("tool input %q: %v", inputs[1], err)
	}
	var cbs []string
	for _, e := range evs {
		if e.Name == "content_block_start" {
			cb := e.Data["content_block"].(map[string]any)
			cbs = append(cbs, cb["type"].(string))
			if cb["type"] == "tool_use" && (cb["name"] != "Write" || !strings.HasPrefix(cb["id"].(string), "toolu_")) {
				t.Errorf("tool_use block %v", cb)
			}
		}
	}
	if strings.Join(cbs, ",") != "text,tool_use" {
		t.Errorf("blocks %v", cbs)
	}

	reqs := s.Requests()
	if len(reqs) != 1 || !reqs[0].IsMessages() || reqs[0].RawQuery != "beta=true" {
		t.Fatalf("requests %+v", reqs)
	}
	r := reqs[0]
	if !r.Contains("HELLO") || !r.Contains("HELLO \"quoted\"\nline") || r.Contains("absent") {
		t.Errorf("Contains broken")
	}
	if r.LastText() != "hi" || r.LastMessage().Role != "system" {
		t.Errorf("LastText %q / LastMessage role %q", r.LastText(), r.LastMessage().Role)
	}
	if r.Reply == nil || len(r.Reply.Blocks) != 2 {
		t.Errorf("recorded reply %+v", r.Reply)
	}

	// Queue exhausted: default.
	evs = readSSE(t, post(t, s.URL()+"/v1/messages?beta=true", body).Body)
	for _, e := range evs {
		if e.Name == "content_block_delta" && e.Data["delta"].(map[string]any)["text"] != "default" {
			t.Errorf("default reply: %v", e.Data)
		}
		if e.Name == "message_delta" && e.Data["delta"].(map[string]any)["stop_reason"] != "end_turn" {
			t.Errorf("default stop reason: %v", e.Data)
		}
	}
}

func TestNonStreamingAndOtherPaths(t *testing.T) {
	s := New(Func(func(r *Request) Reply {
		if r.IsToolResult() {
			return Text("got " + r.ToolResults()[0].ToolUseID + ": " + r.LastText())
		}
		return APIError(529, "overloaded_error", "busy")
	}))
	defer s.Close()

	resp := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 529 {
		t.Errorf("status %d", resp.StatusCode)
	}
	resp = post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"done"}]}]}]}`)
	var msg struct {
		Content []struct{ Type, Text string }
		Stop    string `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "got toolu_1: done" || msg.Stop != "end_turn" {
		t.Errorf("non-streaming reply %+v", msg)
	}

	resp = post(t, s.URL()+"/v1/messages/count_tokens", `{"messages":[]}`)
	var ct map[string]int
	json.NewDecoder(resp.Body).Decode(&ct)
	if ct["input_tokens"] < 1 {
		t.Errorf("count_tokens %v", ct)
	}
	r, err := http.Get(s.URL() + "/api/hello")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || string(b) != "{}" {
		t.Errorf("unknown path: %d %s", r.StatusCode, b)
	}
	if n := len(s.Requests()); n != 4 {
		t.Errorf("%d requests recorded", n)
	}
	if n := len(s.MessagesRequests()); n != 2 {
		t.Errorf("%d messages requests", n)
	}
}

func TestCompacting(t *testing.T) {
	q := NewQueue(Text("default"), Text("first"))
	s := New(Compacting("THE SUMMARY", q))
	defer s.Close()
	compact := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"},{"role":"user","content":"CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed summary of the conversation so far, ..."}]}`
	evs := readSSE(t, post(t, s.URL()+"/v1/messages?beta=true", compact).Body)
	var text string
	for _, e := range evs {
		if e.Name == "content_block_delta" {
			text += e.Data["delta"].(map[string]any)["text"].(string)
		}
	}
	if !strings.Contains(text, "<summary>\nTHE SUMMARY\n</summary>") {
		t.Errorf("summary reply %q", text)
	}
	if q.Len() != 1 {
		t.Errorf("compaction consumed the queue")
	}
	if !s.Requests()[0].IsCompaction() {
		t.Errorf("IsCompaction false")
	}
}

// Claude Code's JSON.stringify does not HTML-escape: Contains must find
// text with <, > or & together with characters that do need escaping.
func TestContainsUnescapedHTML(t *testing.T) {
	body := []byte(`{"messages":[{"role":"system","content":"a <!-- marker --> & \"b\"\nc"}]}`)
	r := &Request{Body: body}
	if !r.Contains("a <!-- marker --> & \"b\"\nc") {
		t.Errorf("Contains misses text with <, > and & plus a newline")
	}
	r.Body = []byte(`{"content":"x \u003c y\nz"}`)
	if !r.Contains("x < y\nz") {
		t.Errorf("Contains misses the HTML-escaped spelling")
	}
}
