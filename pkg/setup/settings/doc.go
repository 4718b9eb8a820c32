package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// doc is a settings file being edited: its bytes and the formatting new text must match. Every
// edit splices text into the bytes and the next edit parses them again, so positions are never
// stale; settings files are small enough for that to cost nothing.
type doc struct {
	b       []byte
	nl      string // the file's line end: "\n" or "\r\n"
	unit    string // one level of indentation
	colon   string // what separates a key from its value: ": " or ":" as the file has it
	compact bool   // the file is on one line: new text is written on one line too
}

// ErrInvalid is wrapped by every refusal to edit a file: it is not JSON, not an object, or not
// shaped the way Claude Code reads it where cairn would have to write. Nothing is changed.
var ErrInvalid = errors.New("settings file refused")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// isBlank reports whether data holds nothing but JSON whitespace: a file Claude Code reads as
// no settings at all.
func isBlank(data []byte) bool {
	return len(bytes.Trim(data, " \t\r\n")) == 0
}

// load validates data and detects its formatting. Blank data becomes an empty object.
func load(data []byte) (*doc, error) {
	if isBlank(data) {
		data = []byte("{}\n")
	}
	if err := validate(data); err != nil {
		return nil, err
	}
	d := &doc{b: slices.Clone(data)}
	d.detectStyle()
	return d, nil
}

// validate accepts a JSON object only: what both encoding/json (the strict reference) and gjson
// (which locates values for the splices) agree is valid.
func validate(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, int(se.Offset))
			return invalid("not valid JSON: %v (line %d, column %d)", se, line, col)
		}
		return invalid("not valid JSON: %v", err)
	}
	if !gjson.ValidBytes(data) {
		return invalid("not valid JSON")
	}
	if _, ok := v.(map[string]any); !ok {
		return invalid("not a JSON object")
	}
	return nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}

