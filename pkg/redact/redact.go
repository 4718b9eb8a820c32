// Package redact removes secrets from text before cairn writes it to a file: API keys (OpenAI
// and Anthropic sk-…, Stripe, Google, npm, Hugging Face, GitHub, GitLab, Slack, AWS), JSON web
// tokens, Bearer tokens, passwords in URLs, private-key PEM blocks, and key=value pairs whose key
// names a password, secret, token or API key. Each secret becomes [REDACTED]; the key of a pair,
// a URL's user and host and the word Bearer are kept so the text still reads. The README lists
// the patterns. Every writer of text that came from a person, a prompt, a transcript or a
// repository passes it through Redact (plain.Field and plain.Body do).
//
// It runs on the prompt path, so it is cheap when there is nothing to find: every rule has
// literal needles that are looked for first, and a rule's regular expression runs only when one
// of them is present. The expressions are RE2 (linear in the input), compiled once, on first
// use: compiling them all at process start would cost a hook more than its whole work.
package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "[REDACTED]"

// rule is one kind of secret: needles are lowercase literals of which at least one must occur
// in the lowercased input before re runs; repl is the regexp replacement template, or "" for
// the key=value rule, which keeps keys.
type rule struct {
	needles []string
	re      func() *regexp.Regexp
	repl    string
	secret  func(match string) bool // when set, a match is masked only if it reports true
}

// lazy compiles expr the first time it is needed.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Token bodies are required to be long enough that ordinary words ("sk-learn", "ghp_x") never
// match: real keys are 20 characters and more.
var rules = []rule{
	// A private key, BEGIN to END; a block cut short (no END line) is redacted to the end.
	{[]string{"private key-----"}, lazy(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`), Mask, nil},
	// Anthropic (sk-ant-…) and OpenAI (sk-…, sk-proj-…) keys, short ones too: 20 characters and
	// more, or 12 and more with a digit among them, which package names (sk-learn-…) lack.
	{[]string{"sk-"}, lazy(`\bsk-[A-Za-z0-9_-]{12,}`), Mask, keyLike},
	// Stripe secret and restricted keys.
	{[]string{"k_live_", "k_test_"}, lazy(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`), Mask, nil},
	// Google API keys.
	{[]string{"aiza"}, lazy(`\bAIza[0-9A-Za-z_-]{35}`), Mask, nil},
	// npm and Hugging Face access tokens.
	{[]string{"npm_"}, lazy(`\bnpm_[A-Za-z0-9]{36}\b`), Mask, nil},
	{[]string{"hf_"}, lazy(`\bhf_[A-Za-z]{30,}\b`), Mask, nil},
	// A password in a URL: scheme://user:password@host keeps the user and the host.
	{[]string{"://"}, lazy(`(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@'"]+:)([^\s/@'"]+)(@)`), "${1}" + Mask + "${3}", nil},
	// GitHub tokens: personal (ghp_), OAuth (gho_), app (ghs_, ghu_), refresh (ghr_), fine-grained.
	{[]string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}, lazy(`\bgh[opsur]_[A-Za-z0-9]{20,}`), Mask, nil},
	{[]string{"github_pat_"}, lazy(`\bgithub_pat_[A-Za-z0-9_]{20,}`), Mask, nil},
	// GitLab personal access tokens.
	{[]string{"glpat-"}, lazy(`\bglpat-[A-Za-z0-9_-]{20,}`), Mask, nil},
	// Slack bot, app, user and refresh tokens.
	{[]string{"xoxa-", "xoxb-", "xoxp-", "xoxr-"}, lazy(`\bxox[abpr]-[A-Za-z0-9-]{10,}`), Mask, nil},
	// AWS access key ids (long-term AKIA…, temporary ASIA…).
	{[]string{"akia", "asia"}, lazy(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`), Mask, nil},
	// JSON web tokens: three base64url parts, the first two JSON objects ("eyJ").
	{[]string{"eyj"}, lazy(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Mask, nil},
	// Authorization: Bearer <token>.
	{[]string{"bearer"}, lazy(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{16,}`), "${1}" + Mask, nil},
	// key=value and key: value pairs whose key names a secret (aws_secret_access_key, DB_PASSWORD,
	// MYSQL_PWD, "api_key": "…", token := …). The value is a quoted string or a run of non-blank
	// characters.
	{[]string{"passw", "_pwd", "secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey"}, pairRe, "", nil},
}

