package transcript

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// lineMarks is what one walk over a line's double quotes finds of the tokens the region scan
// (sinceAt) tests a line of the activity stretch for: each bit says whether the line holds that token, exactly as
// bytes.Contains over the line answers (over its first toolResultHead bytes for the two head
// tokens), and ids lists where "tool_use_id":" starts, every occurrence.
//
// Every token holds a double quote at a fixed place, so every occurrence of a token has one of
// the line's quotes there: looking at each quote for the tokens that can start or end at it finds
// every occurrence, in one pass. The tests it replaces were a search of the whole line per token,
// a dozen passes over each line of the tail, most of them for a token whose first byte ('"', 't',
// '_') is frequent and so off bytes.Index's fast path. (Before that stretch a line is tested for
// three tokens only, whose searches beat the walk.)
type lineMarks struct {
	bits lineMark
	ids  []int32 // offsets of "tool_use_id":" in the line, ascending; reused from line to line
}

// lineMark is one token's bit in lineMarks.
type lineMark uint16

const (
	markBoundary   lineMark = 1 << iota // _boundary"
	markSummary                         // CompactSummary"
	markResultHead                      // tool_result" in the head (isToolResult)
	markUserHead                        // "type":"user" in the head (mayDecide)
	markText                            // "type":"text"
	markToolUse                         // "tool_use"
	markEdit                            // Edit" (also the end of MultiEdit" and NotebookEdit")
	markWrite                           // Write" (also the end of TodoWrite")
	markBash                            // "Bash"
	markTask                            // TodoWrite", TaskCreate" or TaskUpdate"
	markIsError                         // "is_error":true
)

// The tokens, as the predicates they replace spell them: constants, so that comparing a slice
// of the line with one is a few word compares, not a call.
const (
	tokBoundary   = `_boundary"`
	tokSummary    = `CompactSummary"`
	tokResult     = `tool_result"`
	tokEdit       = `Edit"`
	tokWrite      = `Write"`
	tokTodoWrite  = `TodoWrite"`
	tokTaskCreate = `TaskCreate"`
	tokTaskUpdate = `TaskUpdate"`
	tokToolUse    = `"tool_use"`
	tokToolUseID  = `"tool_use_id":"`
	tokUser       = `"type":"user"`
	tokText       = `"type":"text"`
	tokBash       = `"Bash"`
	tokIsError    = `"is_error":true`
)

// of walks b's quotes once and returns m holding what b holds.
func (m *lineMarks) of(b []byte) *lineMarks {
	m.bits, m.ids = 0, m.ids[:0]
	for q := 0; ; q++ {
		if q = nextQuote(b, q); q < 0 {
			break
		}
		// Tokens that end with this quote, told apart by the two bytes before it.
		if q > 1 {
			switch string(b[q-2 : q]) {
			case "ry":
				if endsWith(b, q, tokBoundary) {
					m.bits |= markBoundary
				}
				if endsWith(b, q, tokSummary) {
					m.bits |= markSummary
				}
			case "it":
				if endsWith(b, q, tokEdit) {
					m.bits |= markEdit
				}
			case "lt":
				if q < toolResultHead && endsWith(b, q, tokResult) {
					m.bits |= markResultHead
				}
			case "te":
				if endsWith(b, q, tokWrite) {
					m.bits |= markWrite
				}
				if endsWith(b, q, tokTodoWrite) || endsWith(b, q, tokTaskCreate) || endsWith(b, q, tokTaskUpdate) {
					m.bits |= markTask
				}
			}
		}
		// Tokens that start with it, told apart by the two bytes after it.
		if q+2 < len(b) {
			switch string(b[q+1 : q+3]) {
			case "to":
				switch {
				case startsWith(b, q, tokToolUseID):
					m.ids = append(m.ids, int32(q))
				case startsWith(b, q, tokToolUse):
					m.bits |= markToolUse
				}
			case "ty":
				switch {
				case startsWith(b, q, tokText):
					m.bits |= markText
				case q+len(tokUser) <= toolResultHead && startsWith(b, q, tokUser):
					m.bits |= markUserHead
				}
			case "is":
				if startsWith(b, q, tokIsError) {
					m.bits |= markIsError
				}
			case "Ba":
				if startsWith(b, q, tokBash) {
					m.bits |= markBash
				}
			}
		}
	}
	return m
}

// nextQuote returns the index of the first '"' in b at or after i, or -1. Outside a long string
// quotes come a few bytes apart (a line's head holds one every 10 to 40 bytes), closer than a
// call to bytes.IndexByte pays for: the first 32 bytes are tested eight at a time, in a word.
func nextQuote(b []byte, i int) int {
	for end := min(i+32, len(b)); i+8 <= end; i += 8 {
		// The bytes of v that are zero are the quotes; the lowest bit set in t is the first one
		// (a borrow can set bits only above a zero byte).
		v := binary.LittleEndian.Uint64(b[i:]) ^ 0x2222222222222222
		if t := (v - 0x0101010101010101) &^ v & 0x8080808080808080; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	if i >= len(b) {
		return -1
	}
	k := bytes.IndexByte(b[i:], '"')
	if k < 0 {
		return -1
	}
	return i + k
}

// has reports whether every bit of want is set.
func (m *lineMarks) has(want lineMark) bool { return m.bits&want == want }

// any reports whether one bit of want is set.
func (m *lineMarks) any(want lineMark) bool { return m.bits&want != 0 }

// endsWith reports whether tok ends at b[q] (b[q] is tok's last byte).
func endsWith(b []byte, q int, tok string) bool {
	start := q + 1 - len(tok)
	return start >= 0 && string(b[start:q+1]) == tok
}

// startsWith reports whether tok starts at b[q].
func startsWith(b []byte, q int, tok string) bool {
	return len(b)-q >= len(tok) && string(b[q:q+len(tok)]) == tok
}
