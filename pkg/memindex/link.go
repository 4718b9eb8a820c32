package memindex

import "strings"

// target returns the destination of the link that opens the list item on line (a line without
// its ending), and false when line is not a list item that opens with a link:
//
//   - [Title](session-open-x.md) — hook
//   - [Title](./session-open-x.md "a title"): hook
//     1. [Title](<session-open-x.md>)
//   - [ ] [Title](session-open-x.md)
//
// A line that only mentions a file, in prose or in a link further on, points at nothing: the
// line is Claude Code's pointer only when the link is the item. Titles are free text and may
// hold brackets, parentheses and even "](": the link is taken to end at the first "](" that is
// followed by a well-formed destination, ")" and then the end of the line, white space or
// punctuation — so "[Cache](maybe)](session-open-cache.md)" points at session-open-cache.md,
// while in "[A](a.md) and [B](b.md)" the item is the link to a.md. The destination comes back
// without angle brackets, its title string or backslash escapes.
func target(line string) (string, bool) {
	s, ok := listItem(line)
	if !ok || !strings.HasPrefix(s, "[") {
		return "", false
	}
	for i := 1; i < len(s); {
		j := strings.Index(s[i:], "](")
		if j < 0 {
			return "", false
		}
		k := i + j
		if !escaped(s, k) {
			if dest, rest, ok := destination(s[k+2:]); ok && ends(rest) {
				return dest, true
			}
		}
		i = k + 1
	}
	return "", false
}

// listItem returns the content of a list item line after its marker ("-", "*", "+", or
// digits then "." or ")"), the white space after it and a task box ("[ ]", "[x]").
func listItem(line string) (string, bool) {
	s := strings.TrimLeft(line, " \t")
	switch {
	case s == "":
		return "", false
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		s = s[1:]
	default:
		n := 0
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || s[n] != '.' && s[n] != ')' {
			return "", false
		}
		s = s[n+1:]
	}
	if s == "" || s[0] != ' ' && s[0] != '\t' {
		return "", false
	}
	s = strings.TrimLeft(s, " \t")
	if len(s) > 3 && s[0] == '[' && (s[1] == ' ' || s[1] == 'x' || s[1] == 'X') && s[2] == ']' && (s[3] == ' ' || s[3] == '\t') {
		s = strings.TrimLeft(s[3:], " \t")
	}
	return s, true
}

// escaped reports whether s[i] follows an odd number of backslashes.
func escaped(s string, i int) bool {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// destination reads what follows "](": white space, a destination (in angle brackets, or bare
// with balanced parentheses and no white space), optionally white space and a title in "…",
// '…' or (…), white space, and ")". It returns the destination, unescaped, and the rest of the
// line after the ")".
func destination(s string) (dest, rest string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	var raw string
	if strings.HasPrefix(s, "<") {
		i := 1
		for ; i < len(s) && s[i] != '>'; i++ {
			if s[i] == '<' {
				return "", "", false
			}
			if s[i] == '\\' && i+1 < len(s) && isPunct(s[i+1]) {
				i++
			}
		}
		if i >= len(s) {
			return "", "", false
		}
		raw, s = s[1:i], s[i+1:]
	} else {
		depth, i := 0, 0
	scan:
		for ; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s) && isPunct(s[i+1]):
				i++
			case c <= ' ' || c == 0x7f:
				break scan
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break scan
				}
				depth--
			}
		}
		if i == 0 || depth != 0 {
			return "", "", false
		}
		raw, s = s[:i], s[i:]
	}
	t := strings.TrimLeft(s, " \t")
	if len(t) > 0 && t[0] != ')' {
		if len(t) == len(s) { // a title needs white space before it
			return "", "", false
		}
		var ok bool
		if t, ok = title(t); !ok {
			return "", "", false
		}
		t = strings.TrimLeft(t, " \t")
	}
	if !strings.HasPrefix(t, ")") {
		return "", "", false
	}
	return unescape(raw), t[1:], true
}

// title skips a link title ("…", '…' or (…), with backslash escapes) at the start of s.
func title(s string) (string, bool) {
	closer := s[0]
	switch closer {
	case '"', '\'':
	case '(':
		closer = ')'
	default:
		return "", false
	}
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && isPunct(s[i+1]):
			i++
		case s[i] == closer:
			return s[i+1:], true
		case s[0] == '(' && s[i] == '(':
			return "", false
		}
	}
	return "", false
}

// ends reports whether what follows a link's ")" lets the link end there: the end of the line,
// white space, or punctuation that closes a phrase ("…).", "…):", "…)—", "…)**"). An opening
// "[" or "(", a "]" or a letter right after ")" means the ")" was inside the title.
func ends(rest string) bool {
	if rest == "" {
		return true
	}
	switch rest[0] {
	case ' ', '\t', '.', ',', ':', ';', '!', '?', '-', '*', '_', '~', '`', '"', '\'':
		return true
	}
	return strings.HasPrefix(rest, "—") || strings.HasPrefix(rest, "–")
}

// isPunct reports ASCII punctuation, which a backslash escapes in markdown.
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// unescape removes the backslashes before ASCII punctuation.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
