// Package redact removes secrets from text before cairn writes it to a file: provider keys and
// tokens (OpenAI and Anthropic sk-…, Stripe, Google, npm, Hugging Face, GitHub, GitLab, Slack,
// AWS, SendGrid, Twilio, Grafana, DigitalOcean, Azure, age), JSON web tokens, Bearer tokens,
// passwords in URLs, on curl and mysql command lines and in netrc lines, private-key blocks,
// key=value pairs whose key names a password, secret, token or API key, and, as a fallback, a
// key-shaped token (long, random-looking) next to such a word. Each secret becomes [REDACTED];
// the key of a pair, a URL's user and host, a command's user and the word Bearer are kept so
// the text still reads. The README lists the patterns. Every writer of text that came from a
// person, a prompt, a transcript or a repository passes it through Redact (plain.Field and
// plain.Body do).
//
// It runs on the prompt path, so it is cheap when there is nothing to find: every rule has
// literal needles, all of them looked for in one pass over the text (needles.go), and a rule's
// regular expression runs only when one of its needles is present. The expressions are RE2
// (linear in the input), compiled once, on first use: compiling them all at process start
// would cost a hook more than its whole work. The fallback (keyshape.go) is one more pass that
// allocates nothing until it masks.
package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// mask replaces every secret.
const mask = "[REDACTED]"

