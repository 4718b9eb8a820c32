package parking

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/redact"
)

// Automatic parking (seed 003's behavioural rule, made deterministic; docs/PARKING.md is the
// reference for users and must list the same phrases and words as below — a test checks it):
//
//   - Rule (a), deferral: the prompt contains one of DeferralPhrases → park
//     "Deferred: <idea>. Context: <why>".
//   - Rule (b), question left open: Claude's last message ends with a question and the prompt
//     is not an answer to it (IsAnswer) → park "User raised: <prompt>. Pending: <question>".
//
// Rule (a) wins when both apply. No semantic scoring: the same texts always give the same result.

// DeferralPhrases are the phrases that defer something, matched case-insensitively, on word
// boundaries, with ’ read as '.
var DeferralPhrases = []string{
	"let's come back to",
	"lets come back to",
	"let us come back to",
	"come back to this later",
	"come back to that later",
	"come back to it later",
	"circle back to",
	"park this",
	"park that",
	"park it",
	"park the idea",
	"for later",
	"put a pin in",
	"revisit later",
	"revisit this later",
	"revisit that later",
	"revisit it later",
	"leave it for now",
	"leave that for now",
	"leave this for now",
	"skip it for now",
	"skip that for now",
	"skip this for now",
	"defer this",
	"defer that",
	"parking lot",
	"add it to the backlog",
}

// ReplyWords are the first words that make a prompt an answer to Claude's question.
var ReplyWords = []string{
	"yes", "yeah", "yep", "yup", "ya", "yea", "no", "nope", "nah", "ok", "okay", "k", "sure",
	"y", "n", "correct", "right", "exactly", "agreed", "agree", "fine", "absolutely", "definitely",
	"certainly", "go", "proceed", "continue", "do", "don't", "dont", "both", "neither", "either",
	"option", "choice", "sounds", "lgtm", "perfect", "great", "good", "thanks", "thank", "ack",
	"approved", "confirm", "confirmed", "affirmative", "negative", "maybe", "probably",
	"first", "second", "third", "last", "former", "latter", "all", "none", "just", "not",
}

// Bounds on what the rules read and copy, so that a pasted prompt of megabytes costs no more
// than a short one (SPEC §8: 16 MiB peak memory for any input).
const (
	maxIdea     = 120      // the idea or the prompt's first sentence
	maxQuestion = 200      // the question Claude asked
	maxScan     = 4096     // text split into sentences or words
	maxPhrases  = 16 << 10 // the start of the prompt searched for deferral phrases
)

var replyWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range ReplyWords {
		m[w] = true
	}
	return m
}()

var quotes = strings.NewReplacer("’", "'", "‘", "'")

// normalize lowercases ASCII, reads ’ and ‘ as ', and collapses white space.
func normalize(s string) string {
	return collapse(asciiLower(quotes.Replace(s)))
}

// FindDeferral returns the deferral phrase that occurs first in the first 16 KiB of prompt, and
// the byte offset of the match in the normalized text.
func FindDeferral(prompt string) (phrase string, at int, ok bool) {
	p := normalize(head(prompt, maxPhrases))
	at = -1
	for _, ph := range DeferralPhrases {
		for from := 0; from < len(p); {
			i := strings.Index(p[from:], ph)
			if i < 0 {
				break
			}
			i += from
			if boundary(p, i-1, true) && boundary(p, i+len(ph), false) {
				if at < 0 || i < at || i == at && len(ph) > len(phrase) {
					phrase, at = ph, i
				}
				break
			}
			from = i + 1
		}
	}
	return phrase, at, at >= 0
}

// boundary reports whether the rune before (or at) i in s is not a letter or digit.
func boundary(s string, i int, before bool) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i+1])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
}

