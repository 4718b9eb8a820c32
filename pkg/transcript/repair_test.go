package transcript

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestClosePrefix(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":"hello wor`, `{"a":"hello wor"}`},
		{`{"a":1,"b":[1,2,{"c":"x`, `{"a":1,"b":[1,2,{"c":"x"}]}`},
		{`{"a":"x\`, `{"a":"x"}`},
		{`{"a":"x\u12`, `{"a":"x"}`},
		{`{"a":"x\u1234`, `{"a":"x\u1234"}`},
		{`{"a":"x\n`, `{"a":"x\n"}`},
		{`{"a":"caf` + "\xc3", `{"a":"caf"}`}, // a rune cut in two is dropped
		{`{"a":1,"b`, `{"a":1}`},
		{`{"a":1,"b"`, `{"a":1}`},
		{`{"a":1,"b":`, `{"a":1}`},
		{`{"a":1,"b":12`, `{"a":1}`}, // 12 may be the start of 123
		{`{"a":1,"b":tr`, `{"a":1}`},
		{`{"a":true,`, `{"a":true}`},
		{`{"a":[`, `{"a":[]}`},
		{`{"a":{`, `{"a":{}}`},
		{`{"a":[1,`, `{"a":[1]}`},
		{`{`, `{}`},
		{`{"a":1}`, `{"a":1}`},
		{`{"a":1} trailing`, `{"a":1}`},
		{`{"a" "b"`, `{}`},
		{`"str`, `"str"`},
		{``, ``},
		{`x`, ``},
		{`}`, ``},
		{`{"a":"ctl` + "\x01", ``}, // a control byte makes the string invalid
	} {
		got := string(closePrefix(nil, []byte(c.in)))
		if got != c.want {
			t.Errorf("closePrefix(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestClosePrefixDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxRepairDepth+5) + `"x`
	if got := closePrefix(nil, []byte(deep)); got == nil || !gjson.ValidBytes(got) {
		t.Errorf("deep prefix: %q, want the valid part", got)
	}
}

// Every prefix of a real line closes into valid JSON or into nothing, and whatever string
// value it keeps is a prefix of the original one.
func TestClosePrefixAllPrefixes(t *testing.T) {
	for _, doc := range []string{assistantToolUse, assistantText, userToolResult, compactSummary} {
		wantText := gjson.Get(doc, "message.content.0.text").String()
		wantPath := gjson.Get(doc, "message.content.0.input.file_path").String()
		for i := range len(doc) + 1 {
			got := closePrefix(nil, []byte(doc[:i]))
			if got == nil {
				continue
			}
			if !gjson.ValidBytes(got) {
				t.Fatalf("prefix %d of %q: invalid %q", i, doc, got)
			}
			if text := gjson.GetBytes(got, "message.content.0.text").String(); !strings.HasPrefix(wantText, text) {
				t.Fatalf("prefix %d: text %q is not a prefix of %q", i, text, wantText)
			}
			if p := gjson.GetBytes(got, "message.content.0.input.file_path").String(); !strings.HasPrefix(wantPath, p) {
				t.Fatalf("prefix %d: file_path %q is not a prefix of %q", i, p, wantPath)
			}
		}
	}
}

func BenchmarkClosePrefix(b *testing.B) {
	line := []byte(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` +
		strings.Repeat(`some text \"quoted\" and a \n newline `, 1<<15))
	var dst []byte
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		dst = closePrefix(dst[:0], line)
	}
}
