package flatmatter

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in     string
		fields map[string]any
		body   string
		closed bool
	}{
		{"---\nname: a\ndescription: Deferred: x: y\n---\nbody\n", map[string]any{"name": "a", "description": "Deferred: x: y"}, "body\n", true},
		{"\n\n---\r\nstatus: \"in progress\"\r\nfiles:\r\n  - a.go\r\n  - 'b''s.go'\r\nempty: []\r\n---\r\nx", map[string]any{"status": "in progress", "files": []any{"a.go", "b's.go"}, "empty": nil}, "x", true},
		{"no frontmatter\n", map[string]any{}, "no frontmatter\n", false},
		{"---\nname: x\nno end\n", map[string]any{"name": "x"}, "", false},
		{"---\nbad: \"a\\qb\"\n---\n", map[string]any{"bad": `a\qb`}, "", true},
	} {
		f, body, closed := Split([]byte(c.in))
		if !reflect.DeepEqual(f, c.fields) || string(body) != c.body || closed != c.closed {
			t.Errorf("%q: %#v %q %v", c.in, f, body, closed)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add([]byte("---\nk: v\n- x\n---\nbody"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, body, closed := Split(data)
		if !closed && body != nil && string(body) != string(data) {
			t.Fatalf("unclosed with a body that is not the input: %q", body)
		}
	})
}
