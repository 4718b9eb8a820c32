// Package autopark decides, by fixed rules, whether a prompt parks an open loop: a deferral
// ("let's come back to that", "park this", …) or a new request that leaves Claude's last
// question unanswered (docs/PARKING.md is the reference for users and lists the same phrases and
// words as this package; a test checks it). No semantic scoring: the same texts always give the
// same result.
//
// The UserPromptSubmit hook calls it once per prompt, in two steps so that it reads the
// transcript only when the rules need Claude's last message: readPrompt looks at the prompt alone,
// then parsedPrompt.decide takes that message.
package autopark

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// The rules (the original /session workflow's behavioural rule, made deterministic:
// docs/PARKING.md, Automatic parking):
//
//   - Rule (a), deferral: the prompt holds a deferral phrase that defers (findDeferral) → park
//     "Deferred: <idea>. Context: <why>".
//   - Rule (b), question left open: Claude's last message ends with a question and the prompt
//     is not an answer to it (isAnswer) → park "User raised: <prompt>. Pending: <question>".
//
// Rule (a) wins when both apply.

// DeferralPhrases defer what they name by their own words. Matched case-insensitively, word by
// word (’ read as '), within one clause. "…" inside a phrase stands for one to five words; a
// phrase ending in "…" may be followed by anything (what is deferred); any other phrase must end
// its clause or be followed by one of FollowWords, so that "maybe later versions", "the parking
// lot UI" and "defer this Close call" defer nothing.
var DeferralPhrases = []string{
	"park this",
	"park that",
	"park it",
	"park … idea",
	"park … thought",
	"let's park …",
	"parking this",
	"parking that",
	"parking it",
	"parking lot",
	"put a pin in …",
	"hold that thought",
	"come back to … later",
	"circle back to … later",
	"get back to … later",
	"get to … later",
	"revisit later",
	"revisit … later",
	"think about … later",
	"let's … later",
	"lets … later",
	"let us … later",
	"let's … tomorrow",
	"a later problem",
	"problem for later",
	"let's not … now",
	"maybe later",
	"maybe later we …",
	"maybe later we'll …",
	"maybe later you …",
	"maybe later i …",
	"maybe later i'll …",
	"but later",
	"remind me later",
	"remind me later about …",
	"remind me later to …",
	"not now",
	"not right now",
	"not yet",
	"this for later",
	"that for later",
	"that's for later",
	"thats for later",
	"idea for later",
	"one for later",
	"something for later",
	"but for later",
	"idea for now",
	"leave it for now",
	"leave that for now",
	"leave this for now",
	"skip it for now",
	"skip that for now",
	"skip this for now",
	"defer this",
	"defer that",
	"defer it",
	"table this",
	"table that",
	"table it",
	"let's table …",
	"on hold for now",
	"this on hold",
	"that on hold",
	"it on hold",
	"idea on hold",
	"hold off on … for now",
	"punt on …",
	"let's shelve …",
	"shelve this",
	"shelve that",
	"shelve it",
	"let's not worry about …",
	"let's not go there …",
	"that in a later …",
	"this in a later …",
	"that next sprint",
	"this next sprint",
	"it next sprint",
	"that after the release",
	"this after the release",
	"it after the release",
	"in a follow-up",
	"as a follow-up",
	"for a follow-up",
	"for a follow-up pr",
	"in a follow-up pr",
	"just not in this change",
	"just not in this pr",
	"someday list",
	"we'll get to it",
	"we'll get to that",
	"we'll get to this",
	"out of scope for now",
	"for another time",
	"for another day",
	"some other time",
	"let's … another time",
	"let's … another day",
	"to the backlog",
	"on the backlog",
	"it in the backlog",
	"this in the backlog",
	"that in the backlog",
}

// SaidAlone defer when they are a whole clause that ends a sentence or the prompt: "Later.",
// "Nah, later.", "Not today. Let's ship what we have."; or when they are a label, a whole clause
// that opens a sentence and ends with a colon or a dash, before what is deferred: "later: look
// at the flaky test", "TODO for later - benchmark the tokenizer". ("Later, wire it into main" is
// a request.)
var SaidAlone = []string{
	"later", "later on", "for later", "todo later", "todo for later", "not today", "another time",
	"next sprint", "after the release", "someday",
}

