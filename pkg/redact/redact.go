// Package redact removes secrets from text before cairn copies it from a prompt or a transcript
// into a file: API keys (OpenAI and Anthropic sk-…, GitHub, GitLab, Slack, AWS), JSON web tokens,
// Bearer tokens, private-key PEM blocks, and key=value pairs whose key names a password, secret,
// token or API key. Each secret becomes [REDACTED]; the key of a pair and the word Bearer are kept
// so the text still reads.
//
// It runs on the prompt path, so it is cheap when there is nothing to find: every rule has
// literal needles that are looked for first, and a rule's regular expression runs only when one
// of them is present. The expressions are RE2 (linear in the input), compiled once, on first
// use: compiling them all at process start would cost a hook more than its whole work.
package redact

import (
	"regexp"
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
}

// lazy compiles expr the first time it is needed.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Token bodies are required to be long enough that ordinary words ("sk-learn", "ghp_x") never
// match: real keys are 20 characters and more.
var rules = []rule{
	// A private key, BEGIN to END; a block cut short (no END line) is redacted to the end.
	{[]string{"private key-----"}, lazy(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`), Mask},
	// Anthropic (sk-ant-…) and OpenAI (sk-…, sk-proj-…) keys.
	{[]string{"sk-"}, lazy(`\bsk-[A-Za-z0-9_-]{20,}`), Mask},
	// GitHub tokens: personal (ghp_), OAuth (gho_), app (ghs_, ghu_), refresh (ghr_), fine-grained.
	{[]string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}, lazy(`\bgh[opsur]_[A-Za-z0-9]{20,}`), Mask},
	{[]string{"github_pat_"}, lazy(`\bgithub_pat_[A-Za-z0-9_]{20,}`), Mask},
	// GitLab personal access tokens.
	{[]string{"glpat-"}, lazy(`\bglpat-[A-Za-z0-9_-]{20,}`), Mask},
	// Slack bot, app, user and refresh tokens.
	{[]string{"xoxa-", "xoxb-", "xoxp-", "xoxr-"}, lazy(`\bxox[abpr]-[A-Za-z0-9-]{10,}`), Mask},
	// AWS access key ids (long-term AKIA…, temporary ASIA…).
	{[]string{"akia", "asia"}, lazy(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`), Mask},
	// JSON web tokens: three base64url parts, the first two JSON objects ("eyJ").
	{[]string{"eyj"}, lazy(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Mask},
	// Authorization: Bearer <token>.
	{[]string{"bearer"}, lazy(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{16,}`), "${1}" + Mask},
	// key=value and key: value pairs whose key names a secret (aws_secret_access_key, DB_PASSWORD,
	// "api_key": "…", token := …). The value is a quoted string or a run of non-blank characters.
	{[]string{"passw", "secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey"}, pairRe, ""},
}

// pairRe matches a pair: group 1 the key (with an optional closing quote), group 2 the
// separator, group 3 the value. The key is a secret word with any prefix (DB_PASSWORD,
// client_secret) and only an underscore suffix (secret_key), so "tokens=3" and
// "tokenizer=bert" are not pairs.
var pairRe = lazy(`(?i)\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)(?:_[A-Za-z0-9_]*)?["']?)(\s*:?=\s*|\s*:\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;]+)`)

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
		if r.repl == "" {
			s = redactPairs(s)
		} else {
			s = r.re().ReplaceAllString(s, r.repl)
		}
		lower = asciiLower(s)
	}
	return s
}

// redactPairs masks the values of secret-named pairs, keeping the key and the separator. A value
// after a bare ':' (the way prose is written: "the token: it expired") is left alone when it is
// an ordinary lowercase word; with '=' every value is masked. Values already masked stay as they are.
func redactPairs(s string) string {
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
