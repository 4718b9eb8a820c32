package redact

import "strings"

// The needles of every rule are looked for in one pass over the text, not one strings.Contains
// each: with forty needles, most of them starting with a letter that prose is full of, the
// separate searches cost more than everything else Redact does on clean text. The pass looks at
// each pair of adjacent bytes (case folded) and stops only where some needle has that pair at
// its anchor, the pair of it least likely in prose ("_p" in "ghp_", "xo" in "xox"), so a needle
// is compared in full only where it may well be.

// needle is one needle's text with the rules that have it, and where its anchor pair is.
type needle struct {
	text  string
	exact bool   // text has an uppercase letter: it must occur as written
	at    int    // offset of the anchor pair in text
	rules uint64 // bit i: rules[i] has this needle
}

// needles is the anchor index: bits has bit k set when some needle's anchor is pair k
// (first byte << 8 | second, folded), and at lists those needles.
type needles struct {
	bits [1 << 16 / 64]uint64
	at   map[uint16][]needle
}

// indexNeedles builds the index of rules' needles.
func indexNeedles() *needles {
	if len(rules) > 64 {
		panic("redact: more rules than bits in a mask")
	}
	x := &needles{at: map[uint16][]needle{}}
	byText := map[string]int{} // text → index in list
	var list []needle
	for i, r := range rules {
		for _, t := range r.needles {
			if len(t) < 2 {
				panic("redact: needle " + t + " is shorter than its anchor")
			}
			if j, ok := byText[t]; ok {
				list[j].rules |= 1 << i
				continue
			}
			byText[t] = len(list)
			list = append(list, needle{text: t, exact: strings.ToLower(t) != t, at: anchor(t), rules: 1 << i})
		}
	}
	for _, n := range list {
		k := pair(n.text[n.at], n.text[n.at+1])
		x.bits[k>>6] |= 1 << (k & 63)
		x.at[k] = append(x.at[k], n)
	}
	return x
}

// find reports, as bits of rule indexes, the rules one of whose needles occurs in s.
func (x *needles) find(s string) uint64 {
	var found uint64
	if len(s) < 2 {
		return 0
	}
	prev := fold[s[0]]
	for i := 1; i < len(s); i++ {
		c := fold[s[i]]
		k := uint16(prev)<<8 | uint16(c)
		prev = c
		if x.bits[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, n := range x.at[k] {
			if found&n.rules == n.rules {
				continue
			}
			a := i - 1 - n.at
			if a < 0 || a+len(n.text) > len(s) {
				continue
			}
			if w := s[a : a+len(n.text)]; n.exact && w == n.text || !n.exact && equalFold(w, n.text) {
				found |= n.rules
			}
		}
	}
	return found
}

// each calls fn with the offset and the text of every occurrence in s of a needle of the rules
// in mask, in the order of their offsets (of their anchors, when two overlap).
func (x *needles) each(s string, mask uint64, fn func(i int, text string)) {
	if len(s) < 2 {
		return
	}
	prev := fold[s[0]]
	for i := 1; i < len(s); i++ {
		c := fold[s[i]]
		k := uint16(prev)<<8 | uint16(c)
		prev = c
		if x.bits[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, n := range x.at[k] {
			if n.rules&mask == 0 {
				continue
			}
			a := i - 1 - n.at
			if a < 0 || a+len(n.text) > len(s) {
				continue
			}
			if w := s[a : a+len(n.text)]; n.exact && w == n.text || !n.exact && equalFold(w, n.text) {
				fn(a, n.text)
			}
		}
	}
}

// pair is the index key of two bytes.
func pair(a, b byte) uint16 { return uint16(fold[a])<<8 | uint16(fold[b]) }

// anchor is the offset of t's pair of bytes least likely in prose.
func anchor(t string) int {
	best, at := 2.0, 0
	for i := 0; i+1 < len(t); i++ {
		if p := prose(t[i]) * prose(t[i+1]); p < best {
			best, at = p, i
		}
	}
	return at
}

// prose is roughly how often a byte occurs in English prose (letters by their frequency, case
// folded; the blank most often; punctuation and digits rarely).
func prose(c byte) float64 {
	c = fold[c]
	switch {
	case c >= 'a' && c <= 'z':
		return letterFreq[c-'a']
	case c == ' ':
		return 0.18
	case c == '.' || c == ',' || c == '\n':
		return 0.01
	case c >= '0' && c <= '9':
		return 0.003
	case c == '-' || c == ':' || c == '/':
		return 0.004
	}
	return 0.001
}

// letterFreq is the frequency of a…z in English text.
var letterFreq = [26]float64{
	.082, .015, .028, .043, .127, .022, .020, .061, .070, .0015, .0077, .040, .024,
	.067, .075, .019, .00095, .060, .063, .091, .028, .0098, .024, .0015, .020, .00074,
}

// fold maps ASCII upper case to lower case and every other byte to itself.
var fold = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// equalFold reports whether w, folded, is the lowercase needle t.
func equalFold(w, t string) bool {
	for i := 0; i < len(t); i++ {
		if fold[w[i]] != t[i] {
			return false
		}
	}
	return true
}
