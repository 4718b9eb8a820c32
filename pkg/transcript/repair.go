package transcript

import (
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// maxRepairDepth bounds the nesting closePrefix tracks. Transcript lines nest about six deep
// (line → message → content → block → input → edits); deeper prefixes are not repaired.
const maxRepairDepth = 64

// Per-container parser states of closePrefix.
const (
	expectKey   = iota // after '{' or ',' in an object
	expectColon        // after a key
	expectValue        // after ':' or '[' or ',' in an array, or at the top level
	afterValue         // after a complete value
)

// closePrefix turns the first bytes of a JSON document that was cut at an arbitrary byte into
// a valid document, appended to dst: everything up to the last complete value is kept, a string
// value that was cut is closed where it was cut (dropping a partial escape), and the open objects
// and arrays are closed. Keys and values that were cut short of their end are dropped, scalars
// included (a number cut in two would otherwise be read as a smaller number).
// It returns nil when no valid document can be made.
//
// This is how a line longer than the line cap is read: its first bytes hold what cairn needs
// (type, ids, the tool name and file_path, the start of a text), and the long part is a string.
func closePrefix(dst, p []byte) []byte {
	var (
		stack    [maxRepairDepth]byte // '{' or '['
		state    [maxRepairDepth + 1]byte
		depth    int
		cut      = -1 // p[:cut] is a valid prefix once closers for cutStack[:cutDepth] are added
		cutStack [maxRepairDepth]byte
		cutDepth int
		done     bool // the top-level value is complete
	)
	state[0] = expectValue
	record := func(pos int) {
		cut, cutDepth = pos, depth
		copy(cutStack[:depth], stack[:depth])
	}
	valueDone := func(pos int) {
		state[depth] = afterValue
		record(pos)
		done = depth == 0
	}
	inStr, isKey, strCut := false, false, 0
	i := 0
scan:
	for ; i < len(p) && !done; i++ {
		c := p[i]
		if inStr {
			// Skip plain string bytes quickly; stop at a quote or an escape.
			for i < len(p) && p[i] != '"' && p[i] != '\\' {
				i++
			}
			if i == len(p) {
				strCut = i
				break
			}
			if p[i] == '\\' {
				strCut = i // a cut here must not leave a lone backslash
				n := 2
				if i+1 < len(p) && p[i+1] == 'u' {
					n = 6
				}
				if i+n > len(p) {
					break // the escape itself was cut
				}
				i += n - 1
				strCut = i + 1
				continue
			}
			inStr = false
			if isKey {
				state[depth] = expectColon
			} else {
				valueDone(i + 1)
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '{', '[':
			if state[depth] != expectValue || depth == maxRepairDepth {
				break scan
			}
			stack[depth] = c
			depth++
			state[depth] = expectValue
			if c == '{' {
				state[depth] = expectKey
			}
			record(i + 1)
		case '}', ']':
			if depth == 0 {
				break scan
			}
			open, st := stack[depth-1], state[depth]
			ok := (c == '}' && open == '{' && (st == expectKey || st == afterValue)) ||
				(c == ']' && open == '[' && (st == expectValue || st == afterValue))
			if !ok {
				break scan
			}
			depth--
			valueDone(i + 1)
		case ',':
			if depth == 0 || state[depth] != afterValue {
				break scan
			}
			state[depth] = expectValue
			if stack[depth-1] == '{' {
				state[depth] = expectKey
			}
		case ':':
			if state[depth] != expectColon {
				break scan
			}
			state[depth] = expectValue
		case '"':
			switch state[depth] {
			case expectKey:
				inStr, isKey = true, true
			case expectValue:
				inStr, isKey = true, false
			default:
				break scan
			}
			strCut = i + 1
		default:
			// A number or a literal: it is complete only when a delimiter follows it.
			if state[depth] != expectValue {
				break scan
			}
			j := i
			for j < len(p) && isScalarByte(p[j]) {
				j++
			}
			if j == len(p) || j == i {
				break scan
			}
			i = j - 1
			valueDone(j)
		}
	}
	var out []byte
	switch {
	case inStr && !isKey && !done:
		out = append(dst, p[:trimPartialRune(p, strCut)]...)
		out = append(out, '"')
		out = appendClosers(out, stack[:depth])
	case cut >= 0:
		out = append(dst, p[:cut]...)
		out = appendClosers(out, cutStack[:cutDepth])
	default:
		return nil
	}
	if !gjson.ValidBytes(out) {
		return nil
	}
	return out
}

func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}

func appendClosers(b, stack []byte) []byte {
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == '{' {
			b = append(b, '}')
		} else {
			b = append(b, ']')
		}
	}
	return b
}

// trimPartialRune moves end back over a UTF-8 sequence that the cut left incomplete.
func trimPartialRune(p []byte, end int) int {
	for k := end - 1; k >= 0 && k >= end-utf8.UTFMax; k-- {
		if !utf8.RuneStart(p[k]) {
			continue
		}
		if !utf8.FullRune(p[k:end]) {
			return k
		}
		break
	}
	return end
}