// WaitPhrases say that something can wait, whatever it is: "the dashboard can wait", "this work
// can wait till Friday". They defer when they end their clause, or when one of UntilWords
// follows them and then one of WhenWords or TimeWords ("until next sprint", "till Friday", "for
// now"), so that "it can wait for the lock" and "the caller can wait until the context is
// cancelled" defer nothing.
var (
	WaitPhrases = []string{"can wait", "could wait"}
	UntilWords  = []string{"until", "till", "for"}
	TimeWords   = []string{"now", "tonight", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
)

// ReturnPhrases name going back to something without saying when: "let's come back to that"
// defers it, "let's come back to the failing test now and fix it" does not. Matched as
// DeferralPhrases ending in "…" are, they defer only what they point back to (the next word is
// one of PointWords) or with a time (one of WhenWords in their clause or later in their
// sentence), and never when their clause asks for action now (NowWords).
var (
	ReturnPhrases = []string{
		"let's come back to …",
		"lets come back to …",
		"let us come back to …",
		"we can come back to …",
		"we'll come back to …",
		"let's circle back to …",
		"lets circle back to …",
		"let us circle back to …",
		"let's circle back on …",
		"we can circle back to …",
		"we'll circle back to …",
		"can we come back to …",
		"let's revisit …",
		"we can revisit …",
		"we'll revisit …",
	}
	PointWords = []string{"this", "that", "it", "these", "those", "them"}
	WhenWords  = []string{"later", "after", "once", "when", "tomorrow", "next", "another", "someday", "sometime", "eventually"}
)

// FollowWords may follow a phrase that does not end in "…" in its clause: "later on", "not now
// but soon", "defer this until the API is stable".
var FollowWords = []string{
	"and", "but", "or", "so", "then", "though", "too", "also", "please", "thanks", "maybe",
	"perhaps", "probably", "anyway", "instead", "again", "once", "when", "if", "after", "before",
	"until", "till", "for", "on", "today", "tonight", "tomorrow", "this", "next", "ok", "okay",
}

// NowWords ask for action now: a ReturnPhrase whose clause holds one defers nothing. None counts
// right after one of NotNowWords ("for now", "not right now" ask for nothing now).
var (
	NowWords    = []string{"now", "right now", "right away", "straight away", "immediately", "asap", "at once"}
	NotNowWords = []string{"for", "not", "until", "till", "by"}
)

// ReplyWords are the first words that make a prompt an answer to Claude's question; they count
// after one of LeadWords too ("the second one", "let's go with the mutex", "please do, and …").
// A few are not English, so that "Oui, utilise SQLite" answers as "Yes, use SQLite" does, and a
// few are emoji, read without their skin tone ("👍🏻 ship it, then …"). A reply word then a new
// request ("Ok. Now add the health check") answers: the reply settles the question, and what
// follows is the next request.
var (
	ReplyWords = []string{
		"yes", "yeah", "yep", "yup", "ya", "yea", "no", "nope", "nah", "ok", "okay", "k", "sure",
		"y", "n", "correct", "right", "exactly", "agreed", "agree", "fine", "absolutely", "definitely",
		"certainly", "go", "proceed", "continue", "do", "don't", "dont", "both", "neither", "either",
		"option", "choice", "sounds", "lgtm", "perfect", "great", "good", "thanks", "thank", "ack",
		"approved", "confirm", "confirmed", "affirmative", "negative", "maybe", "probably",
		"first", "second", "third", "last", "former", "latter", "all", "none", "just", "not",
		"whatever", "whichever", "alright", "cool", "nice", "awesome", "sgtm",
		"👍", "👌", "✅", "✔", "🙏",
		"oui", "non", "si", "sí", "ja", "nein", "claro", "vale", "genau", "d'accord", "sim", "não",
		"はい", "いいえ", "да", "нет",
	}
	LeadWords = []string{"the", "let's", "lets", "please"}
)

// CommonWords do not count when a prompt quotes Claude's question: a new request that starts "I
// also noticed…" does not answer "Should I also add retries?".
var CommonWords = []string{
	"also", "this", "that", "these", "those", "with", "from", "into", "about", "have", "should",
	"would", "could", "will", "want", "what", "which", "when", "where", "your", "there", "their",
	"then", "than", "them", "some", "like", "need", "make",
}

// Bounds on what the rules read and copy, so that a pasted prompt of megabytes costs no more than
// a short one (16 MiB peak memory for any input: docs/DESIGN.md, Budgets).
const (
	maxIdea     = 120      // the idea or the prompt's first sentence
	maxQuestion = 200      // the question Claude asked
	maxScan     = 4096     // text split into sentences or words
	maxPhrases  = 16 << 10 // the start of the prompt searched for deferral phrases
	maxGap      = 5        // words that "…" inside a phrase stands for
	maxOptions  = 10       // list lines above Claude's question read as its options
)

// wordSet is a list of words, sorted, for has.
type wordSet []string

// set is the sorted set of words.
func set(words []string) wordSet {
	out := slices.Clone(words)
	slices.Sort(out)
	return slices.Compact(out)
}

// has reports whether w is in the set.
func (ws wordSet) has(w string) bool {
	_, ok := slices.BinarySearch(ws, w)
	return ok
}

// The tables the rules use — replyWords, leadWords, commonWords and rules — are built from the
// exported lists by set and compile, and written out as Go by `go test -run TestTables -update`
// into tables_gen.go, which the linker lays out as data: built at init, they cost every prompt's
// UserPromptSubmit a fifth of a millisecond and five hundred allocations before it reads its
// stdin. TestTables fails when the lists and the file disagree.

// ruleSet is rule (a)'s lists made ready for the search. Their words are numbered from 1, in
// sorted order: the search looks each word of the prompt up once, as its number (0 for a word
// in no list), and then only compares numbers.
type ruleSet struct {
	vocab                       []string    // word n is vocab[n-1]
	phrases                     [][]*phrase // by the number of their first word, the longest first
	follow, point, when, notNow []bool      // by number
	until, time                 []bool      // UntilWords; WhenWords and TimeWords: by number
	now                         [][]word    // NowWords, the longest first
}

// word is the number of a word of rule (a)'s lists, or 0.
type word int32

// phrase is a deferral or return phrase, split into words.
type phrase struct {
	text       string // as listed
	head, tail []word // the words before and after an inner "…"; tail is nil without one
	open       bool   // ends in "…": anything may follow
	ret        bool   // a ReturnPhrase
	alone      bool   // one of SaidAlone
	wait       bool   // one of WaitPhrases
}

// words is the number of words the phrase itself has.
func (p *phrase) words() int { return len(p.head) + len(p.tail) }

func compile() *ruleSet {
	r := &ruleSet{}
	var listed []string
	for _, l := range [][]string{DeferralPhrases, ReturnPhrases, SaidAlone, WaitPhrases, NowWords, FollowWords, PointWords, WhenWords, NotNowWords, UntilWords, TimeWords} {
		for _, text := range l {
			for _, w := range strings.Fields(text) {
				if w != "…" {
					listed = append(listed, w)
				}
			}
		}
	}
	r.vocab = set(listed)
	number := func(text string) []word {
		var ws []word
		for _, w := range strings.Fields(text) {
			ws = append(ws, r.find(w))
		}
		return ws
	}
	var all []*phrase
	add := func(list []string, ret, alone, wait bool) {
		for _, text := range list {
			p := &phrase{text: text, ret: ret, alone: alone, wait: wait}
			t := strings.TrimSuffix(text, " …")
			p.open = t != text
			h, tail, inner := strings.Cut(t, " … ")
			p.head = number(h)
			if inner {
				p.tail = number(tail)
			}
			all = append(all, p)
		}
	}
	add(DeferralPhrases, false, false, false)
	add(ReturnPhrases, true, false, false)
	add(SaidAlone, false, true, false)
	add(WaitPhrases, false, false, true)
	for _, w := range NowWords {
		r.now = append(r.now, number(w))
	}
	slices.SortStableFunc(r.now, func(a, b []word) int { return len(b) - len(a) })
	mark := func(list []string) []bool {
		b := make([]bool, len(r.vocab)+1)
		for _, w := range list {
			b[r.find(w)] = true
		}
		return b
	}
	r.follow, r.point, r.when, r.notNow = mark(FollowWords), mark(PointWords), mark(WhenWords), mark(NotNowWords)
	r.until, r.time = mark(UntilWords), mark(slices.Concat(WhenWords, TimeWords))
	r.phrases = make([][]*phrase, len(r.vocab)+1)
	for _, p := range all {
		r.phrases[p.head[0]] = append(r.phrases[p.head[0]], p)
	}
	for _, ps := range r.phrases {
		slices.SortStableFunc(ps, func(a, b *phrase) int { return b.words() - a.words() })
	}
	return r
}

// keyMax is the longest word of rule (a)'s lists, in bytes.
const keyMax = 16

// lookup returns the number of the word s[start:end]: lowercase, ’ and ‘ read as '.
func (r *ruleSet) lookup(s string, start, end int) word {
	if end-start > 3*keyMax {
		return 0
	}
	var buf [keyMax]byte
	b := buf[:0]
	for i := start; i < end; i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != '’' && r != '‘' {
				return 0 // the lists are ASCII
			}
			c, i = '\'', i+n-1
		}
		if len(b) == keyMax {
			return 0
		}
		b = append(b, c)
	}
	return r.findBytes(b)
}

