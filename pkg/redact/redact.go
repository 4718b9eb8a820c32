// Package redact removes secrets from text before cairn writes it to a file: API keys (OpenAI
// and Anthropic sk-…, Stripe, Google, npm, Hugging Face, GitHub, GitLab, Slack, AWS), JSON web
// tokens, Bearer tokens, passwords in URLs, private-key PEM blocks, and key=value pairs whose key
// names a password, secret, token or API key. Each secret becomes [REDACTED]; the key of a pair,
// a URL's user and host and the word Bearer are kept so the text still reads. The README lists
// the patterns. Every writer of text that came from a person, a prompt, a transcript or a
// repository passes it through Redact (plain.Field and plain.Body do).
//
// It runs on the prompt path, so it is cheap when there is nothing to find: every rule has
// literal needles, all of them looked for in one pass over the text (needles.go), and a rule's
// regular expression runs only when one of its needles is present. The expressions are RE2
// (linear in the input), compiled once, on first use: compiling them all at process start
// would cost a hook more than its whole work.
package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "[REDACTED]"

// rule is one kind of secret: at least one of its needles must occur in the input before re
// runs (a needle with an uppercase letter must occur as written, an all-lowercase one in any
// case); repl is the regexp replacement template. A rule with apply set masks by that
// function instead (pairs, which keep more than a template can say).
type rule struct {
	needles []string
	re      func() *regexp.Regexp
	repl    string
	secret  func(match string) bool // when set, a match is masked only if it reports true
	apply   func(s string) string
}

// lazy compiles expr the first time it is needed.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// replace is a rule that replaces every match of expr by repl.
func replace(needles []string, expr, repl string) rule {
	return rule{needles: needles, re: lazy(expr), repl: repl}
}

// Token bodies are required to be long enough that ordinary words ("sk-learn", "ghp_x") never
// match: real keys are 20 characters and more.
var rules = []rule{
	// A private key, BEGIN to END; a block cut short (no END line) is redacted to the end.
	replace([]string{"private key-----"}, `-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`, Mask),
	// Anthropic (sk-ant-…) and OpenAI (sk-…, sk-proj-…) keys, short ones too: 20 characters and
	// more, or 12 and more with a digit among them, which package names (sk-learn-…) lack.
	{needles: []string{"sk-"}, re: lazy(`\bsk-[A-Za-z0-9_-]{12,}`), repl: Mask, secret: keyLike},
	// Stripe secret and restricted keys.
	replace([]string{"k_live_", "k_test_"}, `\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`, Mask),
	// Google API keys.
	replace([]string{"AIza"}, `\bAIza[0-9A-Za-z_-]{35}`, Mask),
	// npm and Hugging Face access tokens.
	replace([]string{"npm_"}, `\bnpm_[A-Za-z0-9]{36}\b`, Mask),
	replace([]string{"hf_"}, `\bhf_[A-Za-z]{30,}\b`, Mask),
	// A password in a URL: scheme://user:password@host keeps the user and the host.
	replace([]string{"://"}, `(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@'"]+:)([^\s/@'"]+)(@)`, "${1}"+Mask+"${3}"),
	// GitHub tokens: personal (ghp_), OAuth (gho_), app (ghs_, ghu_), refresh (ghr_), fine-grained.
	replace([]string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}, `\bgh[opsur]_[A-Za-z0-9]{20,}`, Mask),
	replace([]string{"github_pat_"}, `\bgithub_pat_[A-Za-z0-9_]{20,}`, Mask),
	// GitLab personal access tokens.
	replace([]string{"glpat-"}, `\bglpat-[A-Za-z0-9_-]{20,}`, Mask),
	// Slack bot, app, user and refresh tokens.
	replace([]string{"xoxa-", "xoxb-", "xoxp-", "xoxr-"}, `\bxox[abpr]-[A-Za-z0-9-]{10,}`, Mask),
	// AWS access key ids (long-term AKIA…, temporary ASIA…).
	replace([]string{"AKIA", "ASIA"}, `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, Mask),
	// JSON web tokens: three base64url parts, the first two JSON objects ("eyJ").
	replace([]string{"eyJ"}, `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, Mask),
	// Authorization: Bearer <token>.
	replace([]string{"bearer"}, `(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{16,}`, "${1}"+Mask),
	// key=value and key: value pairs whose key names a secret (aws_secret_access_key, DB_PASSWORD,
	// MYSQL_PWD, "api_key": "…", token := …). The value is a quoted string or a run of non-blank
	// characters.
	{needles: pairNeedles, re: pairRe, apply: redactPairs},
}

