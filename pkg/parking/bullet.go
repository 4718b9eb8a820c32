package parking

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-hooks/cairn/pkg/plain"
)

// Bullet is one parked item, a line under "## Parked items" in the grammar of docs/PARKING.md:
// "- **<slug>** — <summary>. Raised: <YYYY-MM-DD>. Why: <one sentence>. How to apply: <what to
// ask or do>." Fields hold their text without the period that ends it.
type Bullet struct {
	Slug    string // [a-z0-9-]+
	Summary string // "User raised: …. Pending: …", "Deferred: …. Context: …" or "Side idea: …. Raised while: …"
	Raised  string // YYYY-MM-DD, or "" when the bullet carries no valid date
	Why     string
	How     string
}

// DateLayout is the layout of Raised dates and of every date cairn prints for parked items.
const DateLayout = "2006-01-02"

// maxSlug bounds a slug; longer ones are cut at a dash where possible.
const maxSlug = 64

// Field markers, lowercase. "How:" is accepted for "How to apply:" on read.
var markers = []struct {
	text  string
	field int
}{
	{"raised:", fieldRaised},
	{"why:", fieldWhy},
	{"how to apply:", fieldHow},
	{"how:", fieldHow},
}

const (
	fieldSummary = iota
	fieldRaised
	fieldWhy
	fieldHow
)

// parseBullet reads one bullet tolerantly: "-", "*" or "+" bullets, an optional "[ ]" box, the
// slug in bold, in backticks or bare, "—", "–", "--", "-" or ":" after it, fields in any order
// and in any case, bold field names. A bullet with no slug gets one derived from its summary.
// text is the bullet's first line, with any continuation lines joined to it by spaces. ok is
// false when text is not a bullet. The fields come back canonical (see format), so that
// parseBullet(format(b)) == b for every b that parseBullet returns.
func parseBullet(text string) (b Bullet, ok bool) {
	slug, rest, ok := splitBullet(text)
	if !ok {
		return Bullet{}, false
	}
	b = parseFields(rest)
	b.Slug = slug
	if b.Slug == "" {
		b.Slug = deriveSlug(b.Summary)
	}
	return b, true
}

// splitBullet is the first half of parseBullet: text without its list marker and box, made one
// line, then split into its slug (Slugify'd; "" when it has none) and the fields after it.
func splitBullet(text string) (slug, rest string, ok bool) {
	s := strings.TrimLeft(text, " \t")
	if len(s) < 2 || !strings.ContainsRune("-*+", rune(s[0])) || (s[1] != ' ' && s[1] != '\t') {
		return "", "", false
	}
	s = plain.Line(s[2:], 0)
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		s = strings.TrimPrefix(s, box)
	}
	if s == "" {
		return "", "", false
	}
	if inner, after, found := delimited(s); found {
		slug, rest = Slugify(inner), after
	} else if tok, after, found := bareSlug(s); found {
		slug, rest = Slugify(tok), after
	} else {
		rest = s
	}
	if slug != "" {
		rest = stripSeparator(rest)
	}
	return slug, rest, true
}

// raisedOf is the Raised date parseBullet reads from text ("" when it has none), found without
// cleaning the other fields: each of those is redacted, which is most of a bullet's parse, and
// Expire's first look and Count need the dates alone. ok is parseBullet's.
func raisedOf(text string) (raised string, ok bool) {
	_, rest, ok := splitBullet(text)
	if !ok {
		return "", false
	}
	v := fieldValues(rest)[fieldRaised]
	// The value cairn writes, a date and its period, is all digits and dashes: no secret, no
	// markup, nothing cleanField would change but the period. Anything else is cleaned as
	// parseBullet cleans it.
	if d := strings.TrimRight(strings.TrimSpace(v), ". "); len(d) == len(DateLayout) && strings.Trim(d, "0123456789-") == "" {
		return parseDate(d), true
	}
	return parseDate(cleanField(v)), true
}

// delimited splits "**slug** rest", "__slug__ rest" or "`slug` rest".
func delimited(s string) (inner, rest string, ok bool) {
	for _, d := range []string{"**", "__", "`"} {
		if strings.HasPrefix(s, d) {
			if j := strings.Index(s[len(d):], d); j >= 0 {
				inner = s[len(d) : len(d)+j]
				if Slugify(inner) == "" {
					return "", "", false
				}
				return inner, s[len(d)+j+len(d):], true
			}
		}
	}
	return "", "", false
}

