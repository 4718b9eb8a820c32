// Package flatmatter reads a markdown file's frontmatter line by line — "key: value" pairs and
// "- item" entries under the last key, between a first "---" line and the next — without YAML.
// It is the one line reader beside adrg/frontmatter (which the CLI uses to read checkpoints as
// people write them): the hooks read what cairn itself wrote and the flat legacy files of the
// original /session workflow with it, and link no YAML library. A line reader also takes those
// files' common "description: Deferred: x" as written, which YAML refuses.
package flatmatter

import (
	"bytes"
	"strconv"
	"strings"
)

// Split reads data's frontmatter. fields maps each key to its value (a string, or nil when
// empty or "[]") or to a []any of its "- item" entries; body is what follows the closing line.
// closed is false when there is no frontmatter (body is then data) or when its closing line is
// missing (body is then nil, and fields holds what was read); callers decide what an unclosed
// block means for them.
func Split(data []byte) (fields map[string]any, body []byte, closed bool) {
	fields = map[string]any{}
	rest := data
	line, rest, ok := cutLine(rest)
	for ok && strings.TrimSpace(line) == "" {
		line, rest, ok = cutLine(rest)
	}
	if strings.TrimSpace(line) != "---" {
		return fields, data, false
	}
	key := ""
	for {
		line, rest, ok = cutLine(rest)
		if !ok && line == "" {
			return fields, nil, false
		}
		t := strings.TrimSpace(line)
		if t == "---" {
			return fields, rest, true
		}
		if item, isItem := strings.CutPrefix(t, "- "); isItem && key != "" {
			list, _ := fields[key].([]any)
			fields[key] = append(list, Unquote(item))
			continue
		}
		if k, v, found := strings.Cut(t, ":"); found && !strings.HasPrefix(line, " ") {
			key = strings.TrimSpace(k)
			if v = strings.TrimSpace(v); v != "" && v != "[]" {
				fields[key] = Unquote(v)
			} else {
				fields[key] = nil
			}
		}
		if !ok {
			return fields, nil, false
		}
	}
}

// String returns fields[key] when it is a string.
func String(fields map[string]any, key string) string {
	s, _ := fields[key].(string)
	return s
}

func cutLine(b []byte) (line string, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return string(b), nil, false
	}
	return string(b[:i]), b[i+1:], true
}

// Unquote reads a YAML scalar written in quotes: double quotes with backslash escapes (read as
// Go's, which YAML's are a superset of for what people write; an escape Go does not know leaves
// the text between the quotes as written), single quotes with ” for '. Anything else is taken
// as written.
func Unquote(v string) string {
	if len(v) < 2 || v[len(v)-1] != v[0] {
		return v
	}
	switch v[0] {
	case '"':
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	case '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}