func (d *doc) detectStyle() {
	d.nl, d.unit, d.colon = "\n", "  ", ": "
	if bytes.Contains(d.b, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	r := d.root()
	its := items(r)
	if len(its) == 0 {
		return
	}
	d.compact = !strings.Contains(r.Raw, "\n")
	first := its[0]
	if gap := string(d.b[first.key.Index+len(first.key.Raw) : first.val.Index]); strings.Trim(gap, " \t") == ":" {
		d.colon = gap
	}
	if d.compact || !d.startsLine(first.start) {
		return
	}
	if u, ok := strings.CutPrefix(d.lineIndent(first.start), d.lineIndent(r.Index)); ok && u != "" {
		d.unit = u
	}
}

// root returns the top-level object, without the whitespace that may follow it.
func (d *doc) root() gjson.Result {
	r := gjson.ParseBytes(d.b)
	r.Raw = strings.TrimRight(r.Raw, " \t\r\n")
	return r
}

// item is an object member or an array element, with its byte span: from the key (or the value
// in an array) to the end of the value.
type item struct {
	key, val   gjson.Result
	start, end int
}

func items(c gjson.Result) []item {
	var out []item
	obj := c.IsObject()
	c.ForEach(func(k, v gjson.Result) bool {
		it := item{key: k, val: v, start: v.Index, end: v.Index + len(v.Raw)}
		if obj {
			it.start = k.Index
		}
		out = append(out, it)
		return true
	})
	return out
}

// lookup returns the index of the last member named key (the one Claude Code's JSON.parse keeps)
// and how many members have that name.
func lookup(its []item, key string) (idx, n int) {
	idx = -1
	for i, it := range its {
		if it.key.Str == key {
			idx, n = i, n+1
		}
	}
	return idx, n
}

// str returns the string value of member key, and whether there is one.
func str(its []item, key string) (string, bool) {
	if i, _ := lookup(its, key); i >= 0 && its[i].val.Type == gjson.String {
		return its[i].val.Str, true
	}
	return "", false
}

func (d *doc) splice(start, end int, text string) {
	d.b = slices.Concat(d.b[:start], []byte(text), d.b[end:])
}

// lineIndent returns the spaces and tabs that start the line holding pos.
func (d *doc) lineIndent(pos int) string {
	start := bytes.LastIndexByte(d.b[:pos], '\n') + 1
	end := start
	for end < len(d.b) && (d.b[end] == ' ' || d.b[end] == '\t') {
		end++
	}
	return string(d.b[start:end])
}

// startsLine reports whether only indentation precedes pos on its line.
func (d *doc) startsLine(pos int) bool {
	start := bytes.LastIndexByte(d.b[:pos], '\n') + 1
	return len(bytes.Trim(d.b[start:pos], " \t")) == 0
}

// step is one level of a path into the document: element i of container c.
type step struct {
	c   gjson.Result
	its []item
	i   int
}

// removeChain removes the element at the end of chain. A container left empty by the removal
// goes too, level by level up to (not including) the root object: cairn removes what became
// empty because of it, and nothing that was empty before.
func (d *doc) removeChain(chain []step) {
	k := len(chain) - 1
	for k > 0 && len(chain[k].its) == 1 {
		k--
	}
	d.remove(chain[k].c, chain[k].its, chain[k].i)
}

// remove deletes element i of container c, with the separator that joined it to its neighbour,
// so that removing what add inserted restores the bytes exactly.
func (d *doc) remove(c gjson.Result, its []item, i int) {
	switch {
	case len(its) == 1:
		d.splice(c.Index+1, c.Index+len(c.Raw)-1, "")
	case i < len(its)-1:
		d.splice(its[i].start, its[i+1].start, "")
	default:
		d.splice(its[i-1].end, its[i].end, "")
	}
}

// add appends v to container c (as member key when c is an object), laid out like the elements
// already there: after the last one, separated as the last two are (or as the first is from the
// opening bracket), indented to match. In an empty container it goes on a line of its own one
// level deeper than the container's line.
func (d *doc) add(c gjson.Result, its []item, key string, v any) {
	text := func(prefix string, multi bool) string {
		s := d.render(v, prefix, multi)
		if c.IsObject() {
			s = quote(key) + d.colon + s
		}
		return s
	}
	open, end := c.Index, c.Index+len(c.Raw)-1
	if len(its) == 0 {
		if d.compact {
			d.splice(open+1, end, text("", false))
			return
		}
		outer := d.lineIndent(open)
		inner := outer + d.unit
		d.splice(open+1, end, d.nl+inner+text(inner, true)+d.nl+outer)
		return
	}
	last := its[len(its)-1]
	sep := string(d.b[open+1 : last.start])
	if len(its) > 1 {
		_, sep, _ = strings.Cut(string(d.b[its[len(its)-2].end:last.start]), ",")
	} else if !strings.Contains(sep, "\n") && strings.HasSuffix(d.colon, " ") {
		sep = " " // one element on one line: space it as the file spaces its colons
	}
	nl := strings.LastIndexByte(sep, '\n')
	multi := !d.compact && nl >= 0
	prefix := ""
	if multi {
		prefix = sep[nl+1:]
	}
	d.splice(last.end, last.end, ","+sep+text(prefix, multi))
}

// replace puts v in place of the value of it, keeping the key and what surrounds it.
func (d *doc) replace(it item, v any) {
	multi := !d.compact && d.startsLine(it.start)
	d.splice(it.val.Index, it.end, d.render(v, d.lineIndent(it.start), multi))
}

// obj is a JSON object with its keys in the order they are written.
type obj []kv

type kv struct {
	k string
	v any
}

// render writes v (an obj, []any, []string, string or int) as JSON. multi puts each member and
// element on a line of its own, the nested ones indented by one more unit than prefix, which is
// the indentation of the line v starts on; otherwise v is written on one line.
func (d *doc) render(v any, prefix string, multi bool) string {
	var b strings.Builder
	d.write(&b, v, prefix, multi)
	return b.String()
}

func (d *doc) write(b *strings.Builder, v any, prefix string, multi bool) {
	comma := ","
	if !multi && strings.HasSuffix(d.colon, " ") {
		comma = ", "
	}
	list := func(open, close byte, n int, elem func(i int, inner string)) {
		b.WriteByte(open)
		if n == 0 {
			b.WriteByte(close)
			return
		}
		inner := prefix + d.unit
		for i := range n {
			if i > 0 {
				b.WriteString(comma)
			}
			if multi {
				b.WriteString(d.nl + inner)
			}
			elem(i, inner)
		}
		if multi {
			b.WriteString(d.nl + prefix)
		}
		b.WriteByte(close)
	}
	switch v := v.(type) {
	case obj:
		list('{', '}', len(v), func(i int, inner string) {
			b.WriteString(quote(v[i].k))
			b.WriteString(d.colon)
			d.write(b, v[i].v, inner, multi)
		})
	case []any:
		list('[', ']', len(v), func(i int, inner string) { d.write(b, v[i], inner, multi) })
	case []string:
		list('[', ']', len(v), func(i int, inner string) { b.WriteString(quote(v[i])) })
	case string:
		b.WriteString(quote(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	default:
		panic(fmt.Sprintf("settings: cannot render %T", v))
	}
}

// quote writes s as a JSON string, leaving <, > and & as they are (a path is easier to read
// that way and means the same).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// sameJSON reports whether raw and the rendering of v differ only in whitespace.
func (d *doc) sameJSON(raw string, v any) bool {
	var a, b bytes.Buffer
	if json.Compact(&a, []byte(raw)) != nil || json.Compact(&b, []byte(d.render(v, "", false))) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}