// find returns the number of the word w, or 0.
func (r *ruleSet) find(w string) word { return r.findBytes([]byte(w)) }

// findBytes returns the number of the word b, or 0: a binary search of the sorted vocabulary,
// comparing without a copy of b.
func (r *ruleSet) findBytes(b []byte) word {
	lo, hi := 0, len(r.vocab)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.vocab[m] < string(b) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(r.vocab) && r.vocab[lo] == string(b) {
		return word(lo + 1)
	}
	return 0
}

var quotes = strings.NewReplacer("’", "'", "‘", "'")

// normalize lowercases, reads ’ and ‘ as ', and makes the text one line of single spaces.
func normalize(s string) string {
	return plain.Line(strings.ToLower(quotes.Replace(s)), 0)
}

// deferral is a deferral found in a prompt.
type deferral struct {
	phrase *phrase // nil: none
	at     int     // the byte offset of its first word
	label  int     // a label's: where what it defers starts (after the colon or dash); else -1
}

// findDeferral returns the first deferral in the first 16 KiB of prompt. A match counts only
// when it defers: a phrase not ending in "…" ends its clause or is followed by one of
// FollowWords; one of SaidAlone is its clause, which ends a sentence, or opens one and ends with
// a colon or a dash (a label); one of WaitPhrases ends its clause or says until when; a return
// phrase points back or says when, and its clause holds none of NowWords. At a given word the
// longest phrase is tried first.
func findDeferral(prompt string) deferral {
	s := head(prompt, maxPhrases)
	var buf [64]span
	c := clause{s: s, words: buf[:0], opens: true}
	for start := 0; start < len(s); {
		c.words, c.next, c.last = nextClause(s, start, c.words[:0])
		c.when, c.now = unknown, unknown
		end, _ := utf8.DecodeLastRuneInString(s[start:c.next])
		c.colon = !c.last && strings.ContainsRune(":-—–", end)
		for i, w := range c.words {
			for _, p := range rules.phrases[w.w] {
				if p.match(&c, i) {
					d := deferral{phrase: p, at: w.start, label: -1}
					if p.alone && !c.last {
						d.label = c.next
					}
					return d
				}
			}
		}
		// The next clause opens a sentence when this one ends it, or when nothing but marks
		// (a list's "- ", "**") came before it in its sentence.
		c.opens = c.last || c.opens && len(c.words) == 0
		start = c.next
	}
	return deferral{at: -1, label: -1}
}

