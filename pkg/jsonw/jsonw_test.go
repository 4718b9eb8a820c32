package jsonw

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzString: String writes what json.Marshal writes for any string.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", `"q" \b`, "<a&b>", "\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe", "é\u00e9日本", "\t\n\r\b\f", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Fatalf("String(%q) = %s, want %s", s, got, want)
		}
	})
}

func TestTime(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 11, 30, 2, 6, 25, 0, time.UTC),
		time.Date(2026, 11, 30, 2, 6, 25, 120000000, time.FixedZone("x", -7*3600)),
		{},
	} {
		want, _ := json.Marshal(tm)
		if got := appendTime(nil, tm); string(got) != string(want) {
			t.Errorf("Time(%v) = %s, want %s", tm, got, want)
		}
	}
}

// Objects on one line and indented are laid out as encoding/json lays out the same struct.
func TestObject(t *testing.T) {
	type inner struct {
		A string `json:"a"`
		B string `json:"b,omitempty"`
		N int64  `json:"n"`
	}
	for _, v := range []inner{{A: "x", N: 3}, {A: "<y>", B: "z", N: -1}} {
		want, _ := json.Marshal(v)
		o := Open(nil)
		o.Str("a", v.A)
		o.StrOmitEmpty("b", v.B)
		o.Int("n", v.N)
		if got := o.Close(); string(got) != string(want) {
			t.Errorf("one line: %s, want %s", got, want)
		}
	}
	if got := Open(nil).Close(); string(got) != "{}" {
		t.Errorf("empty: %s", got)
	}
}
