// Package jsonw writes JSON without reflection, byte for byte as encoding/json's Marshal writes
// the same values. It is for the records the hooks write on every run (the session registry, the
// event and timeline lines, the hook output): a fresh process pays encoding/json for building
// its reflection-based encoder once per type, a visible share of a hook's budget
// (docs/BENCHMARKS.md). The hooks' paths use it, and gjson to read, throughout; the CLI, which
// has no such budget, uses encoding/json.
package jsonw

import (
	"strconv"
	"time"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// String appends s as a JSON string, escaped as json.Marshal escapes it: '"', '\\' and control
// characters, '<', '>' and '&' (HTML-safe), U+2028 and U+2029, and invalid UTF-8 as U+FFFD.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendTime appends t as json.Marshal writes a time.Time: RFC 3339 with nanoseconds when it has any.
func appendTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}

// appendInt appends n.
func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// Object builds one JSON object on one line, fields in the order they are added.
type Object struct {
	B []byte
	n int
}

// Open starts an object on one line.
func Open(dst []byte) *Object { return &Object{B: append(dst, '{')} }

// Key starts a field and returns the buffer to append its value to; the caller stores the result
// back in o.B.
func (o *Object) Key(k string) []byte {
	if o.n > 0 {
		o.B = append(o.B, ',')
	}
	o.n++
	o.B = String(o.B, k)
	return append(o.B, ':')
}

// Str adds a string field.
func (o *Object) Str(k, v string) { o.B = String(o.Key(k), v) }

// StrOmitEmpty adds a string field unless v is "" (`json:",omitempty"`).
func (o *Object) StrOmitEmpty(k, v string) {
	if v != "" {
		o.Str(k, v)
	}
}

// Time adds a time field.
func (o *Object) Time(k string, t time.Time) { o.B = appendTime(o.Key(k), t) }

// Int adds an integer field.
func (o *Object) Int(k string, n int64) { o.B = appendInt(o.Key(k), n) }

// Close ends the object and returns the buffer.
func (o *Object) Close() []byte { return append(o.B, '}') }
