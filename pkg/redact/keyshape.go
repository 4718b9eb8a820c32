package redact

import (
	"math"
	"strings"
)

// The fallback: a key-shaped token that no named rule knows is masked when it stands next to a
// word that says it is a secret (key, token, secret, password, passwd, pwd, pass, auth,
// credential, with any prefix: api_key, X-Api-Key, OAUTH, AUTH_TOKEN), as word=value,
// word: value, "word": "value", word := value or word value; and a bare 40-character one that
// looks like an AWS secret access key is masked wherever it stands.
//
// Key-shaped is what a random key looks like and an identifier, a path, a hash or prose does
// not: at least minKeyLen bytes of [A-Za-z0-9+/_-], letters and at least one digit, not only hex
// digits (git object names, digests, UUIDs), not made of words (TestRedactPairs2, src/pkg/x2,
// x86_64-linux-gnu), and of high Shannon entropy for its length. Measured on 10,000 random keys
// of each length and alphabet (20 to 64 characters; base32, base36, base62, base64), the rule
// misses up to 7 in 100 of those of 20 characters (a few have no digit, or start with '/'),
// and 2 in 100 or fewer of those of 40 and more; an entropy threshold loose enough to catch
// them would take identifiers too.

// minKeyLen is the shortest token the fallback looks at: shorter random strings have too few
// bytes for their entropy to tell them from words.
const minKeyLen = 20

// awsSecretLen is the length of an AWS secret access key (30 random bytes in base64).
const awsSecretLen = 40

// secretWords are the words that, ending the word before a token, make it a secret's value.
var secretWords = []string{"key", "token", "secret", "password", "passwd", "pwd", "pass", "auth", "credential"}

// maskKeyShaped masks the key-shaped tokens of s that the fallback takes for secrets. It
// allocates only when it masks.
func maskKeyShaped(s string) string {
	var b []byte
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isTokenByte(s[j]) {
			j++
		}
		if j-i >= minKeyLen && (afterSecretWord(s, i) && keyShaped(s[i:j]) || j-i == awsSecretLen && awsSecretShaped(s[i:j])) {
			for end := j; j < len(s) && s[j] == '=' && j-end < 2; {
				j++ // base64 padding goes with the token
			}
			if b == nil {
				b = make([]byte, 0, len(s))
			}
			b = append(b, s[done:i]...)
			b = append(b, mask...)
			done = j
		}
		i = j
	}
	if b == nil {
		return s
	}
	return string(append(b, s[done:]...))
}

// isTokenByte is a byte a key is made of: base64 and base64url.
func isTokenByte(c byte) bool { return tokenBytes[c] }

// tokenBytes is isTokenByte's table: the scan looks at every byte of the text.
var tokenBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
	}
	return t
}()

// afterSecretWord reports whether the token at s[i:] is the value of a word that names a
// secret: the word, then an optional quote, blanks, an optional '=', ':', ':=' or '=>', blanks
// and an optional quote, with at least a blank or a separator between the two.
func afterSecretWord(s string, i int) bool {
	j := i
	if j > 0 && isQuote(s[j-1]) {
		j--
	}
	j, blank := skipBlanks(s, j)
	sep := j
	for j > 0 && sep-j < 2 && (s[j-1] == '=' || s[j-1] == ':' || s[j-1] == '>') {
		j--
	}
	if j == sep && !blank {
		return false
	}
	if j < sep {
		j, _ = skipBlanks(s, j)
		if j > 0 && isQuote(s[j-1]) {
			j--
		}
	}
	k := j
	for k > 0 && j-k < 64 && isKeyByte(s[k-1]) {
		k--
	}
	w := s[k:j]
	if len(w) > 1 && (w[len(w)-1] == 's' || w[len(w)-1] == 'S') && !hasSuffixFold(w, "pass") {
		w = w[:len(w)-1] // keys, tokens, secrets, credentials
	}
	for _, sw := range secretWords {
		if hasSuffixFold(w, sw) {
			return true
		}
	}
	return false
}

// skipBlanks steps back over spaces and tabs before s[j], reporting whether there were any.
func skipBlanks(s string, j int) (int, bool) {
	k := j
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	return k, k < j
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// hasSuffixFold reports whether w ends with the lowercase word t, in any case.
func hasSuffixFold(w, t string) bool {
	return len(w) >= len(t) && equalFold(w[len(w)-len(t):], t)
}

// keyShaped reports whether t, a run of token bytes, looks like a random key (see the top of
// this file).
func keyShaped(t string) bool {
	if len(t) < minKeyLen || t[0] == '/' {
		return false
	}
	var counts [128]uint16 // token bytes are ASCII
	letter, digit, hex := false, false, true
	for i := 0; i < len(t); i++ {
		c := t[i]
		counts[c]++
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letter = true
		case c == '-':
		default:
			letter, hex = letter || isLetter(c), false
		}
	}
	if !letter || !digit || hex || wordy(t) {
		return false
	}
	h := 0.0
	n := float64(len(t))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	// Random strings of 20 to 40 characters over 36 symbols (the fewest a key uses but hex)
	// have this entropy or more 99 times in 100; 4.1 bits caps it for longer ones.
	return h >= min(0.79*math.Log2(n), 4.1)
}

// awsSecretShaped reports whether t, 40 token bytes, looks like an AWS secret access key:
// base64 (no '_' or '-'), upper and lower case letters and a digit, key-shaped.
func awsSecretShaped(t string) bool {
	if strings.ContainsAny(t, "_-") {
		return false
	}
	upper, lower := false, false
	for i := 0; i < len(t); i++ {
		upper = upper || t[i] >= 'A' && t[i] <= 'Z'
		lower = lower || t[i] >= 'a' && t[i] <= 'z'
	}
	return upper && lower && keyShaped(t)
}

// wordy reports whether half of t or more is words: capitalised ones (Test, Redact) and, when
// t has separators (a path, a slug, snake case), lowercase runs of four letters and more. A
// random key has few of either.
func wordy(t string) bool {
	sep := strings.ContainsAny(t, "/_-")
	w := 0
	for i := 0; i < len(t); {
		j := i
		if t[j] >= 'A' && t[j] <= 'Z' {
			j++
		}
		k := j
		for k < len(t) && t[k] >= 'a' && t[k] <= 'z' {
			k++
		}
		if j > i && k-j >= 3 || sep && k-j >= 4 {
			w += k - i
			i = k
			continue
		}
		i++
	}
	return 2*w >= len(t)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