// bareSlug splits "fix-login — rest": a single word before a dash separator.
func bareSlug(s string) (tok, rest string, ok bool) {
	i := strings.IndexByte(s, ' ')
	if i <= 0 {
		return "", "", false
	}
	tok = s[:i]
	for _, r := range tok {
		if !(r == '-' || r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return "", "", false
		}
	}
	after := s[i+1:]
	for _, sep := range []string{"— ", "– ", "-- ", "- "} {
		if strings.HasPrefix(after, sep) {
			return tok, after, true
		}
	}
	return "", "", false
}

// stripSeparator removes one separator between the slug and the summary.
func stripSeparator(s string) string {
	s = strings.TrimLeft(s, " ")
	for _, sep := range []string{"—", "–", "--", "-", ":"} {
		if rest, ok := strings.CutPrefix(s, sep); ok && (rest == "" || rest[0] == ' ') {
			return strings.TrimLeft(rest, " ")
		}
	}
	return s
}

// parseFields splits the text after the slug at the field markers. The text before the first
// marker is the summary; a field named twice keeps its first value.
func parseFields(s string) Bullet {
	vals := fieldValues(s)
	b := Bullet{
		Summary: cleanField(vals[fieldSummary]),
		Why:     cleanField(vals[fieldWhy]),
		How:     cleanField(vals[fieldHow]),
	}
	b.Raised = parseDate(cleanField(vals[fieldRaised]))
	return b
}

// fieldValues is s split at its field markers, each field's first value as written.
func fieldValues(s string) (vals [4]string) {
	var seen [4]bool
	field, start := fieldSummary, 0
	set := func(end int) {
		if !seen[field] {
			vals[field], seen[field] = s[start:end], true
		}
	}
	scanMarkers(s, func(i, m int) {
		set(i)
		field, start = markers[m].field, i+len(markers[m].text)
	})
	set(len(s))
	return vals
}

// scanMarkers calls fn with the offset and index of each field marker in s, in order. A marker
// counts only at the start of the text or after the end of a sentence or clause ('.', ';', ',',
// '?', '!', '(', '[', '|', a dash), ignoring spaces and bold markup between. So "User raised: x"
// is a summary while "x. Raised: 2024-05-01" is a date. It is one pass over s.
func scanMarkers(s string, fn func(i, m int)) {
	lower := asciiLower(s)
	open := true // a marker may start here
	for i := 0; i < len(s); {
		if open {
			if m, ok := markerAt(lower, i); ok {
				fn(i, m)
				i += len(markers[m].text)
				open = false // after the marker's colon
				continue
			}
		}
		if c := s[i]; c < utf8.RuneSelf { // the common case, without decoding a rune
			if c != ' ' && c != '*' && c != '_' {
				open = opensMarker(rune(c))
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		open = opensMarker(r)
		i += n
	}
}

func markerAt(lower string, i int) (int, bool) {
	c := lower[i]
	for m, mk := range markers {
		if mk.text[0] == c && strings.HasPrefix(lower[i:], mk.text) {
			return m, true
		}
	}
	return 0, false
}

// opensMarker reports whether a field marker may follow r (spaces and bold markup aside).
func opensMarker(r rune) bool {
	switch r {
	case '.', ';', ',', '?', '!', '(', '[', '|', '-', '—', '–':
		return true
	}
	return false
}

// cleanField trims a field's value: spaces, a bold marker left over from "**Why:**", and the
// trailing periods that end the field.
func cleanField(v string) string {
	v = strings.TrimSpace(v)
	for _, d := range []string{"**", "__"} {
		v = strings.TrimSpace(strings.TrimPrefix(v, d))
		v = strings.TrimSpace(strings.TrimSuffix(v, d))
	}
	return neutralise(v)
}

// parseDate returns the YYYY-MM-DD date v starts with, or "".
func parseDate(v string) string {
	if len(v) < len(DateLayout) {
		return ""
	}
	d := v[:len(DateLayout)]
	if _, err := time.Parse(DateLayout, d); err != nil {
		return ""
	}
	return d
}

// format writes b canonically, on one line, without a newline. Text is neutralised first: line
// breaks and control characters become spaces, "**" and "__" (bold) collapse to one character,
// and a field name that would start a new field when read back ("x. Why: y") loses its colon
// ("x. Why - y"), so no text can forge a bullet, a heading, bold or a field.
func format(b Bullet) string {
	b = b.canonical()
	var sb strings.Builder
	sb.WriteString("- **")
	sb.WriteString(b.Slug)
	sb.WriteString("** —")
	add := func(label, v string) {
		if v == "" {
			return
		}
		sb.WriteString(" ")
		sb.WriteString(label)
		sb.WriteString(v)
		if !strings.HasSuffix(v, "?") && !strings.HasSuffix(v, "!") {
			sb.WriteString(".")
		}
	}
	add("", b.Summary)
	add("Raised: ", b.Raised)
	add("Why: ", b.Why)
	add("How to apply: ", b.How)
	return sb.String()
}

// canonical returns b with every field neutralised and the slug valid.
func (b Bullet) canonical() Bullet {
	b.Summary, b.Why, b.How = neutralise(b.Summary), neutralise(b.Why), neutralise(b.How)
	b.Raised = parseDate(b.Raised)
	if s := Slugify(b.Slug); s != "" {
		b.Slug = s
	} else {
		b.Slug = deriveSlug(b.Summary)
	}
	return b
}

// neutralise makes s safe as one field of one bullet line (see format): one line with its secrets
// redacted (plain.Field),
// "**" and "__" (bold) collapsed to one character, field names defused, and the periods that end
// a field trimmed. It is idempotent.
func neutralise(s string) string {
	s = plain.Field(s, 0)
	for strings.Contains(s, "**") || strings.Contains(s, "__") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "**", "*"), "__", "_")
	}
	s = defuse(s)
	for {
		t := strings.TrimRight(s, ". ")
		if t == s {
			break
		}
		s = t
	}
	return s
}