// span is a word of the text: where it is, and its number.
type span struct {
	start, end int
	w          word
}

// clause is a clause of s being searched, and what is known of it so far: each fact is worked
// out once, so that a clause of 16 KiB full of phrases costs one pass per fact.
type clause struct {
	s         string
	words     []span
	next      int  // where the next clause starts
	last      bool // the clause ends a sentence or s
	opens     bool // no word comes before the clause in its sentence
	colon     bool // the clause ends with a colon or a dash, inside its sentence
	when, now fact // it (or the rest of its sentence) holds one of WhenWords; one of NowWords
}

type fact int8

const (
	unknown fact = iota
	no
	yes
)

func (f *fact) get(find func() bool) bool {
	if *f == unknown {
		*f = no
		if find() {
			*f = yes
		}
	}
	return *f == yes
}

// match reports whether p occurs at the clause's word i and defers.
func (p *phrase) match(c *clause, i int) bool {
	ws := c.words
	if !wordsAt(ws, i, p.head) {
		return false
	}
	end := i + len(p.head)
	switch {
	case p.alone:
		return i == 0 && end == len(ws) && (c.last || c.opens && c.colon)
	case p.wait:
		return end == len(ws) || end+1 < len(ws) && rules.until[ws[end].w] && rules.time[ws[end+1].w]
	case p.tail != nil:
		for gap := 1; gap <= maxGap; gap++ {
			if wordsAt(ws, end+gap, p.tail) && p.ends(ws, end+gap+len(p.tail)) {
				return true
			}
		}
		return false
	case p.ret:
		points := end < len(ws) && rules.point[ws[end].w]
		when := func() bool { return anyOf(ws, rules.when) || !c.last && whenAhead(c.s, c.next) }
		return (points || c.when.get(when)) && !c.now.get(func() bool { return now(ws) })
	}
	return p.ends(ws, end)
}