// rule is one kind of secret: at least one of its needles must occur in the input before re
// runs (a needle with an uppercase letter must occur as written, an all-lowercase one in any
// case); repl is the regexp replacement template. A rule with apply set masks by that
// function instead (pairs and command lines, which keep more than a template can say).
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
	// A private key, BEGIN to END (PEM and PGP armour); a block cut short (no END line) is
	// redacted to the end.
	replace([]string{"private key"}, `-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`, mask),
	// age secret keys and plugin identities (Bech32, upper case).
	replace([]string{"AGE-SECRET-KEY-1", "AGE-PLUGIN-"}, `\bAGE-(?:SECRET-KEY|PLUGIN-[A-Z0-9]+)-1[0-9A-Z]{20,}`, mask),
	// Anthropic (sk-ant-…) and OpenAI (sk-…, sk-proj-…) keys, short ones too: 20 characters and
	// more, or 12 and more with a digit among them, which package names (sk-learn-…) lack.
	{needles: []string{"sk-"}, re: lazy(`\bsk-[A-Za-z0-9_-]{12,}`), repl: mask, secret: keyLike},
	// Stripe secret and restricted keys, and webhook signing secrets.
	replace([]string{"k_live_", "k_test_"}, `\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`, mask),
	replace([]string{"whsec_"}, `\bwhsec_[A-Za-z0-9+/=]{16,}`, mask),
	// Google API keys.
	replace([]string{"AIza"}, `\bAIza[0-9A-Za-z_-]{35}`, mask),
	// npm (36 characters, or more) and Hugging Face access tokens.
	replace([]string{"npm_"}, `\bnpm_[A-Za-z0-9]{36,}\b`, mask),
	replace([]string{"hf_"}, `\bhf_[A-Za-z]{30,}\b`, mask),
	// A password in a URL: scheme://user:password@host keeps the user (which may be empty,
	// as in redis://:password@host) and the host. A password with an @ in it runs to the last @.
	replace([]string{"://"}, `(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@'"]*:)([^\s/'"]+)(@)`, "${1}"+mask+"${3}"),
	// Slack incoming-webhook and workflow URLs carry their secret in the path.
	replace([]string{"hooks.slack.com/"}, `(?i)\b(hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_-]+`, "${1}"+mask),
	// GitHub tokens: personal (ghp_), OAuth (gho_), app (ghs_, ghu_), refresh (ghr_), fine-grained.
	replace([]string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}, `\bgh[opsur]_[A-Za-z0-9]{20,}`, mask),
	replace([]string{"github_pat_"}, `\bgithub_pat_[A-Za-z0-9_]{20,}`, mask),
	// GitLab personal access tokens.
	replace([]string{"glpat-"}, `\bglpat-[A-Za-z0-9_-]{20,}`, mask),
	// Slack tokens: bot, user, app-level, workspace, refresh, session, client and rotating
	// ones (xoxb-, xoxp-, xapp-, xoxa-, xoxr-, xoxs-, xoxc-, xoxe-, xoxe.xoxp-, …).
	replace([]string{"xox", "xapp-"}, `\b(?:xox[a-z](?:\.xox[a-z])?|xapp)-[A-Za-z0-9-]{10,}`, mask),
	// AWS access key ids (long-term AKIA…, temporary ASIA…); a bare secret access key is a
	// key-shaped token of 40 (keyshape.go).
	replace([]string{"AKIA", "ASIA"}, `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, mask),
	// SendGrid API keys: SG.<22>.<43>.
	replace([]string{"SG."}, `\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`, mask),
	// Twilio API keys (SK and 32 hex), and an auth token (32 hex) right after an account SID
	// (AC and 32 hex), which is kept.
	replace([]string{"SK"}, `\bSK[0-9a-fA-F]{32}\b`, mask),
	replace([]string{"AC"}, `\b(AC[0-9a-fA-F]{32}[\s:,;/|=]+)[0-9a-fA-F]{32}\b`, "${1}"+mask),
	// Grafana service-account and cloud tokens.
	replace([]string{"glsa_", "glc_"}, `\b(?:glsa_[A-Za-z0-9_]{32,}|glc_[A-Za-z0-9+/=_-]{32,})`, mask),
	// DigitalOcean personal, OAuth and refresh tokens.
	replace([]string{"_v1_"}, `\bdo[opr]_v1_[A-Za-z0-9]{32,}`, mask),
	// Azure storage and service-bus connection strings (AccountKey=…;), and SAS signatures.
	replace([]string{"accountkey", "sharedaccesskey"}, `(?i)\b((?:Account|SharedAccess)Key\s*=\s*)[^;\s"']+`, "${1}"+mask),
	replace([]string{"sig="}, `([?&]sig=)[^&\s"'#]+`, "${1}"+mask),
	// JSON web tokens: three base64url parts, the first two JSON objects ("eyJ").
	replace([]string{"eyJ"}, `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, mask),
	// Authorization: Bearer <token>, and Basic <base64 of user:password>.
	replace([]string{"bearer"}, `(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{16,}`, "${1}"+mask),
	replace([]string{"basic"}, `(?i)\b(authorization["']?\s*[:=]\s*["']?basic\s+)[A-Za-z0-9+/]{8,}={0,2}`, "${1}"+mask),
	// Passwords on command lines: curl -u user:password (and --user, -U, --proxy-user) keeps
	// the user; mysql -ppassword (no blank: "-p db" asks and names a database). --password=… is
	// a pair.
	{needles: []string{"curl"}, apply: curlUsers},
	{needles: []string{"mysql", "mariadb"}, apply: mysqlPasswords},
	// netrc: "machine h login u password X", on one line or several ("default" and then a
	// login for the entry that matches any host). Prose ("the default password is") is not an
	// entry.
	replace([]string{"password"}, `(?i)\b((?:machine\s+\S+|default(?:\s+(?:login|account|port)\s+\S+)+)(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+)[^\s\[]\S*`, "${1}"+mask),
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
	return maskKeyShaped(s)
}

// curlLineRe is a curl command to the end of its line; curlUserRe one user option in it, with
// its argument (group 2: quoted, or a run of non-blanks).
var (
	curlLineRe = lazy(`(?i)\bcurl\b[^\n]*`)
	curlUserRe = lazy(`(\s(?:-[A-Za-z]*[uU]|--(?:proxy-)?user)(?:[ \t]+|=)?)('[^'\n]*'|"[^"\n]*"|[^\s'"]+)`)
)

// curlUsers masks the password of every user:password a curl command line passes.
func curlUsers(s string) string {
	return curlLineRe().ReplaceAllStringFunc(s, func(line string) string {
		re := curlUserRe()
		return re.ReplaceAllStringFunc(line, func(m string) string {
			sub := re.FindStringSubmatch(m)
			flag, arg := sub[1], sub[2]
			quote, body := unquote(arg)
			user, pw, ok := strings.Cut(body, ":")
			if !ok || !isSecretValue(pw) {
				return m
			}
			return flag + quote + user + ":" + mask + quote
		})
	})
}

// mysqlLineRe is a mysql client command (mysql, mysqldump, mariadb, …) to the end of its line;
// mysqlPassRe a -p option with its password attached.
var (
	mysqlLineRe = lazy(`(?i)\b(?:mysql|mariadb)[a-z-]*\b[^\n]*`)
	mysqlPassRe = lazy(`(\s-p)('[^'\n]*'|"[^"\n]*"|[^\s'"]+)`)
)

// mysqlPasswords masks the password of every -p option on a mysql command line.
func mysqlPasswords(s string) string {
	return mysqlLineRe().ReplaceAllStringFunc(s, func(line string) string {
		re := mysqlPassRe()
		return re.ReplaceAllStringFunc(line, func(m string) string {
			sub := re.FindStringSubmatch(m)
			quote, body := unquote(sub[2])
			if !isSecretValue(body) {
				return m
			}
			return sub[1] + quote + mask + quote
		})
	})
}

// unquote splits a shell word into its quote ("" when bare) and its body.
func unquote(arg string) (quote, body string) {
	if len(arg) >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[len(arg)-1] == arg[0] {
		return arg[:1], arg[1 : len(arg)-1]
	}
	return "", arg
}

// isSecretValue reports a value worth masking: not empty, not already masked, not a variable
// reference ($DB_PASSWORD).
func isSecretValue(v string) bool {
	return v != "" && v != mask && !strings.HasPrefix(v, "$")
}

// redactPairs masks the values of secret-named pairs, keeping the key and the separator. A value
// after a bare ':' (the way prose is written: "the token: it expired") is left alone when it is
// an ordinary lowercase word; with '=' every value is masked. Values already masked stay as they are.
//
// The expression runs only over the lines that hold a needle followed by a ':' or '=' (pairSep; when
// those lines hold a K or an ſ, any needle): a pair's key holds a needle and no newline, so a pair
// starts on the needle's line, and it ends at the latest at the end of the line its value starts
// on. Prose that names a token or a password without a separator after it costs the needle pass
// alone, and a compaction summary of many kilobytes that says
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
		v, sep := pairSep(s, h.i+h.n)
		if !sep && !foldsToASCII(s, h.i, v) {
			// No ':' or '=' after this key: no pair holds this needle (most prose). The
			// expression runs all the same when what it would run over — this line to the one
			// the value would start on, which may be a later one — holds the Kelvin sign or ſ:
			// its case folding reads them as k and s, which the needles do not, and a key so
			// spelled next to this one is masked as it was. Other text than ASCII (日本語,
			// naïve) folds to no ASCII letter, so there the expression finds no pair that a
			// needle followed by a separator does not show.
			continue
		}
		if k := strings.LastIndexByte(s[scanned:h.i], '\n'); k >= 0 {
			line = scanned + k + 1
		}
		scanned = h.i
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
	if wb < 0 {
		return s // no needle is followed by a separator
	}
	b.WriteString(s[done:wa])
	b.WriteString(maskPairs(s[wa:wb]))
	b.WriteString(s[wb:])
	return b.String()
}

// maskPairs is redactPairs' expression over one stretch of lines.
//
// Each match is masked from its own groups, never by matching its text again on its own: RE2's \b
// knows ASCII words only, so a key that starts with a Kelvin sign or a long s after a word
// character ("_\u212a_pwd") matches in s but not in its own text.
func maskPairs(s string) string {
	ms := pairRe().FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	done := 0
	for _, m := range ms {
		sep, val := s[m[4]:m[5]], s[m[6]:m[7]]
		bare := strings.Trim(val, `"'`)
		if bare == "" || bare == mask || strings.HasPrefix(bare, "$") {
			continue // empty, already masked, or a variable reference ($DB_PASSWORD), not a secret
		}
		if !strings.Contains(sep, "=") && isProseWord(val) {
			continue
		}
		quote := ""
		if val[0] == '"' || val[0] == '\'' {
			quote = val[:1]
		}
		if done == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:m[6]])
		b.WriteString(quote + mask + quote)
		done = m[7]
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// pairSep is where the value of a pair whose key holds a needle ending at i starts at the
// latest: past the rest of the key, a closing quote and the separator (blanks, newlines
// included, around ':' or '='). The value never spans a line, so the pair ends at the latest
// at the end of that line. sep is false when no ':' or '=' comes there: pairRe's separator
// holds one, so no pair's key holds that needle.
func pairSep(s string, i int) (v int, sep bool) {
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
		i, sep = i+1, true
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i, sep
}

// foldsToASCII reports whether the lines from that of s[i] to that of s[v] (what the expression
// runs over for a needle at i whose pair's value would start at v) hold a rune that RE2's (?i)
// reads as an ASCII letter: the Kelvin sign (U+212A, k) and the long s (U+017F, s) are the only
// two in Unicode's simple case folding (TestFoldsToASCII checks it).
func foldsToASCII(s string, i, v int) bool {
	stretch := s[strings.LastIndexByte(s[:i], '\n')+1 : lineEnd(s, v)]
	return strings.Contains(stretch, "\u212a") || strings.Contains(stretch, "\u017f")
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