// defuse takes the colon from every field name in s that parseBullet would read as the start of
// a field, with s at the start of a field ("x. Why: y" → "x. Why - y"). It judges each one in
// the text as written so far: defusing one can make the next one count ("Why: Raised:" →
// "Why - Raised -").
func defuse(s string) string {
	found := false
	scanMarkers(s, func(int, int) { found = true })
	if !found {
		return s
	}
	var b strings.Builder
	lower := asciiLower(s)
	open := true
	for i := 0; i < len(s); {
		if open {
			if m, ok := markerAt(lower, i); ok {
				b.WriteString(s[i : i+len(markers[m].text)-1])
				b.WriteString(" -")
				i += len(markers[m].text)
				continue // open stays true: '-' opens a marker
			}
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(" *_", r) {
			open = opensMarker(r)
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// asciiLower lowercases ASCII letters only, so that byte offsets into the result are offsets
// into s.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Slugify turns s into a slug: lowercase ASCII letters and digits, other runs as one '-', no
// dash at either end, at most 64 characters. It returns "" when nothing is left.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > maxSlug {
		out = out[:maxSlug]
		if i := strings.LastIndexByte(out, '-'); i > maxSlug/2 {
			out = out[:i]
		}
		out = strings.TrimRight(out, "-")
	}
	return out
}

// ValidSlug reports whether s is a slug as Slugify writes it.
func ValidSlug(s string) bool {
	return s != "" && Slugify(s) == s
}

// formLabels start the three entry forms; a derived slug leaves them out.
var formLabels = []string{"user raised:", "deferred:", "side idea:"}

// slugStopWords are left out of derived slugs: they say nothing about the idea.
var slugStopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "but": true, "or": true, "so": true,
	"to": true, "of": true, "ok": true, "okay": true, "please": true, "lets": true, "let": true, "us": true,
}

// deriveSlug makes a slug from the first words of a summary, after its entry-form label.
func deriveSlug(summary string) string {
	s := summary
	for _, l := range formLabels {
		if len(s) >= len(l) && strings.EqualFold(s[:len(l)], l) {
			s = s[len(l):]
			break
		}
	}
	if i := strings.IndexAny(s, ".?!"); i > 0 {
		s = s[:i]
	}
	words := strings.Fields(s)
	var b strings.Builder
	for _, w := range words {
		w = Slugify(strings.NewReplacer("'", "", "’", "").Replace(w))
		if w == "" || slugStopWords[w] {
			continue
		}
		if b.Len() > 0 && b.Len()+1+len(w) > 40 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
		if strings.Count(b.String(), "-") >= 4 {
			break
		}
	}
	if b.Len() == 0 {
		return "item"
	}
	return Slugify(b.String())
}
