package parking

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/plain"
)

// Kinds of items that cairn session park takes, and their entry forms, as users know them from
// the original /session workflow (docs/DESIGN.md, What cairn is for).
const (
	KindQuestion = "question" // User raised: <idea>. Pending: <detail>
	KindDeferred = "deferred" // Deferred: <idea>. Context: <detail>
	kindSide     = "side"     // Side idea: <idea>. Raised while: <detail>
)

// forms are the entry forms of the three kinds, with the kinds' default Why and How.
var forms = map[string]struct{ label, detail, why, how string }{
	KindQuestion: {"User raised: ", "Pending: ", "the user moved on before the question was answered", "ask the question again"},
	KindDeferred: {"Deferred: ", "Context: ", "deferred during the session", "bring it up again when the current task is done"},
	kindSide:     {"Side idea: ", "Raised while: ", "it came up while working on something else", "raise it when the current task is done"},
}

// NewBullet builds the bullet cairn session park writes for kind, with the kind's default Why
// and How when why or how is "". An empty detail leaves its part out. The slug is left empty.
func NewBullet(kind, idea, detail, why, how string) (Bullet, error) {
	f, ok := forms[kind]
	if !ok {
		return Bullet{}, fmt.Errorf("unknown kind %q: use question, deferred or side", kind)
	}
	idea, detail = strings.TrimRight(plain.Line(idea, 0), ". "), strings.TrimRight(plain.Line(detail, 0), ". ")
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

// joinSentences joins two sentences, with ". " unless the first ends with '?', '!' or a cut
// ("…"); the result has no final period (Format adds it).
func joinSentences(a, b string) string {
	b = strings.TrimRight(b, ". ")
	if strings.HasSuffix(a, "?") || strings.HasSuffix(a, "!") || strings.HasSuffix(a, "…") {
		return a + " " + b
	}
	return strings.TrimRight(a, ". ") + ". " + b
}