// ends reports whether a phrase may end before word i: it is open, or ends the clause, or the
// next word is one of FollowWords.
func (p *phrase) ends(ws []span, i int) bool {
	return p.open || i >= len(ws) || rules.follow[ws[i].w]
}

// wordsAt reports whether the words of ws from index i are want.
func wordsAt(ws []span, i int, want []word) bool {
	if i+len(want) > len(ws) {
		return false
	}
	for j, w := range want {
		if ws[i+j].w != w {
			return false
		}
	}
	return true
}

// anyOf reports whether one of ws is in set.
func anyOf(ws []span, set []bool) bool {
	for _, w := range ws {
		if set[w.w] {
			return true
		}
	}
	return false
}

// whenAhead reports whether one of WhenWords occurs in the clauses of s from byte start to the
// end of their sentence: "let's come back to the deploy with Authorization: … later".
func whenAhead(s string, start int) bool {
	var buf [64]span
	for last := false; !last && start < len(s); {
		var ws []span
		ws, start, last = nextClause(s, start, buf[:0])
		if anyOf(ws, rules.when) {
			return true
		}
	}
	return false
}

// now reports whether the words ask for action now: they hold one of NowWords, not after one of
// NotNowWords.
func now(ws []span) bool {
	for i := 0; i < len(ws); i++ {
		for _, n := range rules.now {
			if !wordsAt(ws, i, n) {
				continue
			}
			if i == 0 || !rules.notNow[ws[i-1].w] {
				return true
			}
			i += len(n) - 1 // "not right now": "now" is not looked at again
			break
		}
	}
	return false
}

// nextClause appends to buf the words of the clause of s that starts at byte start, and returns
// them, where the next clause starts, and whether this one ends a sentence or s. A word is a run
// of letters and digits, joined by an apostrophe, a hyphen, an underscore, a dot or a slash
// between two of them ("let's", "park-ride", "sync.Map"). A clause ends at a line break and at
// , ; : . ! ? ( ) [ ] { } — – … and a hyphen or a dot that joins nothing; a sentence at a line
// break, . ! and ?. Quotes and other marks only separate words.
func nextClause(s string, start int, buf []span) (words []span, next int, last bool) {
	in := -1 // start of the current word
	for i := start; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if isWordRune(r) {
			if in < 0 {
				in = i
			}
			i += n
			continue
		}
		if in >= 0 && joins(r) && i+n < len(s) {
			if r2, _ := utf8.DecodeRuneInString(s[i+n:]); isWordRune(r2) {
				i += n
				continue
			}
		}
		if in >= 0 {
			buf, in = append(buf, span{in, i, rules.lookup(s, in, i)}), -1
		}
		i += n
		switch r {
		case '.', '!', '?', '\n', '\r':
			return buf, i, true
		case ',', ';', ':', '(', ')', '[', ']', '{', '}', '—', '–', '…', '-':
			return buf, i, false
		}
	}
	if in >= 0 {
		buf = append(buf, span{in, len(s), rules.lookup(s, in, len(s))})
	}
	return buf, len(s), true
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// joins reports the marks that join two letters or digits into one word.
func joins(r rune) bool {
	switch r {
	case '\'', '’', '‘', '-', '_', '.', '/':
		return true
	}
	return false
}

