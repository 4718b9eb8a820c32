package memindex

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzRemove: whatever the index, removing the pointers to one file either leaves it
// byte-identical or takes away only whole lines, each with its own ending, each pointing at that
// file (checked against a line splitter of the test's own, so a bug in split cannot hide); a
// second removal changes nothing, and no pointer to the file is left outside code blocks. An
// index that is not UTF-8 stays byte-identical.
func FuzzRemove(f *testing.F) {
	for _, s := range []string{
		"# Memory\n\n- [Cache idea](session-open-a.md) — a cache\n- [Kept](session-open-b.md) — kept\n- [Style](feedback_style.md)\n",
		"- [A](a.md)\r\n- [X](./session-open-a.md)\r\n- [B](b.md)",
		"\uFEFF- [X](session-open-a.md)\r- [A](a.md)\r",
		"- [Cache](maybe)](session-open-a.md) — hook\n  - [again](<session-open-a.md> \"t\")\n",
		"```\n- [E](session-open-a.md)\n```\n- [E](session-open-a.md)\n",
		"- see [it](session-open-a.md)\n- [A](a.md) — was [x](session-open-a.md)\n- [B](../x/session-open-a.md)\n",
		"- [X](session-open-a.md)\n\xff\n",
		"- [X](session%2Dopen-a.md#top)\r\n\r\n1. [ ] [Y](session\\-open-a.md 'x')",
		"",
	} {
		f.Add([]byte(s), "session-open-a.md")
	}
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		if len(data) > 8<<10 {
			return
		}
		in := bytes.Clone(data)
		out, gone, err := Remove(data, func(file string) bool { return file == name })
		if !bytes.Equal(data, in) {
			t.Fatal("Remove changed its input")
		}
		if err != nil {
			if !errors.Is(err, errNotUTF8) || !bytes.Equal(out, data) || gone != nil {
				t.Fatalf("error %v: output %q, removed %q", err, out, gone)
			}
			return
		}
		if len(gone) == 0 {
			if !bytes.Equal(out, data) {
				t.Fatalf("nothing removed but the index changed:\n%q\n%q", data, out)
			}
			return
		}
		for _, l := range gone {
			if target, ok := target(l); !ok || file(target) != name {
				t.Fatalf("removed %q, which does not point at %q", l, name)
			}
		}
		if !wholeLinesRemoved(data, out, name) {
			t.Fatalf("the output is not the input less whole pointer lines:\n%q\n%q", data, out)
		}
		if again, more, _ := Remove(out, func(file string) bool { return file == name }); more != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second removal took %q more", more)
		}
		ps, _ := Pointers(out)
		for _, p := range ps {
			if p.File == name {
				t.Fatalf("line %d still points at %q: %q", p.Line, name, p.Text)
			}
		}
	})
}

// wholeLinesRemoved reports whether out is data with some of its lines (each with its ending:
// "\r\n", "\n" or a lone "\r") taken away, every one of them a pointer to name, and a
// byte-order mark at the start kept.
func wholeLinesRemoved(data, out []byte, name string) bool {
	bom := []byte("\uFEFF")
	if bytes.HasPrefix(data, bom) {
		if !bytes.HasPrefix(out, bom) {
			return false
		}
		data, out = data[len(bom):], out[len(bom):]
	}
	var lines [][]byte
	for len(data) > 0 {
		n := len(data)
		for i, c := range data {
			if c == '\n' || c == '\r' {
				n = i + 1
				if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
					n++
				}
				break
			}
		}
		lines, data = append(lines, data[:n]), data[n:]
	}
	// The offsets into out that some choice of lines to keep reaches.
	reach := map[int]bool{0: true}
	for _, l := range lines {
		text := string(bytes.TrimRight(l, "\r\n"))
		target, ok := target(text)
		droppable := ok && file(target) == name
		next := map[int]bool{}
		for off := range reach {
			if bytes.HasPrefix(out[off:], l) {
				next[off+len(l)] = true
			}
			if droppable {
				next[off] = true
			}
		}
		reach = next
	}
	return reach[len(out)]
}