// pairRe matches a pair: group 1 the key (with an optional closing quote), group 2 the
// separator, group 3 the value. The key is a secret word with any prefix (DB_PASSWORD,
// client_secret) and only an underscore suffix (secret_key), so "tokens=3" and
// "tokenizer=bert" are not pairs.
var pairRe = lazy(`(?i)\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)(?:_[A-Za-z0-9_]*)?["']?|[A-Za-z0-9]+_pwd["']?)(\s*:?=\s*|\s*:\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)`)

// Redact returns s with every secret it recognises replaced by [REDACTED].
func Redact(s string) string {
	if s == "" {
		return s
	}
	lower := asciiLower(s)
	for _, r := range rules {
		if !containsAny(lower, r.needles) {
			continue
		}
		switch {
		case r.repl == "":
			s = redactPairs(s, lower, r.needles)
		case r.secret != nil:
			re := r.re()
			s = re.ReplaceAllStringFunc(s, func(m string) string {
				if !r.secret(m) {
					return m
				}
				return re.ReplaceAllString(m, r.repl)
			})
		default:
			s = r.re().ReplaceAllString(s, r.repl)
		}
		lower = asciiLower(s)
	}
	return s
}

// redactPairs masks the values of secret-named pairs, keeping the key and the separator. A value
// after a bare ':' (the way prose is written: "the token: it expired") is left alone when it is
// an ordinary lowercase word; with '=' every value is masked. Values already masked stay as they are.
//
// The expression runs only over the lines that hold a needle (lower is s lowercased, with the
// same offsets): a pair's key holds a needle and no newline, so a pair starts on the needle's
// line, and it ends where pairEnd says. A compaction summary of many kilobytes that says "token"
// once costs a scan for the needles and the expression over one line, not over all of it.
func redactPairs(s, lower string, needles []string) string {
	type span struct{ a, b int }
	var spans []span
	for _, n := range needles {
		for off := 0; ; {
			i := strings.Index(lower[off:], n)
			if i < 0 {
				break
			}
			i += off
			spans = append(spans, span{strings.LastIndexByte(s[:i], '\n') + 1, pairEnd(s, i+len(n))})
			off = i + len(n)
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return x.a - y.a })
	var b strings.Builder
	done := 0 // s[:done] is written
	for i := 0; i < len(spans); {
		w := spans[i]
		for i++; i < len(spans) && spans[i].a <= w.b; i++ {
			w.b = max(w.b, spans[i].b)
		}
		b.WriteString(s[done:w.a])
		b.WriteString(maskPairs(s[w.a:w.b]))
		done = w.b
	}
	if done == 0 && len(spans) == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// maskPairs is redactPairs' expression over one stretch of lines.
func maskPairs(s string) string {
	re := pairRe()
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		key, sep, val := sub[1], sub[2], sub[3]
		bare := strings.Trim(val, `"'`)
		if bare == "" || bare == Mask || strings.HasPrefix(bare, "$") {
			return m // empty, already masked, or a variable reference ($DB_PASSWORD), not a secret
		}
		if !strings.Contains(sep, "=") && isProseWord(val) {
			return m
		}
		quote := ""
		if val[0] == '"' || val[0] == '\'' {
			quote = val[:1]
		}
		return key + sep + quote + Mask + quote
	})
}

// pairEnd is where a pair whose key holds a needle ending at i can end at the latest: past the
// rest of the key, a closing quote, the separator (blanks, newlines included, around ':' or
// '=') and the value, which never spans a line.
func pairEnd(s string, i int) int {
	for i < len(s) && isKeyByte(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	for i < len(s) && (s[i] == ':' || s[i] == '=') {
		i++
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// isKeyByte is pairRe's [A-Za-z0-9_.-].
func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// isSpace is RE2's \s: [\t\n\f\r ].
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// isProseWord reports whether v is a lowercase word of letters, such as follows a colon in prose.
func isProseWord(v string) bool {
	if len(v) > 24 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// keyLike reports an sk- token that is a key rather than a name: long, or with a digit (keys are
// random; names of things mostly are not).
func keyLike(s string) bool { return len(s) >= len("sk-")+20 || strings.ContainsAny(s, "0123456789") }

func containsAny(s string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// asciiLower lowercases ASCII letters only, keeping every byte offset of s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