// question returns the question that Claude's message ends with — the last sentence of its last
// non-empty line, when that line ends with '?' (closing markup such as ** or a quote ignored) —
// and the options listed right above it: the list items
// ("- …", "* …", "1. …", "b) …", "Option …") that end just before the question's line, blank
// lines aside, at most maxOptions of them. A message that ends otherwise may still end on a
// question, as the session record reads it (transcript.Question): one followed by a short
// sentence ("… the export? Let me know.", or "Let me know what you think!" as a paragraph of
// its own), or one asked without a question mark ("Let me know if I should …"); it has no
// options.
func question(assistant string) (q, options string, ok bool) {
	s := strings.TrimRight(assistant, " \t\r\n")
	if len(s) > maxScan {
		s = s[len(s)-maxScan:]
	}
	whole := s
	above := ""
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s, above = s[i+1:], s[:i]
	}
	s = strings.TrimRight(s, " \t*_`\"')]”’")
	if !strings.HasSuffix(s, "?") {
		if q := transcript.Question(whole); q != "" {
			return plain.Line(q, 0), "", true
		}
		return "", "", false
	}
	start := 0
	for i := 0; i < len(s)-1; i++ {
		if strings.ContainsRune(".?!", rune(s[i])) && (s[i+1] == ' ' || s[i+1] == '\t') {
			start = i + 1
		}
	}
	q = strings.TrimLeft(s[start:], " \t>#*_-+`\"“")
	q = plain.Line(q, 0)
	if q == "" || q == "?" {
		return "", "", false
	}
	var items []string
	for n := 0; n < maxOptions && above != ""; {
		line := above
		if i := strings.LastIndexByte(above, '\n'); i >= 0 {
			line, above = above[i+1:], above[:i]
		} else {
			above = ""
		}
		switch line = strings.TrimSpace(line); {
		case line == "":
			continue
		case isListItem(line):
			items = append(items, line)
			n++
			continue
		}
		break
	}
	return q, strings.Join(items, "\n"), true
}

// isListItem reports a line that lists an option: it starts with "-", "*", "+" or "•" and a
// space, with a number or a letter a–h and ")" or ".", or with the word "option".
func isListItem(line string) bool {
	line = strings.TrimLeft(line, "> \t")
	for _, m := range []string{"- ", "* ", "+ ", "• "} {
		if strings.HasPrefix(line, m) {
			return true
		}
	}
	if l := strings.ToLower(strings.TrimLeft(line, "*_#( ")); strings.HasPrefix(l, "option") {
		return true
	}
	line = strings.TrimPrefix(line, "(")
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == 0 && len(line) > 0 && (line[0] >= 'a' && line[0] <= 'h' || line[0] >= 'A' && line[0] <= 'H') {
		i = 1
	}
	return i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') && (i+1 == len(line) || line[i+1] == ' ')
}

// isAnswer reports whether prompt answers (or follows up on) question, by fixed rules: it has at
// most three words; or its first word is one of ReplyWords (also after one of LeadWords); or it
// starts with an option or a number ("a)", "(b)", "2.", "#3", "c", "2"), or names one among its
// first five words ("option b", "choice 2"); or it quotes the
// question — shares a run of three words with it, or one of its first three words, four letters
// or more and not one of CommonWords, is a word of the question. question may be "" to apply
// only the rules that do not need it. A prompt may also quote options, the list above the question.
func isAnswer(prompt, question, options string) bool {
	first := firstWords(prompt, 6)
	if len(first) <= 3 {
		return true
	}
	fields := strings.Fields(normalize(head(prompt, 256))) // the first words, as typed
	if len(fields) == 0 {
		fields = []string{""} // 256 bytes of nothing but white space and controls
	}
	reply := replyWord(fields[0])
	if leadWords.has(reply) && len(fields) > 1 {
		reply = replyWord(fields[1])
	}
	if replyWords.has(reply) || isOption(fields[0]) || namesOption(first) {
		return true
	}
	if question == "" {
		return false
	}
	inQuestion := map[string]bool{}
	tri := map[string]bool{}
	for _, text := range []string{question, options} {
		qw := wordsOf(text)
		for i, w := range qw {
			inQuestion[w] = true
			if i+2 < len(qw) {
				tri[w+" "+qw[i+1]+" "+qw[i+2]] = true
			}
		}
	}
	for _, w := range first[:3] {
		if utf8.RuneCountInString(w) >= 4 && inQuestion[w] && !commonWords.has(w) {
			return true
		}
	}
	words := wordsOf(prompt)
	for i := 0; i+2 < len(words); i++ {
		if tri[words[i]+" "+words[i+1]+" "+words[i+2]] {
			return true
		}
	}
	return false
}

// replyWord is a prompt's field as ReplyWords spell it: without the punctuation around it, an
// emoji without its skin tone or its variation selector ("👍🏻", "✔️").
func replyWord(f string) string {
	f = strings.Trim(f, ",.!:;")
	if !strings.ContainsFunc(f, isModifier) {
		return f
	}
	return strings.Map(func(r rune) rune {
		if isModifier(r) {
			return -1
		}
		return r
	}, f)
}