// Question returns the question that Claude's message ends with: the last sentence of its last
// non-empty line, when that line ends with '?' (closing markup such as ** or a quote ignored).
func Question(assistant string) (string, bool) {
	s := strings.TrimRight(assistant, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimRight(s, " \t*_`\"')]”’")
	if !strings.HasSuffix(s, "?") {
		return "", false
	}
	start := 0
	for i := 0; i < len(s)-1; i++ {
		if strings.ContainsRune(".?!", rune(s[i])) && (s[i+1] == ' ' || s[i+1] == '\t') {
			start = i + 1
		}
	}
	q := strings.TrimLeft(s[start:], " \t>#*_-+`\"“")
	q = oneLine(q)
	if q == "" || q == "?" {
		return "", false
	}
	return q, true
}

// IsAnswer reports whether prompt answers (or follows up on) question, by fixed rules: it has at
// most three words; or its first word is one of ReplyWords; or it starts with an option or a
// number ("a)", "(b)", "2.", "#3", "c", "2"); or it quotes the question — shares a run of three
// words with it, or its first word, four letters or more, is a word of the question. question
// may be "" to apply only the rules that do not need it.
func IsAnswer(prompt, question string) bool {
	words := wordsOf(prompt)
	if len(words) <= 3 {
		return true
	}
	p := normalize(head(prompt, maxScan))
	first := strings.Trim(strings.Fields(p)[0], ",.!:;")
	if replyWords[first] {
		return true
	}
	if isOption(p) {
		return true
	}
	if question == "" {
		return false
	}
	qw := wordsOf(question)
	inQuestion := map[string]bool{}
	for _, w := range qw {
		inQuestion[w] = true
	}
	if utf8.RuneCountInString(words[0]) >= 4 && inQuestion[words[0]] {
		return true
	}
	tri := map[string]bool{}
	for i := 0; i+2 < len(qw); i++ {
		tri[qw[i]+" "+qw[i+1]+" "+qw[i+2]] = true
	}
	for i := 0; i+2 < len(words); i++ {
		if tri[words[i]+" "+words[i+1]+" "+words[i+2]] {
			return true
		}
	}
	return false
}

// isOption reports a prompt that starts by choosing an option: "a)", "(b)", "c.", "d:", a lone
// letter b–h, or a number.
func isOption(p string) bool {
	f := strings.Fields(p)[0]
	f = strings.TrimPrefix(strings.TrimPrefix(f, "("), "#")
	if f == "" {
		return false
	}
	body := strings.TrimRight(f, ").:,")
	if body == "" {
		return false
	}
	allDigits := true
	for _, r := range body {
		if r < '0' || r > '9' {
			allDigits = false
		}
	}
	if allDigits {
		return true
	}
	if len(body) == 1 && body[0] >= 'a' && body[0] <= 'h' {
		return body != "a" || len(f) > 1 // "a" alone is an article; "a)" is an option
	}
	return false
}

// head returns at most the first n bytes of s.
func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// wordsOf returns the lowercase words of s: runs of letters, digits and apostrophes.
func wordsOf(s string) []string {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	return strings.FieldsFunc(asciiLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// Decide applies the automatic parking rules to a prompt and the text of Claude's last message
// ("" when unknown) and returns the bullet to park, without a slug. ok is false when nothing is
// to be parked. Prompts that are slash commands ("/…"), shell-mode input ("!…") or memory notes
// ("#…") are never parked. Copied text is redacted before it is shortened.
func Decide(prompt, assistant string) (b Bullet, ok bool) {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" || strings.ContainsRune("/!#", rune(prompt[0])) {
		return Bullet{}, false
	}
	if phrase, _, found := FindDeferral(prompt); found {
		return deferred(prompt, assistant, phrase), true
	}
	q, asked := Question(assistant)
	if !asked || IsAnswer(prompt, q) {
		return Bullet{}, false
	}
	return Bullet{
		Summary: joinSentences("User raised: "+shorten(firstSentence(prompt), maxIdea), "Pending: "+shorten(q, maxQuestion)),
		Why:     "Claude asked this and the user moved on to a new request without answering",
		How:     "ask the question again once the new request is done",
	}, true
}

// deferred builds rule (a)'s item. The idea is the prompt's sentence with the phrase; when that
// sentence is little more than the phrase ("park this", "ok, let's come back to that"), the
// idea is what Claude said last, which is what the user deferred.
func deferred(prompt, assistant, phrase string) Bullet {
	sentence := sentenceWith(prompt, phrase)
	idea, context := sentence, "deferred by the user"
	if len(wordsOf(sentence))-len(wordsOf(phrase)) <= 3 && strings.TrimSpace(assistant) != "" {
		idea = lastSentence(assistant)
		context = "the user said \"" + shorten(sentence, maxIdea) + "\""
	} else if strings.TrimSpace(assistant) != "" {
		context = "raised while Claude was on: " + shorten(firstSentence(assistant), maxIdea)
	}
	return Bullet{
		Summary: joinSentences("Deferred: "+shorten(idea, maxIdea), "Context: "+context),
		Why:     "the user deferred it (\"" + phrase + "\")",
		How:     "bring it up again when the current task is done",
	}
}

// joinSentences joins two sentences, with ". " unless the first ends with '?', '!' or a cut
// ("…"); the result has no final period (Format adds it).
func joinSentences(a, b string) string {
	b = strings.TrimRight(b, ". ")
	if strings.HasSuffix(a, "?") || strings.HasSuffix(a, "!") || strings.HasSuffix(a, "…") {
		return a + " " + b
	}
	return strings.TrimRight(a, ". ") + ". " + b
}

// sentences splits s into sentences: at line ends, and after '.', '?' or '!' followed by a space.
// Only the first maxScan bytes are looked at.
func sentences(s string) []string {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			if strings.ContainsRune(".?!", rune(line[i])) && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
				out = appendSentence(out, line[start:i+1])
				start = i + 1
			}
		}
		out = appendSentence(out, line[start:])
	}
	return out
}

