package plain

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                "plain text",
		"  two\n lines\t ":          "two lines",
		"a\x00b\x1b[31mc":           "a b [31mc",
		"del\x7fc1\u0085sep\u2028x": "del c1 sep x",
		"bad \xff utf8":             "bad \uFFFD utf8",
		"":                          "",
		"double  space":             "double space",
		"crlf\r\nline":              "crlf line",
	} {
		if got := Line(in, 0); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("abcdef", 4); got != "abc…" {
		t.Errorf("cut: %q", got)
	}
	if got := Line("ééééé", 5); got != "ééééé" {
		t.Errorf("runes, not bytes: %q", got)
	}
}

func TestText(t *testing.T) {
	if got := Text("a\r\nb\rc\td\x1b[0m\u2028e"); got != "a\nb\nc\td [0m e" {
		t.Errorf("%q", got)
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"rules/a.md":        "rules/a.md",
		"ünï code.md":       "ünï code.md",
		"evil\n2. run x.md": `"evil\n2. run x.md"`,
		"sep\u2028x":        `"sep\u2028x"`,
		"bad\xff":           `"bad\xff"`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"ok\n\tindented":          "ok\n\tindented",
		"\x1b]52;c;aGk=\x07 clip": `\x1b]52;c;aGk=\x07 clip`,
		"csi \u009b31m":           `csi \u009b31m`,
		"cr\rover":                `cr\x0dover`,
		"é and \u2028":            `é and \u2028`,
		"bad\xff":                 "bad\uFFFD",
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

// Format characters (Unicode Cf) are controls: a bidi override cannot make a line read in another
// order, a zero-width character cannot hide a word, a tag character cannot spell invisible ASCII.
func TestFormatCharacters(t *testing.T) {
	for _, r := range []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200b, 0x200c, 0x200d, 0xfeff, 0x00ad, 0x2060, 0xe0041, 0xe007f} {
		in := "run " + string(r) + "it"
		if !IsControl(r) {
			t.Errorf("%U is not a control", r)
		}
		if got := Line(in, 0); got != "run it" {
			t.Errorf("Line(%q) = %q", in, got)
		}
		if got := Text(in); got != "run  it" {
			t.Errorf("Text(%q) = %q", in, got)
		}
		if got := Name(in); !strings.HasPrefix(got, `"`) || strings.ContainsRune(got, r) {
			t.Errorf("Name(%q) = %q: not quoted", in, got)
		}
		if got := Terminal(in); strings.ContainsRune(got, r) || !strings.Contains(strings.ToLower(got), `\u`) {
			t.Errorf("Terminal(%q) = %q: not escaped", in, got)
		}
	}
	if got := Terminal("a\U000E0041b\u202ec"); got != `a\U000e0041b\u202ec` {
		t.Errorf("Terminal escapes %q", got)
	}
	// Letters, marks and symbols outside ASCII stay.
	for _, s := range []string{"naïve café", "日本語", "emoji 🙂", "Ελληνικά"} {
		if Line(s, 0) != s || Name(s) != s || Terminal(s) != s || Text(s) != s {
			t.Errorf("%q changed: %q %q %q", s, Line(s, 0), Name(s), Terminal(s))
		}
	}
}

// Whatever goes in, Line gives one line of valid UTF-8 without controls, and Terminal gives
// nothing a terminal obeys but newlines and tabs.
func FuzzPlain(f *testing.F) {
	f.Add("a\x1b]0;title\x07\nb\u2028c\xff", 10)
	f.Add("- **slug** — Deferred: a thing. Raised: 2026-11-20.", 300)
	f.Add("日本語 text\u00a0with\u3000spaces \ufffd", 300)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = int(uint(max)%300) + 1
		l := Line(s, max)
		if !utf8.ValidString(l) || utf8.RuneCountInString(l) > max || strings.ContainsFunc(l, IsControl) || strings.TrimSpace(l) != l {
			t.Fatalf("Line(%q, %d) = %q", s, max, l)
		}
		if Line(l, max) != l {
			t.Fatalf("Line not idempotent: %q", l)
		}
		if simple(s) && lineSlow(s) != s {
			t.Fatalf("simple(%q), which Line returns as it is, but the rewrite gives %q", s, lineSlow(s))
		}
		term := Terminal(s)
		if !utf8.ValidString(term) || strings.ContainsFunc(term, func(r rune) bool { return r != '\n' && r != '\t' && IsControl(r) }) {
			t.Fatalf("Terminal(%q) = %q", s, term)
		}
		if n := Name(s); strings.ContainsFunc(n, IsControl) || !utf8.ValidString(n) {
			t.Fatalf("Name(%q) = %q", s, n)
		}
	})
}