// isModifier reports an emoji's skin tone or variation selector.
func isModifier(r rune) bool { return r == '\uFE0F' || '\U0001F3FB' <= r && r <= '\U0001F3FF' }

// namesOption reports a prompt that names an option among its first five words: "option" or
// "choice", then a number or a letter a–h ("I'll take option b").
func namesOption(words []string) bool {
	for i, w := range words[:min(5, len(words)-1)] {
		if w != "option" && w != "choice" {
			continue
		}
		n := words[i+1]
		if len(n) == 1 && n[0] >= 'a' && n[0] <= 'h' || strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// isOption reports a prompt whose first field f chooses an option: "a)", "(b)", "c.", "d:", a
// lone letter b–h, or a number.
func isOption(f string) bool {
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

// firstWords returns wordsOf(s)'s first n words.
func firstWords(s string, n int) []string {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	var out []string
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if out = append(out, strings.ToLower(s[start:i])); len(out) == n {
				return out
			}
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

// wordsOf returns the lowercase words of s: runs of letters, digits and apostrophes.
func wordsOf(s string) []string {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// parsedPrompt is a prompt read by the rules that need only the prompt.
type parsedPrompt struct {
	text   string   // trimmed
	found  deferral // the deferral found in text, if any
	answer bool     // plainly an answer whatever Claude asked (isAnswer without the question)
	skip   bool     // never parked: empty, a slash command ("/…"), shell input ("!…") or a memory note ("#…")
}

// readPrompt applies the rules that look at the prompt alone.
func readPrompt(prompt string) parsedPrompt {
	p := parsedPrompt{text: strings.TrimSpace(prompt)}
	if p.text == "" || strings.ContainsRune("/!#", rune(p.text[0])) {
		p.skip = true
		return p
	}
	p.found = findDeferral(p.text)
	p.answer = !p.deferral() && isAnswer(p.text, "", "")
	return p
}

// deferral reports whether the prompt defers something (rule a): it parks whatever Claude said.
func (p parsedPrompt) deferral() bool { return p.found.phrase != nil }

// mayPark reports whether the prompt can park anything: a deferral, or a prompt that is not
// plainly an answer and so may leave Claude's question open. When it is false, nothing is read.
func (p parsedPrompt) mayPark() bool { return !p.skip && (p.deferral() || !p.answer) }

// decide takes the text of Claude's last message ("" when unknown) and returns the bullet to
// park, without a slug; ok is false when nothing is to be parked. Copied text is redacted before
// it is shortened.
func (p parsedPrompt) decide(assistant string) (b parking.Bullet, ok bool) {
	if !p.mayPark() {
		return parking.Bullet{}, false
	}
	if p.deferral() {
		return deferred(p.text, assistant, p.found)
	}
	q, options, asked := question(assistant)
	if !asked || isAnswer(p.text, q, options) {
		return parking.Bullet{}, false
	}
	b, err := parking.NewBullet(parking.KindQuestion, shorten(firstSentence(p.text), maxIdea), shorten(q, maxQuestion),
		"Claude asked this and the user moved on to a new request without answering", "ask the question again once the new request is done")
	return b, err == nil
}

// deferred builds rule (a)'s item. The idea is the prompt's sentence with the phrase, or the
// sentence after a label ("later: look at the flaky test" defers "look at the flaky test");
// when that sentence is little more than the phrase ("park this", "ok, let's come back to
// that"), the idea is what Claude said last, which is what the user deferred.
func deferred(prompt, assistant string, d deferral) (parking.Bullet, bool) {
	ph := d.phrase
	sentence, label := sentenceAt(prompt, d.at), false
	if d.label >= 0 {
		if after := firstSentence(prompt[d.label:]); after != "" {
			sentence, label = after, true
		}
	}
	idea, context := sentence, "deferred by the user"
	if !label && len(wordsOf(sentence))-ph.words() <= 3 && strings.TrimSpace(assistant) != "" {
		idea = lastSentence(assistant)
		context = "the user said \"" + shorten(sentence, maxIdea) + "\""
	} else if strings.TrimSpace(assistant) != "" {
		context = "raised while Claude was on: " + shorten(firstSentence(assistant), maxIdea)
	}
	b, err := parking.NewBullet(parking.KindDeferred, shorten(idea, maxIdea), context,
		"the user deferred it (\""+strings.TrimSuffix(ph.text, " …")+"\")", "bring it up again when the current task is done")
	return b, err == nil
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

// sentenceAt returns the sentence of s that holds byte at, split as sentences splits; at most
// maxScan bytes either side of at are looked at.
func sentenceAt(s string, at int) string {
	lo, hi := max(0, at-maxScan), min(len(s), at+maxScan)
	start, end := lo, hi
	if i := strings.LastIndexByte(s[lo:at], '\n'); i >= 0 {
		start = lo + i + 1
	}
	if i := strings.IndexByte(s[at:hi], '\n'); i >= 0 {
		end = at + i
	}
	line := s[start:end]
	at -= start
	from, to := 0, len(line)
	for i := 0; i < len(line); i++ {
		if strings.ContainsRune(".?!", rune(line[i])) && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			if i < at {
				from = i + 1
			} else {
				to = i + 1
				break
			}
		}
	}
	if out := appendSentence(nil, line[from:to]); len(out) > 0 {
		return out[0]
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
	s = plain.Line(redact.Redact(s), 0)
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

// Store is what automatic parking needs of the parking lot (*parking.Store).
type Store interface {
	// FreshBullets counts the open bullets: the guard's cheap count, without the legacy files.
	FreshBullets() int
	// ParkAutomatically parks b, as parking.Store.Park does, with the write the prompt path can
	// afford (see parking.Store.ParkAutomatically); a *parking.FullError when MaxOpen items are
	// open, added false when the item is parked already.
	ParkAutomatically(b parking.Bullet) (it parking.Item, added bool, err error)
	// AnyParkedHere reports whether any open item was parked on this machine (asked only when
	// the guard refuses: a lot a clone committed full is not the user's list to show).
	AnyParkedHere() bool
}

// Outcome is what automatic parking did with one prompt.
type Outcome struct {
	Parked  *parking.Item // the item parked, or nil
	Refused int           // the guard refused it: this many items are open (0: not refused)
	Foreign bool          // refused, and none of the open items was parked on this machine
	Warning error         // a problem that did not stop the parking (a pointer left in Claude Code's memory index)
}

// Defers reports whether prompt defers what it names by the parking rules (rule a: "later: …",
// "Not now, but at some point we should …"): what it names is parked, not worked on. A reader
// that says what a session was doing passes such a prompt over.
func Defers(prompt string) bool {
	p := readPrompt(prompt)
	return !p.skip && p.deferral()
}

// Run applies the automatic parking rules to prompt, once, and parks what they decide in the
// store. Cheapest first: a prompt that is plainly an answer and defers nothing is settled without
// calling lastReply (which reads the transcript) or store; with the parking lot surely full
// (MaxOpen fresh bullets, counted once) a deferral is refused before lastReply is called, and any
// other item before the store's locked write; the store's own refusal of an 11th item, counting
// the legacy files too, is the guard's last word (with 10 or more open nothing is parked and
// Claude is told to show the list: docs/PARKING.md, Ages, stale, expiry, the guard).
func Run(prompt string, store func() Store, lastReply func() string) (Outcome, error) {
	p := readPrompt(prompt)
	if !p.mayPark() {
		return Outcome{}, nil
	}
	s := store()
	fresh := -1
	if p.deferral() {
		if fresh = s.FreshBullets(); fresh >= parking.MaxOpen {
			return Outcome{Refused: fresh, Foreign: !s.AnyParkedHere()}, nil
		}
	}
	b, ok := p.decide(lastReply())
	if !ok {
		return Outcome{}, nil
	}
	if fresh < 0 {
		if fresh = s.FreshBullets(); fresh >= parking.MaxOpen {
			return Outcome{Refused: fresh, Foreign: !s.AnyParkedHere()}, nil
		}
	}
	var out Outcome
	it, added, err := s.ParkAutomatically(b)
	if ie, rest := parking.IndexWarning(err); ie != nil {
		out.Warning, err = ie, rest // an expired legacy file's pointer; the item is parked all the same
	}
	var full *parking.FullError
	switch {
	case errors.As(err, &full):
		out.Refused, out.Foreign = len(full.Items), !s.AnyParkedHere()
		return out, nil
	case err != nil || !added:
		return out, err // a prompt submitted again: its item is parked already and Claude was told
	}
	out.Parked = &it
	return out, nil
}