func appendSentence(out []string, s string) []string {
	s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), ">#*-+ \t"))
	if s == "" {
		return out
	}
	return append(out, s)
}

func firstSentence(s string) string {
	if ss := sentences(s); len(ss) > 0 {
		return ss[0]
	}
	return strings.TrimSpace(s)
}

func lastSentence(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxScan {
		s = s[len(s)-maxScan:]
	}
	if ss := sentences(s); len(ss) > 0 {
		return ss[len(ss)-1]
	}
	return s
}

// sentenceWith returns the first sentence of s that contains phrase, or s's first sentence.
func sentenceWith(s, phrase string) string {
	for _, x := range sentences(s) {
		if strings.Contains(normalize(x), phrase) {
			return x
		}
	}
	return firstSentence(s)
}

// shorten redacts s, puts it on one line, and cuts it to at most n characters at a word
// boundary, marking the cut with "…". Redaction comes first, so that a cut never leaves part of
// a secret that the filter would no longer recognise.
func shorten(s string, n int) string {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	s = oneLine(redact.Redact(s))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " .,;:") + "…"
}

// Kinds of items that cairn session park takes, and their entry forms (seed 003).
const (
	KindQuestion = "question" // User raised: <idea>. Pending: <detail>
	KindDeferred = "deferred" // Deferred: <idea>. Context: <detail>
	KindSide     = "side"     // Side idea: <idea>. Raised while: <detail>
)

// forms are the entry forms of the three kinds, with the kinds' default Why and How.
var forms = map[string]struct{ label, detail, why, how string }{
	KindQuestion: {"User raised: ", "Pending: ", "the user moved on before the question was answered", "ask the question again"},
	KindDeferred: {"Deferred: ", "Context: ", "deferred during the session", "bring it up again when the current task is done"},
	KindSide:     {"Side idea: ", "Raised while: ", "it came up while working on something else", "raise it when the current task is done"},
}

// NewBullet builds the bullet cairn session park writes for kind, with the kind's default Why
// and How when why or how is "". An empty detail leaves its part out. The slug is left empty.
func NewBullet(kind, idea, detail, why, how string) (Bullet, error) {
	f, ok := forms[kind]
	if !ok {
		return Bullet{}, fmt.Errorf("unknown kind %q: use question, deferred or side", kind)
	}
	idea, detail = strings.TrimRight(oneLine(idea), ". "), strings.TrimRight(oneLine(detail), ". ")
	if idea == "" {
		return Bullet{}, errors.New("the idea is empty")
	}
	b := Bullet{Summary: f.label + idea, Why: f.why, How: f.how}
	if detail != "" {
		b.Summary = joinSentences(b.Summary, f.detail+detail)
	}
	if why != "" {
		b.Why = why
	}
	if how != "" {
		b.How = how
	}
	return b, nil
}