// pairRule is the pair rule's bit: it is the last rule.
var pairRule uint64

// pairNeedles are the pair rule's needles: every secret-naming key holds one.
var pairNeedles = []string{"passw", "_pwd", "secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey"}

// pairRe matches a pair: group 1 the key (with an optional closing quote), group 2 the
// separator, group 3 the value. The key is a secret word with any prefix (DB_PASSWORD,
// client_secret) and only an underscore suffix (secret_key), so "tokens=3" and
// "tokenizer=bert" are not pairs.
var pairRe = lazy(`(?i)\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)(?:_[A-Za-z0-9_]*)?["']?|[A-Za-z0-9]+_pwd["']?)(\s*:?=\s*|\s*:\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)`)

// needleIndex is the needles of every rule, indexed on first use (needles.go). It and
// pairRule are set in init: the pair rule's function uses both, which a variable's
// initialiser may not.
var needleIndex func() *needles

func init() {
	needleIndex = sync.OnceValue(indexNeedles)
	pairRule = 1 << (len(rules) - 1)
}

// Redact returns s with every secret it recognises replaced by [REDACTED].
func Redact(s string) string {
	if s == "" {
		return s
	}
	found := needleIndex().find(s)
	for i, r := range rules {
		if found&(1<<i) == 0 {
			continue
		}
		switch {
		case r.apply != nil:
			s = r.apply(s)
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
	}
	return s
}

// redactPairs masks the values of secret-named pairs, keeping the key and the separator. A value
// after a bare ':' (the way prose is written: "the token: it expired") is left alone when it is
// an ordinary lowercase word; with '=' every value is masked. Values already masked stay as they are.
//
// The expression runs only over the lines that hold a needle: a pair's key holds a needle and
// no newline, so a pair starts on the needle's line, and it ends at the latest at the end of
// the line its value starts on (pairValue). A compaction summary of many kilobytes that says
// "token" once costs the needle pass and the expression over one line, not over all of it. The
// searches for line starts and ends only move forward, so the cost stays linear however many
// needles a line holds.
func redactPairs(s string) string {
	type hit struct{ i, n int } // a needle's offset and length
	var buf [16]hit
	hits := buf[:0]
	needleIndex().each(s, pairRule, func(i int, n string) { hits = append(hits, hit{i, len(n)}) })
	if len(hits) == 0 {
		return s
	}
	// The pass finds needles by their anchor, so two near each other can come out of order.
	slices.SortFunc(hits, func(x, y hit) int { return x.i - y.i })
	var b strings.Builder
	b.Grow(len(s))
	done := 0             // s[:done] is written
	wa, wb := 0, -1       // the stretch being gathered, from a line start to a line end; none while wb < 0
	line, scanned := 0, 0 // the start of the line of s[scanned]
	for _, h := range hits {
		if k := strings.LastIndexByte(s[scanned:h.i], '\n'); k >= 0 {
			line = scanned + k + 1
		}
		scanned = h.i
		v := pairValue(s, h.i+h.n)
		if wb >= 0 && line <= wb {
			if v > wb {
				wb = lineEnd(s, v)
			}
			continue
		}
		if wb >= 0 {
			b.WriteString(s[done:wa])
			b.WriteString(maskPairs(s[wa:wb]))
			done = wb
		}
		wa, wb = line, lineEnd(s, v)
	}
	b.WriteString(s[done:wa])
	b.WriteString(maskPairs(s[wa:wb]))
	b.WriteString(s[wb:])
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

// pairValue is where the value of a pair whose key holds a needle ending at i starts at the
// latest: past the rest of the key, a closing quote and the separator (blanks, newlines
// included, around ':' or '='). The value never spans a line, so the pair ends at the latest
// at the end of that line.
func pairValue(s string, i int) int {
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
	return i
}

// lineEnd is the offset of the newline that ends the line of s[i], or len(s).
func lineEnd(s string, i int) int {
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
