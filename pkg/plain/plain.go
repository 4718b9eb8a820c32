// Package plain is cairn's one rule for untrusted text — prompts, transcript excerpts, file
// names, branch names, anything a cloned repository or a person typed — on its way into a file,
// Claude's context or a terminal:
//
//   - Line makes it one line: for a bullet, a snapshot line, a log line, a table cell;
//   - Text keeps its lines but nothing else that is not text: for a section of a checkpoint;
//   - Name quotes it when it holds anything that could forge a line in what Claude reads;
//   - Terminal escapes what a terminal would obey (ESC and OSC sequences, C1 controls).
//
// What counts as a control character is the same everywhere: C0 (but the tab and the newline
// where lines are kept), DEL, C1, the Unicode line and paragraph separators, and every format
// character (Unicode category Cf: the bidi overrides and isolates that make text read in another
// order than it is stored, the zero-width spaces and joiners, the byte-order mark, the tag
// characters that spell invisible ASCII). Invalid UTF-8 becomes U+FFFD. Formats layer their own escapes on top (a markdown bullet's emphasis, an HTML
// comment's end), never a different idea of a line.
//
// It stands alone, below every package that writes a file, the model's context or a terminal,
// so that all of them share this one rule and none has its own.
package plain

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/redact"
)

// IsControl reports whether r is a control character under cairn's one rule.
func IsControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029' ||
		r >= 0xad && unicode.Is(unicode.Cf, r)
}

// simple reports text that is valid UTF-8 with no control character, no white space but single
// inner ASCII spaces, trimmed: what Line returns unchanged (most text is, so Line costs one pass
// over it and no allocation; a bullet's em dash or a word in another script keeps it simple).
func simple(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || IsControl(r) || unicode.IsSpace(r) {
			return false
		}
		i += n
	}
	return true
}

// lineSlow is Line's rewrite of text that is not simple.
func lineSlow(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// Line returns s as one line: every control character and every run of white space becomes one
// space, the ends are trimmed, and a result longer than max runes (max > 0) is cut to max runes,
// the last of which is "…".
func Line(s string, max int) string {
	if !simple(s) {
		s = lineSlow(s)
	}
	return Cut(s, max)
}

// Cut shortens s to at most max runes (max > 0), the last of which is "…".
func Cut(s string, max int) string {
	if max <= 0 || len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// Text returns s as lines of text: valid UTF-8, "\r\n" and a lone "\r" read as a newline, and
// every other control character but the tab a space.
func Text(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsRune(s, '\r') {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// Name returns s as it goes into Claude's context inside a sentence or a list: unchanged when it
// is one printable line, else Go-quoted ("a\nb" → "\"a\\nb\""), so that a file or branch name
// holding a newline cannot add a line of its own to what Claude reads.
func Name(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if IsControl(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// Terminal returns s for a terminal: lines and tabs stay, and every other control character is
// written as a visible escape (ESC as \x1b, a C1 control as \u009b), so that text read from a
// file cannot move the cursor, retitle the window or write the clipboard (OSC 52).
func Terminal(s string) string {
	clean := true // ASCII without controls; anything else takes the rune-by-rune path
	for i := 0; clean && i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\n' && c != '\t' || c >= 0x7f {
			clean = false
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString("\uFFFD")
		case r == '\n' || r == '\t' || !IsControl(r):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			b.WriteString(`\x` + strconv.FormatInt(int64(r)|0x100, 16)[1:])
		case r <= 0xffff:
			b.WriteString(`\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:])
		default:
			b.WriteString(`\U` + strconv.FormatInt(int64(r)|0x100000000, 16)[1:])
		}
		i += size
	}
	return b.String()
}

// Field is Line for text a writer copies into a file: secrets are redacted first (package
// redact), so that a cut never leaves part of one behind. With Body, it is the one way text
// from a person, a prompt, a transcript or a repository reaches a file cairn writes.
func Field(s string, max int) string { return Line(redact.Redact(s), max) }

// Body is Text for text a writer copies into a file, secrets redacted (see Field).
func Body(s string) string { return Text(redact.Redact(s)) }
